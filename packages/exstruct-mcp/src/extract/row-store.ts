import { columnLetters } from '../ooxml/columns.js';
import { serialToIso, type CellValue } from './cell-value.js';
import type { CellRow } from './model.js';
import type { CellSource, RunVisit } from './table-candidates.js';

/**
 * How a cell's value is stored. Shared strings stay an index into the shared-string table and dates stay
 * their serial number until output, so a million cells cost a few typed arrays instead of a million
 * objects (and worker threads can hand their rows over without copying).
 */
export const Kind = {
  Number: 0,
  /** `num` is an index into the workbook's shared strings. */
  Shared: 1,
  /** `num` is an index into the segment's own strings (inline strings, formula strings, errors). */
  Text: 2,
  True: 3,
  False: 4,
  /** `num` is an Excel serial date, shown as an ISO date (with time when not midnight). */
  Date: 5,
  /** `num` is an Excel serial time of day. */
  Time: 6,
} as const;
/**
 * A fractional number with its sheet text's count of decimals (1–11) folded into the kind:
 * `DECIMALS + n`. Such text is exactly what JSON.stringify writes (see jsonFractionDigits), and
 * `toFixed(n)` writes it back much faster than a shortest-round-trip formatting of the double —
 * formatting doubles was the costliest part of writing the rows' JSON.
 */
export const DECIMALS = 16;
/** One of the values of `Kind`, or `DECIMALS + n`. */
export type Kind = number;

/** A run of rows in columnar form: row `i` owns cells `rowStart[i]` … `rowStart[i + 1] - 1`. */
export interface RowSegment {
  rowNumbers: Int32Array;
  rowStart: Int32Array;
  cols: Int32Array;
  kinds: Uint8Array;
  nums: Float64Array;
  texts: string[];
}

/** The columns a SegmentBuilder fills. */
interface Columns {
  rowNumbers: Int32Array;
  rowStart: Int32Array;
  cols: Int32Array;
  kinds: Uint8Array;
  nums: Float64Array;
}

/**
 * Builders expecting at most this many cells (small sheets) fill spare columns, reused from sheet to
 * sheet, and finish with exact-size copies in one buffer: a workbook of 1,000 small sheets made 13 typed
 * arrays per sheet (made, grown, cut to size), each with memory of its own outside the heap.
 */
const SPARE_MAX_CELLS = 8192;
/** Spare columns grown beyond this many cells (a sheet much bigger than guessed) are not kept. */
const SPARE_KEEP_CELLS = 4 * SPARE_MAX_CELLS;
/** The spare columns of this thread, when no builder is filling them. */
let spare: Columns | undefined;
/**
 * Spare columns lent to the segment finished in them (SegmentBuilder.finish's `lend`), until the caller
 * gives them back (releaseRows): nothing else writes to them meanwhile.
 */
const lentColumns = new WeakMap<RowSegment, Columns>();

function newColumns(cells: number, rows: number): Columns {
  return {
    rowNumbers: new Int32Array(rows),
    rowStart: new Int32Array(rows + 1),
    cols: new Int32Array(cells),
    kinds: new Uint8Array(cells),
    nums: new Float64Array(cells),
  };
}

/** Views of the filled part of columns (no copy). */
function views(columns: Columns, rowCount: number, cellCount: number, texts: string[]): RowSegment {
  return {
    rowNumbers: columns.rowNumbers.subarray(0, rowCount),
    rowStart: columns.rowStart.subarray(0, rowCount + 1),
    cols: columns.cols.subarray(0, cellCount),
    kinds: columns.kinds.subarray(0, cellCount),
    nums: columns.nums.subarray(0, cellCount),
    texts,
  };
}

/** Exact-size copies of the filled part of small columns, all in one buffer. */
function packed(columns: Columns, rowCount: number, cellCount: number, texts: string[]): RowSegment {
  // Widest elements first, so every view is aligned. Plain loops: a few hundred cells each, and one
  // shape of array per loop (a generic copy through subarray cost more than the arrays it saved).
  const buffer = new ArrayBuffer(8 * cellCount + 4 * (cellCount + 2 * rowCount + 1) + cellCount);
  const nums = new Float64Array(buffer, 0, cellCount);
  for (let i = 0; i < cellCount; i++) nums[i] = columns.nums[i]!;
  let at = 8 * cellCount;
  const int32 = (from: Int32Array, length: number): Int32Array => {
    const to = new Int32Array(buffer, at, length);
    for (let i = 0; i < length; i++) to[i] = from[i]!;
    at += 4 * length;
    return to;
  };
  const rowNumbers = int32(columns.rowNumbers, rowCount);
  const rowStart = int32(columns.rowStart, rowCount + 1);
  const cols = int32(columns.cols, cellCount);
  const kinds = new Uint8Array(buffer, at, cellCount);
  for (let i = 0; i < cellCount; i++) kinds[i] = columns.kinds[i]!;
  return { rowNumbers, rowStart, cols, kinds, nums, texts };
}

/** Appends cells (in sheet order) and produces a compact segment. */
export class SegmentBuilder {
  private rowNumbers: Int32Array;
  private rowStart: Int32Array;
  private cols: Int32Array;
  private kinds: Uint8Array;
  private nums: Float64Array;
  private texts: string[] = [];
  private rowCount = 0;
  private cellCount = 0;
  private lastRow = -1;
  /** The columns are this thread's spare ones (or will be): finish copies them out and gives them back. */
  private readonly small: boolean;
  private finished: RowSegment | undefined;

  /** `expectedCells`: a guess of how many cells will come, so the columns rarely need to grow. */
  constructor(expectedCells = 1024) {
    // Small floors: a workbook of many small sheets made (and then cut to size) a 1,024-cell store each.
    const cells = Math.max(256, Math.min(expectedCells, 1 << 20));
    const rows = Math.max(64, cells >> 2);
    this.small = cells <= SPARE_MAX_CELLS;
    const columns = this.small && spare ? spare : newColumns(cells, rows);
    if (this.small) spare = undefined;
    this.rowNumbers = columns.rowNumbers;
    this.rowStart = columns.rowStart;
    this.cols = columns.cols;
    this.kinds = columns.kinds;
    this.nums = columns.nums;
  }

  add(row: number, col: number, kind: Kind, num: number): void {
    if (row !== this.lastRow) {
      if (this.rowCount + 1 >= this.rowNumbers.length) {
        this.rowNumbers = grow(this.rowNumbers, Int32Array);
        this.rowStart = grow(this.rowStart, Int32Array);
      }
      this.rowNumbers[this.rowCount] = row;
      this.rowStart[this.rowCount] = this.cellCount;
      this.rowCount++;
      this.lastRow = row;
    }
    if (this.cellCount >= this.cols.length) {
      this.cols = grow(this.cols, Int32Array);
      this.kinds = grow(this.kinds, Uint8Array);
      this.nums = grow(this.nums, Float64Array);
    }
    this.cols[this.cellCount] = col;
    this.kinds[this.cellCount] = kind;
    this.nums[this.cellCount] = num;
    this.cellCount++;
  }

  addText(row: number, col: number, text: string): void {
    this.texts.push(text);
    this.add(row, col, Kind.Text, this.texts.length - 1);
  }

  get size(): number {
    return this.cellCount;
  }

  /** The kind of the last cell added. */
  get lastKind(): Kind {
    return this.kinds[this.cellCount - 1]!;
  }

  /** The number of the last cell added (see Kind). */
  get lastNum(): number {
    return this.nums[this.cellCount - 1]!;
  }

  /** The text of the last cell added, when it is a Kind.Text. */
  get lastText(): string | undefined {
    return this.kinds[this.cellCount - 1] === Kind.Text ? this.texts[this.texts.length - 1] : undefined;
  }

  /**
   * The segment of the cells added. A small one is copied out of the spare columns, which the next
   * builder then fills; with `lend`, it is a view of them instead (a workbook of 1,000 small sheets
   * copied 5.3 MB), and the next builder fills other columns until the caller gives these back with
   * releaseRows, once it no longer reads the segment.
   */
  finish(options: { lend?: boolean } = {}): RowSegment {
    if (this.finished) return this.finished;
    this.rowStart[this.rowCount] = this.cellCount;
    if (this.small && this.cols.length <= SPARE_KEEP_CELLS && options.lend) {
      this.finished = views(this.columns(), this.rowCount, this.cellCount, this.texts);
      lentColumns.set(this.finished, this.columns());
      return this.finished;
    }
    if (this.small && this.cols.length <= SPARE_KEEP_CELLS) {
      this.finished = packed(this.columns(), this.rowCount, this.cellCount, this.texts);
      spare = this.columns();
      return this.finished;
    }
    // Mostly full columns are kept as they are (copying a million cells' columns costs more than the
    // slack); mostly empty ones are copied to their size.
    const fit = <T extends Int32Array | Uint8Array | Float64Array>(array: T, length: number): T =>
      (length * 4 >= array.length * 3 ? array.subarray(0, length) : array.slice(0, length)) as T;
    this.finished = {
      rowNumbers: fit(this.rowNumbers, this.rowCount),
      rowStart: fit(this.rowStart, this.rowCount + 1),
      cols: fit(this.cols, this.cellCount),
      kinds: fit(this.kinds, this.cellCount),
      nums: fit(this.nums, this.cellCount),
      texts: this.texts,
    };
    return this.finished;
  }

  private columns(): Columns {
    const { rowNumbers, rowStart, cols, kinds, nums } = this;
    return { rowNumbers, rowStart, cols, kinds, nums };
  }
}

/**
 * Gives back the columns lent to `segments` (SegmentBuilder.finish's `lend`) for the next small sheet:
 * the caller reads neither the segments nor any view of them again.
 */
export function releaseRows(segments: readonly RowSegment[] | undefined): void {
  for (const segment of segments ?? []) {
    const columns = lentColumns.get(segment);
    if (!columns) continue;
    lentColumns.delete(segment);
    spare ??= columns;
  }
}

function grow<T extends Int32Array | Uint8Array | Float64Array>(
  array: T,
  Ctor: new (length: number) => T,
): T {
  const next = new Ctor(array.length * 2);
  next.set(array);
  return next;
}

/**
 * What rendering a stored value needs from the workbook, and the texts worked out from it once per
 * workbook rather than once per sheet: a date's ISO text and JSON, a shared string's JSON and whether
 * it is blank or reads as a number, a column's key. A workbook of many small sheets repeats them all.
 */
export class WorkbookValues {
  private readonly dates = new Map<number, string>();
  private readonly datesJson = new Map<number, string>();
  private readonly sharedJsonText: Array<string | undefined> = [];
  private readonly sharedNumberLike: Array<1 | 2 | undefined> = [];
  private readonly sharedBlank: Array<boolean | undefined> = [];
  private readonly letters: string[] = [];
  /** `"3":` / `"D":` per column and key style. */
  private readonly keysJson: [Array<string | undefined>, Array<string | undefined>] = [[], []];
  // The same texts as UTF-8, for the rows written as bytes (fast-rows.ts).
  private readonly sharedJsonUtf8: Array<Uint8Array | undefined> = [];
  private readonly datesJsonUtf8 = new Map<number, Uint8Array>();
  private readonly keysJsonUtf8: [Array<Uint8Array | undefined>, Array<Uint8Array | undefined>] = [[], []];

  constructor(
    readonly sharedStrings: readonly string[],
    readonly date1904: boolean,
  ) {}

  shared(index: number): string {
    return this.sharedStrings[index] ?? '';
  }

  dateText(serial: number, time: boolean): string {
    const key = time ? -serial - 1 : serial;
    let text = this.dates.get(key);
    if (text === undefined) {
      text = String(serialToIso(serial, time ? 'time' : 'date', this.date1904));
      if (this.dates.size < 100_000) this.dates.set(key, text);
    }
    return text;
  }

  dateJson(serial: number, time: boolean): string {
    const key = time ? -serial - 1 : serial;
    let json = this.datesJson.get(key);
    if (json === undefined) {
      json = JSON.stringify(this.dateText(serial, time));
      if (this.datesJson.size < 100_000) this.datesJson.set(key, json);
    }
    return json;
  }

  sharedJson(index: number): string {
    return (this.sharedJsonText[index] ??= JSON.stringify(this.shared(index)));
  }

  /** An empty or whitespace-only shared string. */
  isSharedBlank(index: number): boolean {
    return (this.sharedBlank[index] ??= this.shared(index).trim() === '');
  }

  /** A shared string that reads as a number (1 yes, 2 no, worked out once). */
  isSharedNumberLike(index: number): boolean {
    return (this.sharedNumberLike[index] ??= looksNumeric(this.shared(index)) ? 1 : 2) === 1;
  }

  columnKey(col: number, alpha: boolean): string {
    if (!alpha) return String(col);
    return (this.letters[col] ??= columnLetters(col));
  }

  columnKeyJson(col: number, alpha: boolean): string {
    const keys = this.keysJson[alpha ? 1 : 0];
    return (keys[col] ??= `${JSON.stringify(this.columnKey(col, alpha))}:`);
  }

  sharedJsonBytes(index: number): Uint8Array {
    return (this.sharedJsonUtf8[index] ??= utf8(this.sharedJson(index)));
  }

  /**
   * From a map, not an array indexed by the day: that array (65,536 slots, 512 KB, one per workbook read)
   * was a large object each extraction left for the collector, and the warm-up reads many workbooks
   * (jobs/warm-up.ts); no slower through the bin (bench/HISTORY.md, 2026-11-29).
   */
  dateJsonBytes(serial: number, time: boolean): Uint8Array {
    const key = time ? -serial - 1 : serial;
    let bytes = this.datesJsonUtf8.get(key);
    if (bytes === undefined) {
      bytes = utf8(this.dateJson(serial, time));
      if (this.datesJsonUtf8.size < 100_000) this.datesJsonUtf8.set(key, bytes);
    }
    return bytes;
  }

  columnKeyJsonBytes(col: number, alpha: boolean): Uint8Array {
    const keys = this.keysJsonUtf8[alpha ? 1 : 0];
    return (keys[col] ??= utf8(this.columnKeyJson(col, alpha)));
  }
}

const encoder = new TextEncoder();

function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The JSON of a stored value (`text`: the cell's own text, for Kind.Text). */
export function valueJson(values: WorkbookValues, kind: Kind, num: number, text: string | undefined): string {
  switch (kind) {
    case Kind.Number:
      return Number.isFinite(num) ? String(num) : 'null';
    case Kind.Shared:
      return values.sharedJson(num);
    case Kind.True:
      return 'true';
    case Kind.False:
      return 'false';
    case Kind.Date:
    case Kind.Time:
      return values.dateJson(num, kind === Kind.Time);
    case Kind.Text:
      return JSON.stringify(text);
    default:
      // DECIMALS + n
      return num.toFixed(kind - DECIMALS);
  }
}

/** A cell address inside the store: segment index and cell index. */
interface CellRef {
  segment: number;
  cell: number;
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?\d*\.\d+$/;

/** Text that reads as a number (`12`, `-3.5`, `.5`), as the original's table heuristic counts it. */
function looksNumeric(text: string): boolean {
  return INT_RE.test(text) || FLOAT_RE.test(text);
}

/** All rows of one sheet, as segments in sheet order, with their deletions and hyperlinks. */
export class RowStore {
  private readonly removed = new Set<number>();
  private readonly links = new Map<number, string>();
  private readonly segmentBase: number[] = [];

  constructor(
    readonly segments: RowSegment[],
    private readonly values: WorkbookValues,
  ) {
    let base = 0;
    for (const segment of segments) {
      this.segmentBase.push(base);
      base += segment.cols.length;
    }
  }

  get rowCount(): number {
    let count = 0;
    for (const segment of this.segments) count += segment.rowNumbers.length;
    return count;
  }

  /** Cells still present (stored minus removed). */
  get valueCount(): number {
    let count = 0;
    for (const segment of this.segments) count += segment.cols.length;
    return count - this.removed.size;
  }

  private key(ref: CellRef): number {
    return this.segmentBase[ref.segment]! + ref.cell;
  }

  /** Value of the cell at `i` of a segment. */
  private value(segment: RowSegment, i: number): CellValue {
    const num = segment.nums[i]!;
    switch (segment.kinds[i] as Kind) {
      case Kind.Number:
        return num;
      case Kind.Shared:
        return this.values.shared(num);
      case Kind.Text:
        return segment.texts[num]!;
      case Kind.True:
        return true;
      case Kind.False:
        return false;
      case Kind.Date:
      case Kind.Time:
        return this.values.dateText(num, segment.kinds[i] === Kind.Time);
      default:
        return num; // DECIMALS + n
    }
  }

  private findRow(r: number): { segment: number; row: number } | undefined {
    for (let s = 0; s < this.segments.length; s++) {
      const rows = this.segments[s]!.rowNumbers;
      if (rows.length === 0 || rows[rows.length - 1]! < r) continue;
      let lo = 0;
      let hi = rows.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (rows[mid] === r) return { segment: s, row: mid };
        if (rows[mid]! < r) lo = mid + 1;
        else hi = mid - 1;
      }
      return undefined;
    }
    return undefined;
  }

  private find(r: number, c: number): CellRef | undefined {
    const at = this.findRow(r);
    if (!at) return undefined;
    const segment = this.segments[at.segment]!;
    for (let i = segment.rowStart[at.row]!; i < segment.rowStart[at.row + 1]!; i++) {
      if (segment.cols[i] === c) return { segment: at.segment, cell: i };
    }
    return undefined;
  }

  valueAt(r: number, c: number): CellValue | undefined {
    const ref = this.find(r, c);
    if (!ref || this.removed.has(this.key(ref))) return undefined;
    return this.value(this.segments[ref.segment]!, ref.cell);
  }

  /**
   * Visits the cells inside a block (rows 1-based, columns 0-based, inclusive) that are still present;
   * the cost is the cells in the block's rows, never the block's area. `numberLike` is only worked out
   * when `withNumberLike` is set (it is false otherwise).
   */
  forEachIn(
    r1: number,
    c1: number,
    r2: number,
    c2: number,
    visit: (r: number, c: number, key: number, numberLike: boolean) => void,
    withNumberLike = false,
  ): void {
    this.visitIn(r1, c1, r2, c2, visit, withNumberLike, false);
  }

  /**
   * The cells that hold something to read, for table detection: cells whose value is an empty or
   * whitespace-only string are in the rows but do not make a block of values.
   */
  get valueCells(): CellSource {
    return {
      forEachIn: (r1, c1, r2, c2, visit, withNumberLike = false) =>
        this.visitIn(r1, c1, r2, c2, visit, withNumberLike, true),
      forEachRunIn: (r1, c1, r2, c2, visit) => this.visitValueRunsIn(r1, c1, r2, c2, visit),
    };
  }

  /**
   * The runs of consecutive columns of valueCells inside a block, in row-major order: what visitIn
   * visits, with no call per cell. A row whose only run spans the same columns as the row above's only
   * run extends it (`height` rows), so a table of 200,000 rows is one call, not 200,000 (table
   * detection's pass over a million-cell sheet).
   */
  private visitValueRunsIn(r1: number, c1: number, r2: number, c2: number, visit: RunVisit): void {
    const anyRemoved = this.removed.size > 0;
    // The rows of single runs not yet visited: from `tallRow`, `tallHeight` rows of `tallStart`-`tallEnd`.
    let tallRow = -1;
    let tallStart = 0;
    let tallEnd = 0;
    let tallHeight = 0;
    for (let s = 0; s < this.segments.length; s++) {
      const segment = this.segments[s]!;
      const rows = segment.rowNumbers;
      if (rows.length === 0 || rows[rows.length - 1]! < r1 || rows[0]! > r2) continue;
      const { cols, kinds, rowStart } = segment;
      const base = this.segmentBase[s]!;
      for (let row = firstRowFrom(rows, r1); row < rows.length && rows[row]! <= r2; row++) {
        const r = rows[row]!;
        // The row's runs so far; its first is held back until the row is known to have no other.
        let runs = 0;
        let firstStart = 0;
        let firstEnd = 0;
        let start = -1;
        let end = -2;
        const last = rowStart[row + 1]!;
        for (let i = rowStart[row]!; i <= last; i++) {
          let c = -1;
          if (i < last) {
            c = cols[i]!;
            if (c < c1 || c > c2) continue;
            if (anyRemoved && this.removed.has(base + i)) continue;
            const kind = kinds[i];
            if ((kind === Kind.Shared || kind === Kind.Text) && this.isBlank(segment, i)) continue;
            if (c === end + 1) {
              end = c;
              continue;
            }
          }
          // A run ends (at a gap, or at the row's end).
          if (start >= 0) {
            runs++;
            if (runs === 1) {
              firstStart = start;
              firstEnd = end;
            } else {
              if (runs === 2) {
                if (tallHeight > 0) visit(tallRow, tallStart, tallEnd, tallHeight);
                tallHeight = 0;
                visit(r, firstStart, firstEnd, 1);
              }
              visit(r, start, end, 1);
            }
          }
          start = c;
          end = c;
        }
        if (runs !== 1) continue;
        if (
          tallHeight > 0 &&
          tallStart === firstStart &&
          tallEnd === firstEnd &&
          tallRow + tallHeight === r
        ) {
          tallHeight++;
          continue;
        }
        if (tallHeight > 0) visit(tallRow, tallStart, tallEnd, tallHeight);
        tallRow = r;
        tallStart = firstStart;
        tallEnd = firstEnd;
        tallHeight = 1;
      }
    }
    if (tallHeight > 0) visit(tallRow, tallStart, tallEnd, tallHeight);
  }

  private visitIn(
    r1: number,
    c1: number,
    r2: number,
    c2: number,
    visit: (r: number, c: number, key: number, numberLike: boolean) => void,
    withNumberLike: boolean,
    skipBlank: boolean,
  ): void {
    const anyRemoved = this.removed.size > 0;
    for (let s = 0; s < this.segments.length; s++) {
      const segment = this.segments[s]!;
      const rows = segment.rowNumbers;
      if (rows.length === 0 || rows[rows.length - 1]! < r1 || rows[0]! > r2) continue;
      for (let row = firstRowFrom(rows, r1); row < rows.length && rows[row]! <= r2; row++) {
        for (let i = segment.rowStart[row]!; i < segment.rowStart[row + 1]!; i++) {
          const c = segment.cols[i]!;
          if (c < c1 || c > c2) continue;
          const key = this.segmentBase[s]! + i;
          if (anyRemoved && this.removed.has(key)) continue;
          if (skipBlank && this.isBlank(segment, i)) continue;
          visit(rows[row]!, c, key, withNumberLike && this.isNumberLike(segment, i));
        }
      }
    }
  }

  /** An empty or whitespace-only string (worked out once per shared string). */
  private isBlank(segment: RowSegment, i: number): boolean {
    const kind = segment.kinds[i] as Kind;
    if (kind === Kind.Shared) return this.values.isSharedBlank(segment.nums[i]!);
    return kind === Kind.Text && segment.texts[segment.nums[i]!]!.trim() === '';
  }

  private isNumberLike(segment: RowSegment, i: number): boolean {
    const kind = segment.kinds[i] as Kind;
    if (kind === Kind.Number || kind >= DECIMALS) return true;
    if (kind === Kind.Shared) return this.values.isSharedNumberLike(segment.nums[i]!);
    return kind === Kind.Text && looksNumeric(segment.texts[segment.nums[i]!]!);
  }

  remove(key: number): void {
    this.removed.add(key);
  }

  /** Values were removed or links added since the rows were read. */
  get edited(): boolean {
    return this.removed.size > 0 || this.links.size > 0;
  }

  setLink(key: number, target: string): void {
    this.links.set(key, target);
  }

  /** The rows as plain objects (what the model and the YAML/TOON serialisers use). */
  toCellRows(alpha: boolean): CellRow[] {
    const out: CellRow[] = [];
    for (let s = 0; s < this.segments.length; s++) {
      const segment = this.segments[s]!;
      const base = this.segmentBase[s]!;
      for (let row = 0; row < segment.rowNumbers.length; row++) {
        const c: Record<string, CellValue> = {};
        let links: Record<string, string> | undefined;
        let any = false;
        for (let i = segment.rowStart[row]!; i < segment.rowStart[row + 1]!; i++) {
          const key = base + i;
          if (this.removed.has(key)) continue;
          const name = this.values.columnKey(segment.cols[i]!, alpha);
          c[name] = this.value(segment, i);
          any = true;
          const link = this.links.get(key);
          if (link !== undefined) (links ??= {})[name] = link;
        }
        if (!any) continue;
        out.push(links ? { r: segment.rowNumbers[row]!, c, links } : { r: segment.rowNumbers[row]!, c });
      }
    }
    return out;
  }

  private jsonOf(segment: RowSegment, i: number): string {
    const kind = segment.kinds[i] as Kind;
    const num = segment.nums[i]!;
    return valueJson(this.values, kind, num, kind === Kind.Text ? segment.texts[num] : undefined);
  }

  /**
   * Compact JSON of the rows array, byte for byte what `JSON.stringify(toCellRows(alpha))` gives, written
   * straight from the columns (no intermediate objects) in pieces of about a thousand rows, so a million
   * cells never sit in memory as a million strings.
   */
  writeJson(emit: (piece: string) => void, alpha: boolean): void {
    const ROWS_PER_PIECE = 1024;
    let piece = '[';
    let inPiece = 0;
    let first = true;
    for (let s = 0; s < this.segments.length; s++) {
      const segment = this.segments[s]!;
      const base = this.segmentBase[s]!;
      const { rowNumbers, rowStart, cols } = segment;
      for (let row = 0; row < rowNumbers.length; row++) {
        let cells = '';
        let links = '';
        for (let i = rowStart[row]!; i < rowStart[row + 1]!; i++) {
          const key = base + i;
          if (this.removed.size > 0 && this.removed.has(key)) continue;
          const keyText = this.values.columnKeyJson(cols[i]!, alpha);
          cells += cells === '' ? keyText + this.jsonOf(segment, i) : `,${keyText}${this.jsonOf(segment, i)}`;
          if (this.links.size > 0) {
            const link = this.links.get(key);
            if (link !== undefined) links += `${links === '' ? '' : ','}${keyText}${JSON.stringify(link)}`;
          }
        }
        if (cells === '') continue;
        piece += `${first ? '' : ','}{"r":${rowNumbers[row]!},"c":{${cells}}${links ? `,"links":{${links}}` : ''}}`;
        first = false;
        if (++inPiece === ROWS_PER_PIECE) {
          emit(piece);
          piece = '';
          inPiece = 0;
        }
      }
    }
    emit(`${piece}]`);
  }
}

/** The index of the first of a segment's ascending row numbers that is at least `r`. */
function firstRowFrom(rows: ArrayLike<number>, r: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
