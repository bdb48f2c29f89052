// Column letters ↔ indexes without any dependency, for hot paths and worker threads.

/** Excel's last column, XFD, is index 16383 (0-based). */
export const MAX_COLUMN_INDEX = 16383;
/** Excel's last row is 1048576 (1-based). */
export const MAX_ROW = 1048576;

/** 0-based column index → letters (0 → A, 26 → AA); the caller guarantees a valid index. */
export function columnLetters(index: number): string {
  let n = index + 1;
  let letters = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

/** Letters (any case) → 0-based index, or -1 when they are not a column A…XFD. */
export function columnIndexOf(letters: string): number {
  if (letters.length === 0 || letters.length > 3) return -1;
  let n = 0;
  for (let i = 0; i < letters.length; i++) {
    const code = letters.charCodeAt(i) & ~32; // upper-case ASCII letters
    if (code < 65 || code > 90) return -1;
    n = n * 26 + (code - 64);
  }
  return n - 1 > MAX_COLUMN_INDEX ? -1 : n - 1;
}

/**
 * A worksheet row or cell outside Excel's grid (row 1…1048576, column A…XFD). Such a file was not
 * written by Excel; stored in 32-bit slots its row would wrap onto another (4294967297 onto 1), so it is
 * refused instead (CORRUPT_WORKBOOK, named after its part by the reader).
 */
export class BeyondGridError extends Error {
  override name = 'BeyondGridError';
}

/** The row, or BeyondGridError when it is not a row of Excel's grid (`r` absent is the caller's). */
export function checkRow(row: number): number {
  if (Number.isInteger(row) && row >= 1 && row <= MAX_ROW) return row;
  throw new BeyondGridError(
    Number.isNaN(row)
      ? 'a <row> has an r attribute that is not a row number'
      : `row ${row} lies beyond Excel's grid (rows 1…${MAX_ROW})`,
  );
}

/** A row number of Excel's grid (what checkRow accepts). */
export function isGridRow(row: number): boolean {
  return Number.isInteger(row) && row >= 1 && row <= MAX_ROW;
}

/** The 0-based column, or BeyondGridError when it lies beyond XFD. */
export function checkColumn(col: number): number {
  if (col <= MAX_COLUMN_INDEX) return col;
  throw new BeyondGridError(`a cell in column ${col + 1} lies beyond Excel's grid (columns A…XFD)`);
}
