import { formatRange, MAX_COLUMN_INDEX, MAX_ROW } from '../ooxml/cell-ref.js';

/** A block of cells: rows 1-based, columns 0-based, both inclusive. */
export interface Block {
  r1: number;
  c1: number;
  r2: number;
  c2: number;
}

/** A sheet row as table detection sees it: its number and its occupied columns in ascending order. */
export interface OccupiedRow {
  r: number;
  cols: number[];
}

/** Same knobs as the original extractor's detector. */
const SCORE_THRESHOLD = 0.35;
const MIN_NONEMPTY_CELLS = 3;
const MIN_BORDER_CLUSTER = 4;

/**
 * Connected components (4-neighbour) of occupied cells, computed on runs of consecutive columns per
 * row with union-find: O(cells) time and O(runs) memory, so a 200,000-row block costs no grid.
 */
export function connectedBlocks(rows: Iterable<OccupiedRow>): Array<Block & { size: number }> {
  const parent: number[] = [];
  const boxes: Array<Block & { size: number }> = [];
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    parent[rb] = ra;
    const A = boxes[ra]!;
    const B = boxes[rb]!;
    A.r1 = Math.min(A.r1, B.r1);
    A.c1 = Math.min(A.c1, B.c1);
    A.r2 = Math.max(A.r2, B.r2);
    A.c2 = Math.max(A.c2, B.c2);
    A.size += B.size;
  };
  let previous: Array<{ start: number; end: number; node: number }> = [];
  let previousRow = -2;
  for (const row of rows) {
    const runs: Array<{ start: number; end: number; node: number }> = [];
    const cols = row.cols;
    for (let i = 0; i < cols.length;) {
      let j = i;
      while (j + 1 < cols.length && cols[j + 1] === cols[j]! + 1) j++;
      const node = boxes.length;
      parent.push(node);
      boxes.push({ r1: row.r, c1: cols[i]!, r2: row.r, c2: cols[j]!, size: j - i + 1 });
      runs.push({ start: cols[i]!, end: cols[j]!, node });
      i = j + 1;
    }
    if (row.r === previousRow + 1) {
      // Two-pointer sweep: runs that share a column in adjacent rows touch.
      let p = 0;
      for (const run of runs) {
        while (p < previous.length && previous[p]!.end < run.start) p++;
        for (let q = p; q < previous.length && previous[q]!.start <= run.end; q++)
          union(previous[q]!.node, run.node);
      }
    }
    previous = runs;
    previousRow = row.r;
  }
  const roots = new Set<number>();
  for (let i = 0; i < parent.length; i++) roots.add(find(i));
  return [...roots].map((i) => boxes[i]!);
}

function overlapsWithoutContaining(a: Block, b: Block): boolean {
  const contains =
    (a.r1 <= b.r1 && a.c1 <= b.c1 && a.r2 >= b.r2 && a.c2 >= b.c2) ||
    (b.r1 <= a.r1 && b.c1 <= a.c1 && b.r2 >= a.r2 && b.c2 >= a.c2);
  if (contains) return false;
  return !(a.c1 > b.c2 || a.c2 < b.c1 || a.r1 > b.r2 || a.r2 < b.r1);
}

function mergeOverlapping(blocks: Block[]): Block[] {
  const merged: Block[] = [];
  const sorted = [...blocks].sort((a, b) => a.r1 - b.r1 || a.c1 - b.c1 || a.r2 - b.r2 || a.c2 - b.c2);
  for (const block of sorted) {
    const hit = merged.findIndex((m) => overlapsWithoutContaining(block, m));
    if (hit < 0) merged.push({ ...block });
    else {
      const m = merged[hit]!;
      merged[hit] = {
        r1: Math.min(m.r1, block.r1),
        c1: Math.min(m.c1, block.c1),
        r2: Math.max(m.r2, block.r2),
        c2: Math.max(m.c2, block.c2),
      };
    }
  }
  return merged;
}

/** The sheet's values as table detection reads them (implemented by the row store). */
export interface CellSource {
  /** Visits present cells inside the block in row-major order, saying whether each looks like a number. */
  forEachIn(
    r1: number,
    c1: number,
    r2: number,
    c2: number,
    visit: (r: number, c: number, key: number, numberLike: boolean) => void,
  ): void;
}

/**
 * The original's table heuristic on one block: at least two rows and two columns with two or more
 * values, and a score (density + 0.2 for a header-like first/second row + 0.1 coverage + 0.1 structure)
 * of at least 0.35.
 */
function looksLikeTable(block: Block, source: CellSource): boolean {
  const width = block.c2 - block.c1 + 1;
  const height = block.r2 - block.r1 + 1;
  if (width < 2 || height < 2) return false;
  const colCounts = new Uint32Array(width);
  let nonEmpty = 0;
  let rowsWithTwo = 0;
  let header = false;
  let top = Infinity;
  let bottom = -Infinity;
  let left = Infinity;
  let right = -Infinity;
  let currentRow = -1;
  let count = 0;
  let textLike = 0;
  let numberLike = 0;
  const endRow = () => {
    if (count === 0) return;
    if (count >= 2) rowsWithTwo++;
    if (currentRow < block.r1 + 2 && count >= 2 && textLike >= numberLike && textLike >= 1) header = true;
  };
  source.forEachIn(block.r1, block.c1, block.r2, block.c2, (r, c, _key, isNumber) => {
    if (r !== currentRow) {
      endRow();
      currentRow = r;
      count = 0;
      textLike = 0;
      numberLike = 0;
    }
    count++;
    nonEmpty++;
    colCounts[c - block.c1]!++;
    if (isNumber) numberLike++;
    else textLike++;
    top = Math.min(top, r);
    bottom = Math.max(bottom, r);
    left = Math.min(left, c);
    right = Math.max(right, c);
  });
  endRow();
  if (nonEmpty < MIN_NONEMPTY_CELLS) return false;
  let colsWithTwo = 0;
  for (const n of colCounts) if (n >= 2) colsWithTwo++;
  if (rowsWithTwo < 2 || colsWithTwo < 2) return false;
  const area = width * height;
  const density = nonEmpty / area;
  const coverage = ((bottom - top + 1) * (right - left + 1)) / area;
  const score = density + (header ? 0.2 : 0) + (coverage > 0.5 ? 0.1 : 0) + 0.1;
  return score >= SCORE_THRESHOLD;
}

const EVERYTHING: Block = { r1: 1, c1: 0, r2: MAX_ROW, c2: MAX_COLUMN_INDEX };

function occupiedWithin(source: CellSource, block: Block): OccupiedRow[] {
  const out: OccupiedRow[] = [];
  let current: OccupiedRow | undefined;
  source.forEachIn(block.r1, block.c1, block.r2, block.c2, (r, c) => {
    if (current === undefined || current.r !== r) {
      current = { r, cols: [] };
      out.push(current);
    }
    current.cols.push(c);
  });
  return out;
}

/** Groups (row, col) pairs — in sheet order — into rows of columns. */
export function pairsToRows(pairs: Int32Array): OccupiedRow[] {
  const out: OccupiedRow[] = [];
  let current: OccupiedRow | undefined;
  for (let i = 0; i < pairs.length; i += 2) {
    const r = pairs[i]!;
    if (current === undefined || current.r !== r) {
      current = { r, cols: [] };
      out.push(current);
    }
    current.cols.push(pairs[i + 1]!);
  }
  for (const row of out) row.cols.sort((a, b) => a - b);
  return out.sort((a, b) => a.r - b.r);
}

export function blockToA1(block: Block): string {
  return formatRange({ start: { row: block.r1, col: block.c1 }, end: { row: block.r2, col: block.c2 } });
}

/**
 * Table candidates of a sheet, as A1 ranges: Excel tables first, then, like the original, value
 * clusters inside bordered regions; on a sheet with neither, dense blocks of values.
 */
export function detectTableCandidates(
  source: CellSource,
  borderRows: OccupiedRow[],
  excelTables: string[],
): string[] {
  const found = new Set(excelTables);
  const ordered = [...excelTables];
  const add = (block: Block) => {
    const a1 = blockToA1(block);
    if (!found.has(a1)) {
      found.add(a1);
      ordered.push(a1);
    }
  };
  const bordered = mergeOverlapping(connectedBlocks(borderRows).filter((b) => b.size >= MIN_BORDER_CLUSTER));
  for (const region of bordered) {
    for (const block of connectedBlocks(occupiedWithin(source, region))) {
      if (looksLikeTable(block, source)) add(block);
    }
  }
  if (bordered.length === 0 && excelTables.length === 0) {
    const blocks = connectedBlocks(occupiedWithin(source, EVERYTHING)).sort(
      (a, b) => a.r1 - b.r1 || a.c1 - b.c1,
    );
    for (const block of blocks) if (looksLikeTable(block, source)) add(block);
  }
  return ordered;
}
