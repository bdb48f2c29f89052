import type { CellRange } from '../ooxml/cell-ref.js';
import { EXCEL_FUNCTIONS } from './excel-functions.js';
import { sheetOfPrefix, sheetsOfPrefix, tokenizeFormula, type FormulaToken } from './formula.js';

export type FormulaIssueCode =
  | 'invalid_token'
  | 'ref_error'
  | 'name_error'
  | 'div0_error'
  | 'value_error'
  | 'na_error'
  | 'circular_ref_suspected';

export interface FormulaIssue {
  sheet: string;
  cell: string;
  level: 'warning' | 'error';
  code: FormulaIssueCode;
  message: string;
}

export interface FormulaCheckContext {
  /** Defined names of the workbook (upper case): a LAMBDA name may be called like a function. */
  definedNames: ReadonlySet<string>;
  /** .xlsm: unknown functions may be VBA functions, so they only warn. */
  macroEnabled: boolean;
  /** The workbook's sheets after the patch, to find references to missing ones (unchecked if absent). */
  sheetNames?: readonly string[];
}

const ERROR_TOKENS: Record<string, [FormulaIssueCode, 'warning' | 'error']> = {
  '#REF!': ['ref_error', 'error'],
  '#NAME?': ['name_error', 'error'],
  '#DIV/0!': ['div0_error', 'error'],
  '#VALUE!': ['value_error', 'error'],
  '#N/A': ['na_error', 'warning'],
};

/**
 * Checks one formula (text without the leading `=`) of cell `cell` (row/col) on `sheet`: error
 * literals, unknown functions, malformed syntax, and references to the cell itself.
 */
export function checkFormula(
  sheet: string,
  address: string,
  at: { row: number; col: number },
  formula: string,
  context: FormulaCheckContext,
): FormulaIssue[] {
  const issues: FormulaIssue[] = [];
  const add = (level: 'warning' | 'error', code: FormulaIssueCode, message: string) =>
    issues.push({ sheet, cell: address, level, code, message });
  const body = formula.replace(/^=/, '');
  if (body.trim() === '') {
    add('error', 'invalid_token', 'The formula is empty.');
    return issues;
  }
  const tokens = tokenizeFormula(body);
  syntax(tokens, add);
  const seen = new Set<string>();
  const existing = context.sheetNames && new Set(context.sheetNames.map((n) => n.toLowerCase()));
  let selfRef = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === 'error') {
      const known = ERROR_TOKENS[token.text.toUpperCase()];
      if (known && !seen.has(known[0])) {
        seen.add(known[0]);
        add(known[1], known[0], `The formula contains ${token.text.toUpperCase()}.`);
      }
    } else if (token.type === 'sheet' && existing) {
      for (const name of sheetsOfPrefix(token.text) ?? []) {
        if (existing.has(name.toLowerCase()) || seen.has(`sheet:${name.toLowerCase()}`)) continue;
        seen.add(`sheet:${name.toLowerCase()}`);
        add(
          'error',
          'ref_error',
          `The formula refers to the sheet "${name}", which does not exist (Excel shows #REF!). Sheets: ${context.sheetNames!.map((n) => `"${n}"`).join(', ')}.`,
        );
      }
    } else if (token.type === 'function') {
      const name = token.text.toUpperCase().replace(/^(?:_XLFN\.|_XLWS\.)+/, '');
      if (
        name.startsWith('_XLUDF.') ||
        name.startsWith('_XLL.') ||
        EXCEL_FUNCTIONS.has(name) ||
        context.definedNames.has(name)
      )
        continue;
      add(
        context.macroEnabled ? 'warning' : 'error',
        'name_error',
        `Unknown function ${token.text}(): Excel will show #NAME?. Check the spelling (English function names, "," between arguments).`,
      );
    } else if ((token.type === 'name' || token.type === 'space') && !seen.has('fullwidth')) {
      const typed = fullwidthTypos(token.text);
      if (typed && !context.definedNames.has(token.text.toUpperCase())) {
        seen.add('fullwidth');
        add(
          'error',
          'invalid_token',
          `The formula has ${typed} outside quotes (typed with the IME on?): Excel reads function names, references, numbers and operators in half-width only and shows #NAME?. Retype them in half-width.`,
        );
      }
    } else if (!selfRef && (token.type === 'cell' || token.type === 'columns' || token.type === 'rows')) {
      const prev = tokens[i - 1];
      if (prev?.type === 'sheet' && sheetOfPrefix(prev.text)?.toLowerCase() !== sheet.toLowerCase()) continue;
      const range = referencedRange(tokens, i);
      if (range && contains(range, at)) {
        selfRef = true;
        add(
          'warning',
          'circular_ref_suspected',
          `The formula refers to its own cell ${address} (circular reference).`,
        );
      }
    }
  }
  return issues;
}

/** Full-width forms of ASCII (Ｓ, ＋, １), the ideographic space and curly quotes, as a Japanese IME types them. */
const IME_TYPED = /[\uFF01-\uFF5E\u3000\u2018\u2019\u201C\u201D]/gu;

/** Names those characters of a name token with the half-width ones meant (`"Ｓ" for "S", …`), or undefined. */
function fullwidthTypos(text: string): string | undefined {
  const found = [...new Set(text.match(IME_TYPED) ?? [])];
  if (found.length === 0) return undefined;
  const meant = (ch: string) => {
    if (ch === '\u3000') return 'a full-width space';
    if (ch === '\u2018' || ch === '\u2019') return `${ch} for '`;
    if (ch === '\u201C' || ch === '\u201D') return `${ch} for "`;
    return `${ch} for ${String.fromCharCode(ch.charCodeAt(0) - 0xfee0)}`;
  };
  return found.slice(0, 4).map(meant).join(', ');
}

function syntax(
  tokens: FormulaToken[],
  add: (level: 'error', code: FormulaIssueCode, message: string) => void,
): void {
  let depth = 0;
  let previous: FormulaToken | undefined;
  for (const token of tokens) {
    if (token.type === 'space') continue;
    if (token.type === 'invalid') {
      add(
        'error',
        'invalid_token',
        `Cannot read the formula from "${token.text.slice(0, 20)}" (unclosed quote or stray character).`,
      );
      return;
    }
    if (token.type === 'separator' && token.text === ';') {
      add(
        'error',
        'invalid_token',
        'Use "," between function arguments; ";" is not valid in a stored formula (except between the rows of an array constant {1,2;3,4}).',
      );
      return;
    }
    if (token.text === '{' || token.text === '}') {
      // Whole array constants are one token: a brace left over is not a valid one.
      add(
        'error',
        'invalid_token',
        'An array constant {…} holds only numbers, text, TRUE/FALSE and error values, "," between columns and ";" between rows, and needs both braces.',
      );
      return;
    }
    if (token.text === '(') depth++;
    if (token.text === ')' && --depth < 0) break;
    if (
      token.type === 'operator' &&
      previous?.type === 'operator' &&
      token.text === '=' &&
      previous.text === '='
    ) {
      add('error', 'invalid_token', 'The formula contains "==" (use "=" to compare).');
      return;
    }
    previous = token;
  }
  if (depth !== 0) add('error', 'invalid_token', 'The parentheses of the formula are not balanced.');
  if (previous && previous.type === 'operator' && !['%', ')'].includes(previous.text)) {
    add('error', 'invalid_token', `The formula ends with the operator "${previous.text}".`);
  }
}

/** The range a reference token denotes, joining `A1:B2` written as cell, `:`, cell. */
function referencedRange(tokens: FormulaToken[], i: number): CellRange | undefined {
  const token = tokens[i]!;
  const cell = (text: string) => {
    const m = /^\$?([A-Za-z]{1,3})\$?(\d+)$/.exec(text);
    if (!m) return undefined;
    let col = 0;
    for (const ch of m[1]!.toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
    return { row: Number(m[2]), col: col - 1 };
  };
  if (token.type === 'cell') {
    const a = cell(token.text);
    if (!a) return undefined;
    const next = tokens[i + 1];
    const after = tokens[i + 2];
    const prev = tokens[i - 1];
    if (prev?.text === ':') return undefined; // already counted with its start
    if (next?.text === ':' && after?.type === 'cell') {
      const b = cell(after.text);
      if (b) {
        return {
          start: { row: Math.min(a.row, b.row), col: Math.min(a.col, b.col) },
          end: { row: Math.max(a.row, b.row), col: Math.max(a.col, b.col) },
        };
      }
    }
    return { start: a, end: a };
  }
  if (token.type === 'columns') {
    const cols = token.text.split(':').map((p) => {
      let col = 0;
      for (const ch of p.replace('$', '').toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
      return col - 1;
    });
    return { start: { row: 1, col: Math.min(...cols) }, end: { row: 1048576, col: Math.max(...cols) } };
  }
  const rows = token.text.split(':').map((p) => Number(p.replace('$', '')));
  return { start: { row: Math.min(...rows), col: 0 }, end: { row: Math.max(...rows), col: 16383 } };
}

function contains(range: CellRange, at: { row: number; col: number }): boolean {
  return (
    at.row >= range.start.row &&
    at.row <= range.end.row &&
    at.col >= range.start.col &&
    at.col <= range.end.col
  );
}
