// The rows of a search's pages, read in batches of files in path order: which files a batch takes, and
// ripgrep's run over them (`--only-matching`, with the rows read from the files, or `--json`).
import { warningLines, type RgRunResult } from '../rg/run.js';
import { comparePaths } from '../util/path-order.js';
import { JsonMatchCollector } from './collect.js';
import {
  ONLY_MATCHING_FLAGS,
  OnlyMatchingParser,
  SUMMARY_RECORD_CHARS,
  rowsOfFile,
  type FileRows,
  type UnescapedLine,
} from './match-lines.js';
import { searchArgs } from './rg-args.js';
import type { FileCount, SearchMatch, SearchQuery } from './types.js';
import { pathBatches, runInBatches } from './rg-batches.js';

/**
 * The next batch from `start`: files in path order until they hold `target` matches, or the rest at once
 * when it is at most twice that (within the JSON cap): one run, not two. `target` as it ends up.
 */
export function batchAt(
  fileCounts: readonly FileCount[],
  start: number,
  target: number,
  capOf: () => number,
): { batch: FileCount[]; counted: number; target: number } {
  let left = 0;
  for (let i = start; i < fileCounts.length; i++) {
    left += fileCounts[i]!.count;
    if (left > 2 * target) break;
  }
  if (left <= 2 * target && left <= capOf()) target = left;
  const batch: FileCount[] = [];
  let counted = 0;
  for (let i = start; i < fileCounts.length && counted < target; i++) {
    const next = fileCounts[i]!;
    batch.push(next);
    counted += next.count;
  }
  return { batch, counted, target };
}

/** Long lines kept of a search's rows for its pages' warnings (each names one; a page shows ≤ 3). */
export const MAX_LONG_LINES = 1_000;

/** The first batch of rows a page reads: files holding about this many matches. */
export const FIRST_BATCH_MATCHES = 256;
/** A batch of rows after the first aims at no more of ripgrep's JSON than this (by the JSON per match read). */
export const MAX_BATCH_JSON = 8 * 1024 * 1024;

/** ripgrep memory-maps the files it searches when a run names at most this many (and all are files). */
const MMAP_FILES = 10;

/** ripgrep's output of matches kept in memory at most (a `.*` query prints whole lines): past it, `--json`. */
const MAX_ONLY_MATCHING_OUTPUT = 64 * 1024 * 1024;

interface BatchRows {
  /** In path order, then line order. */
  rows: SearchMatch[];
  clippedLines: { file: string; line: number; bytes: number }[];
  warnings: string[];
}

/** A batch's rows being read ahead: its files, the run, and how to stop it. */
export interface ReadAhead {
  files: string[];
  read: Promise<LinesRead>;
  stop: AbortController;
}

export function sameFiles(files: readonly string[], batch: readonly FileCount[]): boolean {
  return files.length === batch.length && batch.every((c, i) => c.file === files[i]);
}

/** A search whose rows are read from the files (match-lines.ts): one match a line, no context lines. */
export function readsLines(query: SearchQuery): boolean {
  return !query.multiline && query.contextBefore === 0 && query.contextAfter === 0;
}

/** ripgrep's `--only-matching` run over a batch, and the rows of the files it had finished meanwhile. */
export interface LinesRead {
  run: RgRunResult;
  parser: OnlyMatchingParser;
  early: Map<string, FileRows | undefined>;
}

export async function readLines(
  query: SearchQuery,
  batch: readonly FileCount[],
  options: { deadline: number; signal?: AbortSignal },
): Promise<LinesRead> {
  const files = batch.map((c) => c.file);
  const parser = new OnlyMatchingParser(new Set(files));
  const counted = new Map(batch.map((c) => [c.file, c.count]));
  // The rows of each file whose records have all come are read while ripgrep searches the others.
  const early = new Map<string, FileRows | undefined>();
  let bytes = 0;
  const args = searchArgs({ ...query, targets: files, targetKind: 'files', mode: 'matches' });
  const run = await runInBatches(
    { targets: files, targetKind: 'files' },
    [...ONLY_MATCHING_FLAGS, ...args.slice(1)],
    {
      deadline: options.deadline,
      ...(options.signal ? { signal: options.signal } : {}),
      onLine: () => undefined,
      onChunk: (chunk) => {
        bytes += chunk.length;
        if (bytes > MAX_ONLY_MATCHING_OUTPUT) return false;
        for (const file of parser.push(chunk))
          early.set(file, rowsOfFile(file, parser.files.get(file) ?? [], counted.get(file) ?? 0));
        return true;
      },
    },
  );
  return { run, parser, early };
}

/**
 * The rows of a batch of counted files. A search whose matches lie on one line each and shows no
 * context lines has ripgrep print only where they are and reads the lines from the files
 * (match-lines.ts); `--json` reads the rest, and the files that left. Undefined when the time ran out.
 */
export async function readBatch(
  query: SearchQuery,
  batch: readonly FileCount[],
  options: { deadline: number; signal?: AbortSignal },
  onJson: (bytes: number, file?: string, unescaped?: UnescapedLine[]) => void,
  /** The batch's readLines, started ahead (see SearchEngine.readAhead). */
  started?: Promise<LinesRead>,
): Promise<BatchRows | undefined> {
  const read: BatchRows = { rows: [], clippedLines: [], warnings: [] };
  let jsonFiles = batch.map((c) => c.file);
  const signal = options.signal ? { signal: options.signal } : {};
  if (readsLines(query)) {
    const { run, parser, early } = await (started ?? readLines(query, batch, options));
    if (run.timedOut) return undefined;
    if (!run.stopped) {
      if (run.exitCode === 2) read.warnings.push(...warningLines(run.stderr));
      jsonFiles = [];
      for (const { file, count } of batch) {
        const rows =
          early.has(file) && !parser.reopened.has(file)
            ? early.get(file)
            : rowsOfFile(file, parser.files.get(file) ?? [], count);
        if (!rows) {
          jsonFiles.push(file);
          continue;
        }
        read.rows.push(...rows.rows);
        read.clippedLines.push(...rows.clippedLines);
        onJson(rows.jsonBytes, file, rows.unescaped);
      }
      if (jsonFiles.length === 0) onJson(SUMMARY_RECORD_CHARS);
    }
  }
  // The rest as `--json` reads them, in the runs that read them before (the batch's, or as such).
  const runs: { files: string[]; flags: string[] }[] = [];
  if (jsonFiles.length === batch.length) runs.push({ files: jsonFiles, flags: [] });
  else if (jsonFiles.length > 0) {
    // ripgrep memory-maps the files of a run naming at most MMAP_FILES of them and reads the others,
    // and a binary file's lines differ between the two: each file is read as its batch's run would.
    const mapped = new Set(
      pathBatches(batch.map((c) => c.file)).flatMap((run) => (run.length <= MMAP_FILES ? run : [])),
    );
    const inMapped = jsonFiles.filter((file) => mapped.has(file));
    const inRead = jsonFiles.filter((file) => !mapped.has(file));
    if (inMapped.length > 0) runs.push({ files: inMapped, flags: [] });
    if (inRead.length > 0) runs.push({ files: inRead, flags: ['--no-mmap'] });
  }
  for (const { files, flags } of runs) {
    const collector = new JsonMatchCollector(query.contextAfter, Number.MAX_SAFE_INTEGER);
    const run = await runInBatches(
      { targets: files, targetKind: 'files' },
      [...flags, ...searchArgs({ ...query, targets: files, targetKind: 'files', mode: 'matches' })],
      {
        deadline: options.deadline,
        ...signal,
        onLongRecord: (record: Buffer) => {
          const taken = collector.pushLong(record);
          if (taken !== undefined) onJson(record.length); // else it comes to onLine
          return taken;
        },
        onLine: (line, clipped) => {
          onJson(clipped?.bytes ?? line.length);
          return collector.push(line, clipped);
        },
      },
    );
    if (run.timedOut) return undefined;
    if (run.exitCode === 2) read.warnings.push(...warningLines(run.stderr));
    read.rows.push(...collector.matchesInOrder());
    read.clippedLines.push(...collector.clippedLines);
  }
  read.rows.sort((a, b) => comparePaths(a.file, b.file) || a.line - b.line);
  return read;
}

/** The text of rows from `from` on (with their context lines), counted until it passes `upTo`. */
export function textBytesFrom(rows: readonly SearchMatch[], from: number, upTo: number): number {
  let bytes = 0;
  for (let i = from; i < rows.length && bytes <= upTo; i++) {
    const row = rows[i]!;
    bytes += row.text.length;
    for (const line of row.before ?? []) bytes += line.length;
    for (const line of row.after ?? []) bytes += line.length;
  }
  return bytes;
}
