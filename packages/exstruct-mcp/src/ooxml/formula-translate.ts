import { columnIndexOf, columnLetters, MAX_COLUMN_INDEX, MAX_ROW } from './columns.js';

/**
 * Moves the relative references of a formula by (dRow, dCol), as Excel does when it fills a shared
 * formula down or across: `B9>=85` written for row 9 reads `B10>=85` in row 10. Absolute parts (`$B$9`)
 * stay; string literals, sheet-qualified names and function names are left alone.
 */
export function translateFormula(formula: string, dRow: number, dCol: number): string {
  if (dRow === 0 && dCol === 0) return formula;
  let out = '';
  let i = 0;
  while (i < formula.length) {
    const ch = formula[i]!;
    if (ch === '"') {
      // String literal: copy through the closing quote ("" is an escaped quote).
      let j = i + 1;
      while (j < formula.length) {
        if (formula[j] === '"') {
          if (formula[j + 1] === '"') j += 2;
          else break;
        } else j++;
      }
      out += formula.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === "'") {
      // Quoted sheet name: copy it, the reference after `!` is still translated.
      const end = formula.indexOf("'", i + 1);
      const stop = end < 0 ? formula.length : end + 1;
      out += formula.slice(i, stop);
      i = stop;
      continue;
    }
    if (ch === '[') {
      // Structured reference or external workbook index: copy to the matching bracket.
      let depth = 0;
      let j = i;
      for (; j < formula.length; j++) {
        if (formula[j] === '[') depth++;
        else if (formula[j] === ']' && --depth === 0) break;
      }
      out += formula.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    REF_AT.lastIndex = i;
    const match = REF_AT.exec(formula);
    if (match && isBoundary(formula, i - 1) && !continuesName(formula, i + match[0].length)) {
      out += shiftReference(match, dRow, dCol);
      i += match[0].length;
      continue;
    }
    // Copy a whole identifier at once so `LOG10` or `Sheet1` is never read from its middle.
    IDENT_AT.lastIndex = i;
    const ident = IDENT_AT.exec(formula);
    if (ident) {
      out += ident[0];
      i += ident[0].length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

// A1 cell (`$B$9`), column range (`A:C`) or row range (`1:3`).
const REF_AT =
  /(?:(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})|(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})(?![0-9(])|(\$?)([0-9]{1,7}):(\$?)([0-9]{1,7}))/y;
const IDENT_AT = /[A-Za-z_\\][A-Za-z0-9_.\\]*/y;

function isBoundary(formula: string, index: number): boolean {
  if (index < 0) return true;
  return !/[A-Za-z0-9_.$\\]/.test(formula[index]!);
}

/** True when the text goes on as a name, a function call, or a sheet prefix (`Jan:Mar!` is 3-D, not A:C). */
function continuesName(formula: string, index: number): boolean {
  const next = formula[index];
  return next !== undefined && /[A-Za-z0-9_.(\\!]/.test(next);
}

function shiftReference(match: RegExpExecArray, dRow: number, dCol: number): string {
  if (match[2] !== undefined) {
    const col = shiftCol(match[1]!, match[2], dCol);
    const row = shiftRow(match[3]!, match[4]!, dRow);
    return col === undefined || row === undefined ? '#REF!' : `${col}${row}`;
  }
  if (match[6] !== undefined) {
    const from = shiftCol(match[5]!, match[6], dCol);
    const to = shiftCol(match[7]!, match[8]!, dCol);
    return from === undefined || to === undefined ? '#REF!' : `${from}:${to}`;
  }
  const from = shiftRow(match[9]!, match[10]!, dRow);
  const to = shiftRow(match[11]!, match[12]!, dRow);
  return from === undefined || to === undefined ? '#REF!' : `${from}:${to}`;
}

function shiftCol(dollar: string, letters: string, dCol: number): string | undefined {
  if (dollar) return `$${letters}`;
  const column = columnIndexOf(letters);
  if (column < 0) return letters;
  const index = column + dCol;
  if (index < 0 || index > MAX_COLUMN_INDEX) return undefined;
  return columnLetters(index);
}

function shiftRow(dollar: string, digits: string, dRow: number): string | undefined {
  if (dollar) return `$${digits}`;
  const row = Number(digits) + dRow;
  if (row < 1 || row > MAX_ROW) return undefined;
  return String(row);
}
