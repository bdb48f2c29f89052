import { colIndexToAlpha, MAX_COLUMN_INDEX, MAX_ROW } from '../ooxml/cell-ref.js';
import { FUTURE_FUNCTION_PREFIX } from './excel-functions.js';
import { PatchOpError } from './types.js';

/** One lexical piece of an Excel formula; concatenating every `text` gives the formula back. */
export interface FormulaToken {
  type:
    | 'string'
    | 'array' // an array constant `{1,2;3,4}`: constants only, `;` between rows
    | 'error'
    | 'sheet' // `Sheet1!`, `'My sheet'!` or 3-D `Jan:Mar!` (the prefix, including the `!`)
    | 'cell' // `$A$1`
    | 'columns' // `A:C`, `$A:$A`
    | 'rows' // `1:3`
    | 'function' // the name before `(`
    | 'name' // defined names, TRUE/FALSE, structured references
    | 'number'
    | 'operator'
    | 'spill' // the `#` of a spilled range reference (`A2#`), as typed in Excel
    | 'paren'
    | 'separator' // `,` `;`
    | 'space'
    | 'invalid';
  text: string;
}

/**
 * Characters of an unquoted sheet name before `!` (Excel writes other names quoted); the first may not
 * be `$`, `@` (the implicit-intersection operator) or `-`.
 */
const SHEET_NAME_FIRST = /[^\s!'"(),;:=<>+*/^&{}[\]#$@-]/;
const SHEET_NAME_REST = /[^\s!'"(),;:=<>+*/^&{}[\]#]/;
/** What may follow `[1]` in an external reference's sheet part, before `!`. */
const EXTERNAL_SHEET_TAIL = /[^\s!'"(),;:=<>+*/^&-]/;

/**
 * One item of an array constant: a number, text, TRUE/FALSE or an error value (no references). The
 * number has one way to match each text (`\d+(?:\.\d*)?`, not `\d+\.?\d*`), so a long run of digits
 * without a closing brace fails in linear time.
 */
const ARRAY_ITEM = String.raw`\s*(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?|"(?:[^"]|"")*"|TRUE|FALSE|#N\/A|#DIV\/0!|#VALUE!|#REF!|#NAME\?|#NUM!|#NULL!|#GETTING_DATA)\s*`;

/**
 * Where the run of characters matching `cls` that covers `pos` ends, for every `pos` of one formula:
 * computed once, backwards, on first use. The sheet rule asks it at many positions of the same run
 * (`%a%a%a…`, `1.1.1.…`), which a regex would rescan to its end each time: quadratic.
 */
class RunEnds {
  private ends: Int32Array | undefined;

  constructor(
    private readonly text: string,
    private readonly cls: RegExp,
  ) {}

  /** The first index at or after `pos` whose character is not in the class (the text's length at most). */
  at(pos: number): number {
    if (!this.ends) {
      const { text, cls } = this;
      this.ends = new Int32Array(text.length + 1);
      this.ends[text.length] = text.length;
      for (let i = text.length - 1; i >= 0; i--) this.ends[i] = cls.test(text[i]!) ? this.ends[i + 1]! : i;
    }
    return this.ends[pos]!;
  }
}

/** Per formula: the run tables of the sheet rule, built when a position first needs them. */
class SheetScan {
  private readonly names: RunEnds;
  private readonly tails: RunEnds;

  constructor(private readonly text: string) {
    this.names = new RunEnds(text, SHEET_NAME_REST);
    this.tails = new RunEnds(text, EXTERNAL_SHEET_TAIL);
  }

  /**
   * Length of the sheet prefix at `pos` (including `!`), or 0: `'quoted'!`, `[1]external!`, `Name!`
   * or a 3-D `First:Last!`. The same matches as the regex
   * `(?:'(?:[^']|'')+'|\[[^\]]+\][TAIL]*|NAME(?::NAME)?)!`, in linear time over a formula.
   */
  match(pos: number): number {
    const { text } = this;
    const first = text[pos];
    if (first === undefined) return 0;
    if (first === "'") {
      QUOTED_SHEET.lastIndex = pos;
      return QUOTED_SHEET.exec(text)?.[0].length ?? 0;
    }
    if (first === '[') {
      // `[^\]]+` cannot hold `]`, so the book part ends at the first `]`.
      const close = text.indexOf(']', pos + 1);
      if (close <= pos + 1) return 0;
      const end = this.tails.at(close + 1);
      return text[end] === '!' ? end + 1 - pos : 0;
    }
    const end = this.nameEnd(pos);
    if (end === undefined) return 0;
    if (text[end] === '!') return end + 1 - pos;
    if (text[end] !== ':') return 0;
    const last = this.nameEnd(end + 1);
    return last !== undefined && text[last] === '!' ? last + 1 - pos : 0;
  }

  /** The end of an unquoted sheet name starting at `pos` (the run is maximal: `!` and `:` are not in it). */
  private nameEnd(pos: number): number | undefined {
    const first = this.text[pos];
    if (first === undefined || !SHEET_NAME_FIRST.test(first)) return undefined;
    return this.names.at(pos + 1);
  }
}

const QUOTED_SHEET = /'(?:[^']|'')+'!/y;

type Matcher = RegExp | 'sheet';

const RULES: [FormulaToken['type'], Matcher][] = [
  ['space', /\s+/y],
  ['string', /"(?:[^"]|"")*"/y],
  // One token, so fill, sheet renames and the check never look inside (`;` there separates rows).
  ['array', new RegExp(String.raw`\{${ARRAY_ITEM}(?:[,;]${ARRAY_ITEM})*\}`, 'iy')],
  // Quoted, external ([1]Sheet), or unquoted — one name or a 3-D range of them (`Jan:Mar!`).
  ['sheet', 'sheet'],
  [
    'error',
    /#(?:NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A|GETTING_DATA|SPILL!|CALC!|FIELD!|BLOCKED!|CONNECT!|BUSY!|UNKNOWN!)/iy,
  ],
  // After the error values: `#` right after a reference, before whatever may follow one.
  ['spill', /#(?=$|[\s),;:+\-*/^&=<>%}])/y],
  ['columns', /\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![\w(.])/y],
  ['rows', /\$?\d+:\$?\d+(?![\w.(])/y],
  ['cell', /\$?[A-Za-z]{1,3}\$?\d+(?![\w(.!])/y],
  ['number', /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y],
  ['function', /[A-Za-z_\\][\w.]*(?=\s*\()/y],
  [
    'name',
    /[A-Za-z_\\\u00C0-\uFFFF][\w.\u00C0-\uFFFF]*(?:\[(?:[^[\]]|\[[^\]]*\])*\])?|\[(?:[^[\]]|\[[^\]]*\])*\]/y,
  ],
  ['operator', /<>|<=|>=|[-+*/^&=<>%:@]/y],
  ['paren', /[(){}]/y],
  ['separator', /[,;]/y],
];

/**
 * Splits a formula (with or without the leading `=`) into tokens; never throws. Linear in the
 * formula's length: every rule either consumes what it scanned or fails after a bounded look, and
 * the sheet rule reads its runs from tables (SheetScan).
 */
export function tokenizeFormula(formula: string): FormulaToken[] {
  const tokens: FormulaToken[] = [];
  const sheets = new SheetScan(formula);
  let pos = 0;
  outer: while (pos < formula.length) {
    for (const [type, rule] of RULES) {
      let length: number;
      if (rule === 'sheet') length = sheets.match(pos);
      else {
        rule.lastIndex = pos;
        length = rule.exec(formula)?.[0].length ?? 0;
      }
      if (length > 0) {
        tokens.push({ type, text: formula.slice(pos, pos + length) });
        pos += length;
        continue outer;
      }
    }
    tokens.push({ type: 'invalid', text: formula.slice(pos) });
    break;
  }
  return tokens;
}

interface RefPart {
  colAbs: boolean;
  col: number;
  rowAbs: boolean;
  row: number;
}

const CELL = /^(\$?)([A-Za-z]{1,3})(\$?)(\d+)$/;

function parseCellToken(text: string): RefPart | undefined {
  const m = CELL.exec(text);
  if (!m) return undefined;
  const letters = m[2]!.toUpperCase();
  let col = 0;
  for (const ch of letters) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { colAbs: m[1] === '$', col: col - 1, rowAbs: m[3] === '$', row: Number(m[4]) };
}

/**
 * Moves a formula written for `from` to `to`, as Excel's fill does: relative parts of references
 * shift, `$` parts stay; a reference pushed off the sheet becomes `#REF!`.
 */
export function translateFormula(formula: string, dRow: number, dCol: number): string {
  if (dRow === 0 && dCol === 0) return formula;
  return tokenizeFormula(formula)
    .map((token) => {
      if (token.type === 'cell') {
        const ref = parseCellToken(token.text);
        if (!ref) return token.text;
        const row = ref.rowAbs ? ref.row : ref.row + dRow;
        const col = ref.colAbs ? ref.col : ref.col + dCol;
        if (row < 1 || row > MAX_ROW || col < 0 || col > MAX_COLUMN_INDEX) return '#REF!';
        return `${ref.colAbs ? '$' : ''}${colIndexToAlpha(col)}${ref.rowAbs ? '$' : ''}${row}`;
      }
      if (token.type === 'columns') {
        const parts = token.text.split(':').map((p) => /^(\$?)([A-Za-z]+)$/.exec(p)!);
        const moved = parts.map((m) => {
          if (m[1] === '$') return m[0];
          let col = 0;
          for (const ch of m[2]!.toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
          col = col - 1 + dCol;
          return col < 0 || col > MAX_COLUMN_INDEX ? undefined : colIndexToAlpha(col);
        });
        return moved.includes(undefined) ? '#REF!' : moved.join(':');
      }
      if (token.type === 'rows') {
        const moved = token.text.split(':').map((p) => {
          if (p.startsWith('$')) return p;
          const row = Number(p) + dRow;
          return row < 1 || row > MAX_ROW ? undefined : String(row);
        });
        return moved.includes(undefined) ? '#REF!' : moved.join(':');
      }
      return token.text;
    })
    .join('');
}

/** The sheet name of a `sheet` token (`'It''s'!` → `It's`); undefined for external references. */
export function sheetOfPrefix(prefix: string): string | undefined {
  const body = prefix.slice(0, -1);
  // Sheet names cannot hold `[`: one that does is another workbook's (`'C:\x\[Book.xlsx]S'!`).
  if (body.includes('[')) return undefined;
  if (body.startsWith("'")) return body.slice(1, -1).replace(/''/g, "'");
  return body;
}

/**
 * Whether Excel would read a sheet name, unquoted, as a reference: A1 (`AB12`) or R1C1 (`R`, `C`, `RC`,
 * and names that start like one, `R2C3`, `C1x`). Such names are quoted wherever they prefix a reference.
 */
export function readsAsReference(name: string): boolean {
  return /^[A-Za-z]{1,3}\d+$/.test(name) || /^(?:[RC]|RC)$|^(?:R\d|C\d|RC\d)/i.test(name);
}

/** How a sheet name must be written before `!` in a formula. */
export function sheetPrefix(name: string): string {
  return /^[A-Za-z_\u00C0-\uFFFF][\w.\u00C0-\uFFFF]*$/.test(name) && !readsAsReference(name)
    ? `${name}!`
    : `'${name.replace(/'/g, "''")}'!`;
}

/**
 * The sheets a `sheet` token names: one, or the first and last of a 3-D reference (`Jan:Mar!`,
 * `'Jan 24:Mar 24'!`). Sheet names cannot contain `:`, so a colon always separates the two ends.
 */
export function sheetsOfPrefix(prefix: string): string[] | undefined {
  const name = sheetOfPrefix(prefix);
  if (name === undefined) return undefined;
  const colon = name.indexOf(':');
  return colon === -1 ? [name] : [name.slice(0, colon), name.slice(colon + 1)];
}

/** Writes the prefix of one sheet or a 3-D range; `quoted` keeps the author's quotes. */
function prefixOf(sheets: readonly string[], quoted: boolean): string {
  const needsQuotes = quoted || sheets.some((name) => sheetPrefix(name).startsWith("'"));
  if (!needsQuotes) return `${sheets.join(':')}!`;
  return `'${sheets.map((name) => name.replace(/'/g, "''")).join(':')}'!`;
}

/**
 * A sheet a patch deleted, with its neighbours in tab order at that moment: a 3-D reference whose
 * end is deleted narrows to the neighbour inside it, as in Excel.
 */
export interface SheetDeletion {
  name: string;
  previous?: string | undefined;
  next?: string | undefined;
}

/** Sheets renamed and deleted by a patch, as the reference rewriting needs them. */
export interface SheetChanges {
  renames: ReadonlyArray<{ from: string; to: string }>;
  deletions: readonly SheetDeletion[];
}

/** Applies every rename, then every deletion, to a formula; undefined when none of them touched it. */
export function applySheetChanges(formula: string, changes: SheetChanges): string | undefined {
  let out = formula;
  let changed = false;
  const apply = (next: string | undefined) => {
    if (next === undefined) return;
    out = next;
    changed = true;
  };
  for (const r of changes.renames) apply(rewriteSheetReferences(out, r.from, r.to));
  for (const d of changes.deletions) apply(rewriteSheetReferences(out, d.name, d));
  return changed ? out : undefined;
}

/**
 * Rewrites references to sheet `from`: to the new name `change` (rename), or, when `change` is a
 * deletion, to `#REF!` — except the end of a 3-D reference, which moves to its inner neighbour.
 * Returns undefined when the formula does not mention the sheet.
 */
export function rewriteSheetReferences(
  formula: string,
  from: string,
  change: string | SheetDeletion,
): string | undefined {
  const tokens = tokenizeFormula(formula);
  let changed = false;
  const wanted = from.toLowerCase();
  const out = tokens.map((token) => {
    if (token.type !== 'sheet') return token.text;
    const sheets = sheetsOfPrefix(token.text);
    const end = sheets?.findIndex((sheet) => sheet.toLowerCase() === wanted) ?? -1;
    if (!sheets || end === -1) return token.text;
    changed = true;
    if (typeof change === 'string') sheets[end] = change;
    else {
      const inner = sheets.length === 2 ? (end === 0 ? change.next : change.previous) : undefined;
      if (inner === undefined) return '#REF!';
      sheets[end] = inner;
      if (sheets[0]!.toLowerCase() === sheets[1]!.toLowerCase()) sheets.pop();
    }
    // Keep the author's quoting: 'Data'!A1 stays quoted, so renaming back gives the same text.
    return prefixOf(sheets, token.text.startsWith("'"));
  });
  return changed ? out.join('') : undefined;
}

/** Excel's limit on a formula's text (after the `=`): a longer one does not open in Excel. */
export const MAX_FORMULA_LENGTH = 8192;

/** Why a formula longer than Excel's limit is refused (the op schemas and prepareFormula say it alike). */
export function formulaTooLong(length: number): string {
  return `The formula is ${length.toLocaleString('en-US')} characters long after the "="; Excel accepts at most ${MAX_FORMULA_LENGTH.toLocaleString('en-US')}. Split it into helper cells or defined names.`;
}

/** Characters XML 1.0 cannot carry (a formula is not ST_Xstring: no `_xHHHH_` escape exists). */
// eslint-disable-next-line no-control-regex
const NOT_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/**
 * A formula (without `=`) as Excel stores it: functions newer than the original file format get
 * their prefix (`XLOOKUP(` → `_xlfn.XLOOKUP(`), the names LET and LAMBDA bind get `_xlpm.`, as
 * Excel itself writes them; otherwise Excel shows #NAME?. Prefixed input stays as it is. A
 * character XML cannot hold is refused: written raw it makes the sheet unreadable, and so is a formula
 * longer than Excel's limit.
 */
export function prepareFormula(formula: string): string {
  if (formula.length > MAX_FORMULA_LENGTH) throw new PatchOpError(formulaTooLong(formula.length));
  const bad = NOT_IN_XML.exec(formula)?.[0];
  if (bad !== undefined) {
    const code = bad.charCodeAt(0);
    const hex = code.toString(16).toUpperCase().padStart(4, '0');
    throw new PatchOpError(
      `The formula contains the control character U+${hex}, which Excel formulas cannot hold (the file would be unreadable). Build it with CHAR(${code}) instead, e.g. ="a"&CHAR(${code})&"b".`,
    );
  }
  const tokens = tokenizeFormula(formula);
  storeDynamicArrayOperators(tokens);
  tokens.forEach((token, i) => {
    if (token.type !== 'function') return;
    const name = token.text.replace(/^(?:_xlfn\.|_xlws\.)+/i, '').toUpperCase();
    const prefix = FUTURE_FUNCTION_PREFIX.get(name);
    if (prefix) token.text = prefix + name;
    if (name === 'LET' || name === 'LAMBDA') markParameters(tokens, i, name);
  });
  return tokens.map((t) => t.text).join('');
}

/**
 * Excel's dynamic-array operators exist only in its editor; the file spells them as functions:
 * `A2#` is `_xlfn.ANCHORARRAY(A2)` and `@A1:A3` is `_xlfn.SINGLE(A1:A3)`. Written raw, Excel cannot
 * read the formula.
 */
function storeDynamicArrayOperators(tokens: FormulaToken[]): void {
  const wrap = (from: number, to: number, fn: string) => {
    const inner = tokens
      .slice(from, to + 1)
      .map((t) => t.text)
      .join('');
    tokens[from]!.text = `${fn}(${inner})`;
    for (let i = from + 1; i <= to; i++) tokens[i]!.text = '';
  };
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.type !== 'spill' || tokens[i - 1]?.type !== 'cell') continue;
    const start = tokens[i - 2]?.type === 'sheet' ? i - 2 : i - 1;
    tokens[i]!.text = '';
    wrap(start, i - 1, '_xlfn.ANCHORARRAY');
  }
  for (let i = tokens.length - 1; i >= 0; i--) {
    if (tokens[i]!.text !== '@' || tokens[i]!.type !== 'operator') continue;
    const end = operandEnd(tokens, i + 1);
    if (end === undefined) continue;
    tokens[i]!.text = '';
    wrap(i + 1, end, '_xlfn.SINGLE');
  }
}

/** The last token of the operand that starts at `start` (a reference, range, name or call). */
function operandEnd(tokens: FormulaToken[], start: number): number | undefined {
  let i = start;
  if (tokens[i]?.type === 'sheet') i++;
  const first = tokens[i];
  if (!first) return undefined;
  if (first.type === 'function') {
    let depth = 0;
    for (let j = i + 1; j < tokens.length; j++) {
      if (tokens[j]!.text === '(') depth++;
      else if (tokens[j]!.text === ')' && --depth === 0) return j;
    }
    return undefined;
  }
  if (first.type === 'cell' && tokens[i + 1]?.text === ':' && tokens[i + 2]?.type === 'cell') return i + 2;
  return ['cell', 'columns', 'rows', 'name'].includes(first.type) ? i : undefined;
}

/** Prefixes the names a LET/LAMBDA call at `at` binds with `_xlpm.`, there and in its body. */
function markParameters(tokens: FormulaToken[], at: number, fn: 'LET' | 'LAMBDA'): void {
  // Split the call's arguments at its own commas.
  const args: number[][] = [[]];
  let depth = 0;
  let end = at + 1;
  for (; end < tokens.length; end++) {
    const t = tokens[end]!;
    if (t.text === '(') depth++;
    else if (t.text === ')' && --depth === 0) break;
    else if (depth === 1 && t.text === ',') args.push([]);
    else if (depth >= 1 && t.type !== 'space') args.at(-1)!.push(end);
  }
  // LET(name1, value1, …, result) binds every other argument; LAMBDA(p1, …, body) all but the last.
  const bound = args
    .slice(0, -1)
    .filter(
      (arg, n) => arg.length === 1 && tokens[arg[0]!]!.type === 'name' && (fn === 'LAMBDA' || n % 2 === 0),
    )
    .map((arg) => tokens[arg[0]!]!.text.replace(/^_xlpm\./i, '').toUpperCase());
  for (let i = at + 1; i < end; i++) {
    const t = tokens[i]!;
    if (t.type !== 'name' || tokens[i - 1]?.type === 'sheet') continue; // Sheet1!x is a name
    const bare = t.text.replace(/^_xlpm\./i, '');
    if (bound.includes(bare.toUpperCase())) t.text = `_xlpm.${bare}`;
  }
}
