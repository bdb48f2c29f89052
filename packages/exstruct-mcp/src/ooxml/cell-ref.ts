import { ToolError } from '@mcp-workbench/core/engine';
import { columnLetters, MAX_COLUMN_INDEX, MAX_ROW } from './columns.js';

export { MAX_COLUMN_INDEX, MAX_ROW };

/** 0-based column index → Excel column letters: 0 → A, 25 → Z, 26 → AA, 701 → ZZ, 702 → AAA. */
export function colIndexToAlpha(index: number): string {
  if (!Number.isInteger(index) || index < 0) {
    throw new ToolError('INVALID_ARGUMENT', `Column index must be a non-negative integer; got ${index}.`);
  }
  return columnLetters(index);
}

/** Excel column letters (any case) → 0-based index: A → 0, Z → 25, AA → 26, XFD → 16383. */
export function alphaToColIndex(letters: string): number {
  if (!/^[A-Za-z]{1,3}$/.test(letters)) {
    throw new ToolError('INVALID_ARGUMENT', `"${letters}" is not a column name (A … XFD).`);
  }
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  const index = n - 1;
  if (index > MAX_COLUMN_INDEX) {
    throw new ToolError('INVALID_ARGUMENT', `Column "${letters}" is beyond XFD, Excel's last column.`);
  }
  return index;
}

export interface CellAddress {
  /** 1-based row. */
  row: number;
  /** 0-based column. */
  col: number;
}

const A1 = /^\$?([A-Za-z]{1,3})\$?([1-9][0-9]{0,6})$/;

/** Parses an A1 address (`B3`, `$B$3`, lower case accepted); undefined when it is not one. */
export function tryParseA1(address: string): CellAddress | undefined {
  const match = A1.exec(address.trim());
  if (!match) return undefined;
  const col = alphaToColIndexOrUndefined(match[1]!);
  const row = Number(match[2]);
  if (col === undefined || row > MAX_ROW) return undefined;
  return { row, col };
}

function alphaToColIndexOrUndefined(letters: string): number | undefined {
  try {
    return alphaToColIndex(letters);
  } catch {
    return undefined;
  }
}

/** Parses an A1 address or throws INVALID_ARGUMENT with an example. */
export function parseA1(address: string, what = 'cell'): CellAddress {
  const parsed = tryParseA1(address);
  if (!parsed) {
    throw new ToolError('INVALID_ARGUMENT', `Invalid ${what} address "${address}".`, {
      hint: 'Use A1 notation such as "B3" (column letters A…XFD, row 1…1048576).',
    });
  }
  return parsed;
}

export function formatA1(address: CellAddress): string {
  return `${colIndexToAlpha(address.col)}${address.row}`;
}

export interface CellRange {
  start: CellAddress;
  end: CellAddress;
}

/** Parses `A1:C3` (or a single cell `B2`) into a normalised range (start top-left, end bottom-right). */
export function parseRange(range: string): CellRange {
  const parts = range.trim().split(':');
  if (parts.length > 2 || parts.some((p) => p === '')) {
    throw new ToolError('INVALID_ARGUMENT', `Invalid range "${range}".`, {
      hint: 'Use A1 range notation such as "B2:D4".',
    });
  }
  const a = parseA1(parts[0]!, 'range');
  const b = parts.length === 2 ? parseA1(parts[1]!, 'range') : a;
  return {
    start: { row: Math.min(a.row, b.row), col: Math.min(a.col, b.col) },
    end: { row: Math.max(a.row, b.row), col: Math.max(a.col, b.col) },
  };
}

export function formatRange(range: CellRange): string {
  const start = formatA1(range.start);
  const end = formatA1(range.end);
  return start === end ? start : `${start}:${end}`;
}
