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
