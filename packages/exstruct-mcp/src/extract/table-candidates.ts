import { formatRange, MAX_COLUMN_INDEX, MAX_ROW } from '../ooxml/cell-ref.js';

/** A block of cells: rows 1-based, columns 0-based, both inclusive. */
export interface Block {
  r1: number;
  c1: number;
  r2: number;
  c2: number;
}

/** Occupied cells in row-major order (row ascending, then column ascending), pushed to `visit`. */
export type CellStream = (visit: (r: number, c: number) => void) => void;

/**
 * A run of occupied cells: columns `c1` to `c2` (inclusive) of `height` consecutive rows from row `r`,
 * each of which holds no other occupied cell when `height` > 1.
 */
export type RunVisit = (r: number, c1: number, c2: number, height: number) => void;

/** Runs of occupied cells in row-major order, pushed to `visit`: not one call per cell, nor per row. */
export type RunStream = (visit: RunVisit) => void;

/** A cell stream as runs of consecutive columns. */
export function runsOfCells(cells: CellStream): RunStream {
  return (visit) => {
    let row = -1;
    let start = -1;
    let end = -2;
    cells((r, c) => {
      if (r === row && c === end + 1) {
        end = c;
        return;
      }
      if (start >= 0) visit(row, start, end, 1);
      row = r;
      start = c;
      end = c;
    });
    if (start >= 0) visit(row, start, end, 1);
  };
}

/** Same knobs as the original extractor's detector. */
const SCORE_THRESHOLD = 0.35;
const MIN_NONEMPTY_CELLS = 3;
const MIN_BORDER_CLUSTER = 4;

/** A growing list of int32 values. */
class IntList {
  // 64 bytes: small enough for V8 to keep on its heap (a workbook of many small sheets makes thousands).
  data = new Int32Array(16);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

/**
 * Connected components (4-neighbour) of occupied cells, streamed row by row as runs of consecutive
 * columns, each matched against the previous row's runs with union-find. Only the previous row's runs and
 * one node per component start are kept (in typed arrays: a million cells make no garbage), so a
 * 200,000-row block costs a handful of numbers, not a grid.
 */
export function connectedBlocks(runs: RunStream): Array<Block & { size: number }> {
  // Per node: its parent and its component's box and size (meaningful at roots).
  const parent = new IntList();
  const r1 = new IntList();
  const c1 = new IntList();
  const r2 = new IntList();
  const c2 = new IntList();
  const sizes: number[] = [];
  const find = (i: number): number => {
    const p = parent.data;
    while (p[i] !== i) {
      p[i] = p[p[i]!]!;
      i = p[i]!;
    }
    return i;
  };
  const union = (a: number, b: number): number => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return ra;
    parent.data[rb] = ra;
    r1.data[ra] = Math.min(r1.data[ra]!, r1.data[rb]!);
    c1.data[ra] = Math.min(c1.data[ra]!, c1.data[rb]!);
    r2.data[ra] = Math.max(r2.data[ra]!, r2.data[rb]!);
    c2.data[ra] = Math.max(c2.data[ra]!, c2.data[rb]!);
    sizes[ra]! += sizes[rb]!;
    return ra;
  };
  // The previous and the current row's runs: start, end and node, three values per run.
  let previous = new IntList();
  let current = new IntList();
  let previousRow = -2;
  let row = -1;
  let runStart = -1;
  let runEnd = -2;
  let sweep = 0;

  const closeRun = () => {
    if (runStart < 0) return;
    let node = -1;
    if (row === previousRow + 1) {
      // Runs that share a column with a run of the row above touch it.
      const runs = previous.data;
      const n = previous.length;
      while (sweep < n && runs[sweep + 1]! < runStart) sweep += 3;
      for (let q = sweep; q < n && runs[q]! <= runEnd; q += 3) {
        node = node < 0 ? find(runs[q + 2]!) : union(node, runs[q + 2]!);
      }
    }
    if (node < 0) {
      node = parent.length;
      parent.push(node);
      r1.push(row);
      c1.push(runStart);
      r2.push(row);
      c2.push(runEnd);
      sizes.push(0);
    }
    r1.data[node] = Math.min(r1.data[node]!, row);
    r2.data[node] = Math.max(r2.data[node]!, row);
    c1.data[node] = Math.min(c1.data[node]!, runStart);
    c2.data[node] = Math.max(c2.data[node]!, runEnd);
    sizes[node]! += runEnd - runStart + 1;
    current.push(runStart);
    current.push(runEnd);
    current.push(node);
    runStart = -1;
  };
  const closeRow = () => {
    closeRun();
    const swap = previous;
    previous = current;
    current = swap;
    current.length = 0;
    previousRow = row;
    sweep = 0;
  };

  runs((r, start, end, height) => {
    if (r !== row) {
      if (row >= 0) closeRow();
      row = r;
    }
    if (runStart >= 0 && start === runEnd + 1) {
      runEnd = end;
      return;
    }
    closeRun();
    runStart = start;
    runEnd = end;
    if (height > 1) {
      // The rows below hold this run only: each touches the one above, so the run's component grows by
      // them, and the last of them is the row the next runs meet.
      closeRun();
      const node = current.data[current.length - 1]!;
      row = r + height - 1;
      r2.data[node] = Math.max(r2.data[node]!, row);
      sizes[node]! += (height - 1) * (end - start + 1);
    }
  });
  if (row >= 0) closeRow();
  const roots = new Set<number>();
  for (let i = 0; i < parent.length; i++) roots.add(find(i));
  return [...roots].map((i) => ({
    r1: r1.data[i]!,
    c1: c1.data[i]!,
    r2: r2.data[i]!,
    c2: c2.data[i]!,
    size: sizes[i]!,
  }));
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
  /**
   * Visits present cells inside the block in row-major order; with `withNumberLike`, says whether each
   * looks like a number.
   */
  forEachIn(
    r1: number,
    c1: number,
    r2: number,
    c2: number,
    visit: (r: number, c: number, key: number, numberLike: boolean) => void,
    withNumberLike?: boolean,
  ): void;
  /** The runs (see RunVisit) of the present cells inside the block, in row-major order. */
  forEachRunIn(r1: number, c1: number, r2: number, c2: number, visit: RunVisit): void;
}

/**
 * The per-row part of the table heuristic, given a block's cells in row-major order: how many rows hold
 * two or more values, and whether its first or second row looks like a header (two or more values, text
 * at least as often as numbers).
 */
class RowTally {
  withTwo = 0;
  header = false;
  private row = -1;
  private count = 0;
  private textLike = 0;
  private numberLike = 0;

  constructor(private readonly firstRow: number) {}

  add(r: number, isNumber: boolean): void {
    if (r !== this.row) {
      this.endRow();
      this.row = r;
    }
    this.count++;
    if (isNumber) this.numberLike++;
    else this.textLike++;
  }

  /** Counts the row being read, if any; the next cell starts a new row. */
  endRow(): void {
    if (this.count === 0) return;
    if (this.count >= 2) {
      this.withTwo++;
      if (this.row < this.firstRow + 2 && this.textLike >= this.numberLike && this.textLike >= 1)
        this.header = true;
    }
    this.row = -1;
    this.count = 0;
    this.textLike = 0;
    this.numberLike = 0;
  }
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
  const rows = new RowTally(block.r1);
  let nonEmpty = 0;
  let top = Infinity;
  let bottom = -Infinity;
  let left = Infinity;
  let right = -Infinity;
  source.forEachIn(
    block.r1,
    block.c1,
    block.r2,
    block.c2,
    (r, c, _key, isNumber) => {
      rows.add(r, isNumber);
      nonEmpty++;
      colCounts[c - block.c1]!++;
      top = Math.min(top, r);
      bottom = Math.max(bottom, r);
      left = Math.min(left, c);
      right = Math.max(right, c);
    },
    true,
  );
  rows.endRow();
  if (nonEmpty < MIN_NONEMPTY_CELLS) return false;
  let colsWithTwo = 0;
  for (const n of colCounts) if (n >= 2) colsWithTwo++;
  if (rows.withTwo < 2 || colsWithTwo < 2) return false;
  const area = width * height;
  const density = nonEmpty / area;
  const coverage = ((bottom - top + 1) * (right - left + 1)) / area;
  const score = density + (rows.header ? 0.2 : 0) + (coverage > 0.5 ? 0.1 : 0) + 0.1;
  return score >= SCORE_THRESHOLD;
}

/**
 * looksLikeTable for a block whose box holds no cell of another block (see blocksAlone): the cells in
 * its box are its own `size` cells and span it, so its density and coverage are known without a visit,
 * and the rest (two rows and two columns with two values, a header-like first or second row) is read
 * from its first rows only, in windows of rows that double until both counts are reached. A block of
 * 200,000 rows is decided by its first few rows instead of a visit of every cell.
 */
function looksLikeTableAlone(block: Block & { size: number }, source: CellSource): boolean {
  const width = block.c2 - block.c1 + 1;
  const height = block.r2 - block.r1 + 1;
  if (width < 2 || height < 2 || block.size < MIN_NONEMPTY_CELLS) return false;
  const colCounts = new Uint32Array(width);
  const rows = new RowTally(block.r1);
  let colsWithTwo = 0;
  const visit = (r: number, c: number, _key: number, isNumber: boolean) => {
    rows.add(r, isNumber);
    if (++colCounts[c - block.c1]! === 2) colsWithTwo++;
  };
  // The first two rows with number-likeness (the header test reads only them), then the rest.
  let from = block.r1;
  let window = 2;
  while (from <= block.r2 && (from === block.r1 || rows.withTwo < 2 || colsWithTwo < 2)) {
    const to = Math.min(block.r2, from + window - 1);
    source.forEachIn(from, block.c1, to, block.c2, visit, from === block.r1);
    rows.endRow();
    from = to + 1;
    window *= 2;
  }
  if (rows.withTwo < 2 || colsWithTwo < 2) return false;
  const area = width * height;
  const density = block.size / area;
  // As looksLikeTable's score, term by term (coverage is 1: the block's cells span its box).
  const score = density + (rows.header ? 0.2 : 0) + 0.1 + 0.1;
  return score >= SCORE_THRESHOLD;
}

/**
 * For each block, whether its box is clear of every other block's box (then no other block's cell lies
 * in it). Blocks sorted by first row are swept; past a bounded number of comparisons (a sheet of
 * thousands of overlapping blocks) the rest are reported as not clear, which only costs a full visit.
 */
export function blocksAlone(blocks: Block[]): boolean[] {
  const alone = blocks.map(() => true);
  const order = blocks.map((_, i) => i).sort((a, b) => blocks[a]!.r1 - blocks[b]!.r1);
  let budget = 16 * blocks.length + 100_000;
  for (let x = 0; x < order.length; x++) {
    const a = blocks[order[x]!]!;
    for (let y = x + 1; y < order.length; y++) {
      const b = blocks[order[y]!]!;
      if (b.r1 > a.r2) break;
      if (--budget < 0) return blocks.map(() => false);
      if (b.c1 <= a.c2 && b.c2 >= a.c1) {
        alone[order[x]!] = false;
        alone[order[y]!] = false;
      }
    }
  }
  return alone;
}

const EVERYTHING: Block = { r1: 1, c1: 0, r2: MAX_ROW, c2: MAX_COLUMN_INDEX };

function runsWithin(source: CellSource, block: Block): RunStream {
  return (visit) => source.forEachRunIn(block.r1, block.c1, block.r2, block.c2, visit);
}

/** (row, col) pairs in sheet order as runs (sorted first if the sheet stored rows out of order). */
export function pairsStream(pairs: Int32Array): RunStream {
  let ordered = pairs;
  for (let i = 2; i < pairs.length; i += 2) {
    if (pairs[i]! < pairs[i - 2]! || (pairs[i] === pairs[i - 2] && pairs[i + 1]! < pairs[i - 1]!)) {
      const list: Array<[number, number]> = [];
      for (let j = 0; j < pairs.length; j += 2) list.push([pairs[j]!, pairs[j + 1]!]);
      list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      ordered = Int32Array.from(list.flat());
      break;
    }
  }
  return runsOfCells((visit) => {
    for (let i = 0; i < ordered.length; i += 2) visit(ordered[i]!, ordered[i + 1]!);
  });
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
  bordered: RunStream,
  excelTables: string[],
  /** Visit every cell of every block (the reference the shortcut of looksLikeTableAlone is tested on). */
  { visitEveryCell = false }: { visitEveryCell?: boolean } = {},
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
  const regions = mergeOverlapping(connectedBlocks(bordered).filter((b) => b.size >= MIN_BORDER_CLUSTER));
  for (const region of regions) {
    for (const block of connectedBlocks(runsWithin(source, region))) {
      if (looksLikeTable(block, source)) add(block);
    }
  }
  if (regions.length === 0 && excelTables.length === 0) {
    const blocks = connectedBlocks(runsWithin(source, EVERYTHING)).sort((a, b) => a.r1 - b.r1 || a.c1 - b.c1);
    const alone = visitEveryCell ? blocks.map(() => false) : blocksAlone(blocks);
    blocks.forEach((block, i) => {
      if (alone[i] ? looksLikeTableAlone(block, source) : looksLikeTable(block, source)) add(block);
    });
  }
  return ordered;
}
