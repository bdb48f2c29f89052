import { comparePaths } from '../util/path-order.js';
import type { SearchMatch } from './types.js';

/** The rows of one file as a `rg --json` run read them, with the matches it counted there. */
export interface FileRows {
  rows: SearchMatch[];
  /** Matches (submatches) counted in the rows: they must equal the counting run's count to be used. */
  count: number;
  /** Lines of the file too long to keep whole (see SearchOutcome.longLines). */
  clipped: { file: string; line: number; bytes: number }[];
  /** The rows' text, context included, in UTF-16 units (what RowNeed.textBytes counts). */
  textBytes: number;
}

/** Reads the rows of the given files; undefined when the run failed or was cut short (nothing kept). */
export type ReadFileRows = (files: string[]) => Promise<Map<string, FileRows> | undefined>;

/** Files waiting for a read are handed to ripgrep at once past this many... */
const BATCH_FILES = 64;
/**
 * ...or when the first of them has waited this long, twice as long after each read (each run costs a
 * process start: a rare word's files, counted one by one over a second, made 15 runs at a fixed 25 ms).
 */
const BATCH_WAIT_MS = 25;
const MAX_BATCH_WAIT_MS = 400;
/** The matches' worth of files readRows reads first (then twice as many each time): see trimByText. */
export const FIRST_BATCH_MATCHES = 256;

/**
 * Reads the rows of the first files in path order while the counting run is still going (issue 25):
 * a first page used to wait for the count over the whole tree, then for a second ripgrep run over the
 * files it shows. Which files come first is only known once every file is counted, but a file that
 * ends up among the first ones was among the first of those counted so far when its count came in.
 * So each counted file that enters the smallest set (by path) of counted files holding `targetMatches`
 * matches is read at once, a few files per ripgrep run, beside the count: with files counted in no
 * particular order that is about k·ln(n/k) files for the k a page shows, of n. Rows read this way are
 * only used for a file whose count they match (the page's rows are those a run after the count would
 * read); files they miss are read after the count as before. Once the first files read hold more than
 * `textBytes` of text (what a first page can show), files after them are not read either: a few lines
 * of minified code or source maps fill a page. Reading stops past `maxMatches` matches (a walk that
 * finds files in reverse path order would otherwise read them all).
 */
export class RowPrefetch {
  /**
   * The smallest counted files by path holding targetMatches matches (the last one reaches it), or
   * whose rows, read, already hold textBytes of text.
   */
  private readonly first: { file: string; count: number }[] = [];
  private firstMatches = 0;
  /** `first` ends where a page surely ends: no file after its last one can be on the first page. */
  private full = false;
  /** Files of `first` not handed to ripgrep yet, with their counts. */
  private readonly waiting = new Map<string, number>();
  private readonly asked = new Set<string>();
  private readonly ready = new Map<string, FileRows>();
  private askedMatches = 0;
  private reads = 0;
  private running: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly read: ReadFileRows,
    private readonly targetMatches: number,
    private readonly maxMatches: number,
    private readonly textBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** A file's count, as the counting run reports it. */
  offer(file: string, count: number): void {
    if (this.closed || count <= 0) return;
    const first = this.first;
    const last = first[first.length - 1];
    if (last && this.full && comparePaths(file, last.file) > 0) return;
    let lo = 0;
    let hi = first.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePaths(first[mid]!.file, file) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (first[lo]?.file === file) return;
    first.splice(lo, 0, { file, count });
    this.firstMatches += count;
    // Files past those that already hold targetMatches matches are not among the first any more.
    while (first.length > 1 && this.firstMatches - first[first.length - 1]!.count >= this.targetMatches) {
      const dropped = first.pop()!;
      this.firstMatches -= dropped.count;
      this.waiting.delete(dropped.file);
    }
    if (this.firstMatches >= this.targetMatches) this.full = true;
    this.trimByText();
    if (first[lo]?.file !== file || this.asked.has(file)) return;
    this.waiting.set(file, count);
    this.schedule();
  }

  /**
   * Once the first files, all read, hold more than textBytes of text at the end of one of the batches
   * readRows reads them in (FIRST_BATCH_MATCHES matches' worth of files, then twice as many each time),
   * a first page ends within them (a file counted later that sorts before them only adds rows): the
   * files after them are dropped.
   */
  private trimByText(): void {
    const first = this.first;
    let bytes = 0;
    let target = FIRST_BATCH_MATCHES;
    let inBatch = 0;
    for (let i = 0; i < first.length - 1; i++) {
      const rows = this.take(first[i]!.file, first[i]!.count);
      if (!rows) return;
      bytes += rows.textBytes;
      inBatch += first[i]!.count;
      if (inBatch < target) continue;
      // A batch ends here.
      target *= 2;
      inBatch = 0;
      if (bytes <= this.textBytes) continue;
      for (const dropped of first.splice(i + 1)) {
        this.firstMatches -= dropped.count;
        this.waiting.delete(dropped.file);
      }
      this.full = true;
      return;
    }
  }

  /** No more files come (the count ended): nothing new is read; resolves when the reads under way end. */
  close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return this.settled();
  }

  /** Resolves when no read is under way. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** The rows read for `file` if they hold exactly `count` matches (else the file is to be read again). */
  take(file: string, count: number): FileRows | undefined {
    const rows = this.ready.get(file);
    return rows && rows.count === count ? rows : undefined;
  }

  /** How many files were handed to ripgrep (for tests). */
  get filesAsked(): number {
    return this.asked.size;
  }

  private schedule(): void {
    if (this.closed || this.running || this.waiting.size === 0) return;
    if (this.waiting.size >= BATCH_FILES) {
      this.start();
      return;
    }
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        this.start();
      },
      Math.min(MAX_BATCH_WAIT_MS, BATCH_WAIT_MS * 2 ** this.reads),
    );
  }

  private start(): void {
    if (this.closed || this.running || this.waiting.size === 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.askedMatches >= this.maxMatches) {
      this.waiting.clear();
      return;
    }
    const files = [...this.waiting.keys()];
    for (const [file, count] of this.waiting) {
      this.asked.add(file);
      this.askedMatches += count;
    }
    this.waiting.clear();
    this.reads++;
    this.running = this.read(files)
      .then((rows) => {
        for (const [file, fileRows] of rows ?? []) this.ready.set(file, fileRows);
        this.trimByText();
      })
      .catch(() => undefined)
      .finally(() => {
        this.running = undefined;
        this.schedule();
      });
  }
}

/** Splits a run's rows (in path order, then line order) by file. */
export function rowsByFile(
  rows: readonly SearchMatch[],
  counts: ReadonlyMap<string, number>,
  clipped: readonly { file: string; line: number; bytes: number }[],
): Map<string, FileRows> {
  const byFile = new Map<string, FileRows>();
  for (const [file, count] of counts) byFile.set(file, { rows: [], count, clipped: [], textBytes: 0 });
  for (const row of rows) {
    const fileRows = byFile.get(row.file);
    if (!fileRows) continue;
    fileRows.rows.push(row);
    fileRows.textBytes += rowTextBytes(row);
  }
  for (const line of clipped) byFile.get(line.file)?.clipped.push(line);
  return byFile;
}

/** A row's text with its context lines, as RowNeed.textBytes counts it. */
export function rowTextBytes(row: SearchMatch): number {
  let bytes = row.text.length;
  for (const line of row.before ?? []) bytes += line.length;
  for (const line of row.after ?? []) bytes += line.length;
  return bytes;
}
