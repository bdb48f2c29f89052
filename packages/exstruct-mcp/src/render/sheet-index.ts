import { ToolError } from '@mcp-workbench/core/engine';
import type { CellRange } from '../ooxml/cell-ref.js';

/** Most (merged range, row holding cells) pairs the index lists: far more than any real sheet has. */
const MAX_LISTED_MERGES = 20_000_000;

/** What `SheetIndex` needs of a sheet: its cells by `row * 16384 + col` and its merged ranges. */
interface Indexed {
  cells: Map<number, unknown>;
  merges: CellRange[];
}

/**
 * The rows and columns that hold cells, and which merged range covers a cell, so drawing costs grow
 * with the cells a sheet has, never with the size of the area asked for (A1:XFD1048576 has 17 billion
 * positions). Merged ranges stay rectangles: they are listed only on the rows that hold cells.
 */
export class SheetIndex {
  /** Rows holding cells, ascending. */
  private readonly rows: number[];
  /** Columns holding cells of each row, ascending. */
  private readonly cols = new Map<number, number[]>();
  /** Merged ranges crossing each row that holds cells, by first column. */
  private readonly mergesOnRow = new Map<number, CellRange[]>();

  constructor(sheet: Indexed) {
    for (const k of sheet.cells.keys()) {
      const row = Math.floor(k / 16384);
      let list = this.cols.get(row);
      if (!list) this.cols.set(row, (list = []));
      list.push(k % 16384);
    }
    for (const list of this.cols.values()) list.sort((a, b) => a - b);
    this.rows = [...this.cols.keys()].sort((a, b) => a - b);
    // Merged ranges do not overlap, yet thousands of whole columns merged over a million rows of cells
    // would list billions: such a sheet is refused rather than drawn for minutes.
    let listed = 0;
    for (const m of sheet.merges) listed += this.countRowsIn(m.start.row, m.end.row);
    if (listed > MAX_LISTED_MERGES)
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `The sheet's ${sheet.merges.length} merged ranges cross its rows of cells ${listed} times (at most ${MAX_LISTED_MERGES} are drawn).`,
        { hint: 'Unmerge the cells, or draw another sheet.' },
      );
    for (const m of sheet.merges)
      for (const row of this.rowsIn(m.start.row, m.end.row)) {
        let list = this.mergesOnRow.get(row);
        if (!list) this.mergesOnRow.set(row, (list = []));
        list.push(m);
      }
    for (const list of this.mergesOnRow.values()) list.sort((a, b) => a.start.col - b.start.col);
  }

  /** Rows from `first` to `last` that hold cells, ascending. */
  rowsIn(first: number, last: number): number[] {
    return slice(this.rows, first, last);
  }

  private countRowsIn(first: number, last: number): number {
    if (first > last) return 0;
    const at = (v: number) => lowerBound(this.rows, v, (x) => x);
    return at(last + 1) - at(first);
  }

  /** Columns from `first` to `last` of `row` that hold cells, ascending. */
  colsIn(row: number, first: number, last: number): number[] {
    const list = this.cols.get(row);
    return list ? slice(list, first, last) : [];
  }

  /** The merged range covering a cell of a row that holds cells (other rows are not indexed). */
  mergeAt(row: number, col: number): CellRange | undefined {
    const list = this.mergesOnRow.get(row);
    if (!list) return undefined;
    // Merged ranges do not overlap: the candidate is the last one starting at or left of `col`.
    const i = lowerBound(list, col + 1, (m) => m.start.col) - 1;
    const m = list[i];
    return m && m.end.col >= col ? m : undefined;
  }
}

const cache = new WeakMap<object, SheetIndex>();

/** The index of a sheet, built once (cells and merges do not change while it is drawn). */
export function sheetIndex(sheet: Indexed): SheetIndex {
  let index = cache.get(sheet);
  if (!index) cache.set(sheet, (index = new SheetIndex(sheet)));
  return index;
}

function slice(sorted: number[], first: number, last: number): number[] {
  if (first > last) return [];
  return sorted.slice(
    lowerBound(sorted, first, (v) => v),
    lowerBound(sorted, last + 1, (v) => v),
  );
}

/** The first index whose key is at least `value`. */
function lowerBound<T>(list: T[], value: number, keyOf: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keyOf(list[mid]!) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
