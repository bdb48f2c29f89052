import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import { compileLinearRegex, type TextTest } from '../util/linear-regex.js';
import { onlyPathErrors, runRipgrep } from '../rg/run.js';
import { comparePaths } from '../util/path-order.js';
import { SLICE_MS } from '../util/yield.js';
import { denyExcludeGlobs, inBothForms } from '../search/rg-args.js';
import { countListedFiles } from './count-files.js';
import { rootsIgnoredFromAbove } from './ignored-above.js';
import { parseSize, parseTimePoint, sizeMatches, type SizeFilter } from './filters.js';

export const DEFAULT_LIST_LIMIT = 2_000;
export const MAX_LIST_LIMIT = 10_000;
/** Files a listing may hold before it is cut and sorted (memory); more is LIMIT_EXCEEDED. */
const MAX_FILTER_CANDIDATES = 2_000_000;

export interface ListFilesQuery {
  /** Resolved real directories, with the prefix to show for each (root-relative display of the dir). */
  roots: { dir: string; display: string }[];
  /** Regular expression tested against the file's base name. */
  pattern?: string;
  /** Include globs (ripgrep glob syntax, relative to each root). */
  globs?: string[];
  /** ripgrep file types, e.g. "ts", "py" (see `rg --type-list`). */
  types?: string[];
  /** Extensions without the dot, e.g. "ts". */
  extensions?: string[];
  /** Exclude globs. */
  exclude?: string[];
  depth?: number;
  hidden?: boolean;
  noIgnore?: boolean;
  /** fd-style size filters, all must hold: "+10k", "-1mi". */
  size?: string[];
  changedWithin?: string;
  changedBefore?: string;
  limit: number;
  countOnly?: boolean;
  /**
   * Stat each row for its size and time (default true). False when nobody reads them (a text page of
   * paths): 10,000 lstat calls then cost more than ripgrep's walk. Stat filters stat anyway.
   */
  statRows?: boolean;
  /**
   * The server's deny globs: passed to ripgrep as excludes and checked again on each path. Without
   * any, `isDenied` and `allowedFiles` must answer alike for every file of a folder (counts rely on it).
   */
  denyGlobs?: readonly string[];
  isDenied?: (foundPath: string) => boolean;
  /** Of the files found, those the policy allows by their real location (checked on every result). */
  allowedFiles?: (files: string[]) => Promise<(file: string) => boolean>;
  /** The same check one file at a time (synchronous), made afresh for each listing. */
  allowedFileCheck?: () => (file: string) => boolean;
  signal?: AbortSignal;
}

export interface FileRow {
  path: string;
  /** Absent when the listing was made without stat (statRows false); see statFileRows. */
  size_bytes?: number;
  /** Modification time in Unix seconds (a plain number costs a third of the tokens of an ISO date). */
  mtime?: number;
  /** Extension without the dot ('' when none). */
  ext: string;
}

export interface ListFilesResult {
  files: FileRow[];
  /** Real absolute paths of `files`, in the same order. */
  realPaths: string[];
  /** Number of files that matched (equals files.length unless count_only). */
  count: number;
  /** More files matched than `limit`; the list holds the first `limit` found. */
  truncated: boolean;
  /** Nothing matched, and ignore files above these roots (shown as given) hid every file there. */
  ignoredAbove?: string[];
}

interface Candidate {
  abs: string;
  display: string;
}

/** ripgrep arguments shared by file listing and by searches that honour the same filters. */
export function fileFilterArgs(
  query: Omit<ListFilesQuery, 'roots' | 'limit' | 'isDenied' | 'allowedFiles'>,
): string[] {
  const args: string[] = [];
  if (query.hidden) args.push('--hidden');
  // Honour .gitignore outside a git repository too (ripgrep only reads it inside one by default).
  args.push(query.noIgnore ? '--no-ignore' : '--no-require-git');
  if (query.depth !== undefined) args.push('--max-depth', String(query.depth));
  for (const type of query.types ?? []) args.push('--type', type);
  for (const glob of inBothForms(query.globs ?? [])) args.push('--glob', glob);
  for (const ext of query.extensions ?? []) args.push('--glob', `*.${ext.replace(/^\./, '')}`);
  for (const glob of [...inBothForms(query.exclude ?? []), ...denyExcludeGlobs(query.denyGlobs ?? [])])
    args.push('--glob', `!${glob}`);
  return args;
}

/** Longest `pattern` accepted: a file-name regex (a longer one is a mistake, and costly to compile). */
export const MAX_PATTERN_CHARS = 4096;

function compilePattern(pattern: string | undefined): TextTest | undefined {
  if (pattern === undefined || pattern === '') return undefined;
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `pattern has ${pattern.length} characters; the limit is ${MAX_PATTERN_CHARS}.`,
      {
        hint: 'pattern is tested against file names: a short regular expression is enough (use glob or extensions for lists).',
        details: { limit: 'max_pattern_chars', value: pattern.length, max: MAX_PATTERN_CHARS },
      },
    );
  }
  // Names are tested composed (NFC), whatever form the file system stores them in.
  return compileLinearRegex(pattern.normalize('NFC'), 'pattern', '"^test_.*\\.py$" (use glob for globs)');
}

/**
 * Lists files with `rg --files` (honouring .gitignore), then filters and stats them. An empty listing
 * says which roots ignore files above them hid (`ignoredAbove`).
 */
export async function listFiles(query: ListFilesQuery): Promise<ListFilesResult> {
  const result = await listMatching(query);
  if (result.count > 0 || query.noIgnore) return result;
  const hidden = await rootsIgnoredFromAbove(
    query.roots.map((root) => root.dir),
    fileFilterArgs(query),
    query.signal,
  );
  if (hidden.length === 0) return result;
  const shown = query.roots.filter((root) => hidden.includes(root.dir)).map((root) => root.display);
  return { ...result, ignoredAbove: shown };
}

async function listMatching(query: ListFilesQuery): Promise<ListFilesResult> {
  const nameRegex = compilePattern(query.pattern);
  const sizes: SizeFilter[] = (query.size ?? []).map(parseSize);
  const now = Date.now();
  const after =
    query.changedWithin === undefined
      ? undefined
      : parseTimePoint(query.changedWithin, 'changed_within', now);
  const before =
    query.changedBefore === undefined
      ? undefined
      : parseTimePoint(query.changedBefore, 'changed_before', now);
  const needsStat = sizes.length > 0 || after !== undefined || before !== undefined;
  const keep = query.countOnly ? 0 : query.limit;

  // Rows are the first `limit` files in path order (bug 3: the same tree gives the same rows, whatever
  // order ripgrep's parallel walk finds them in). Only the kept rows (and one more, to know the listing
  // goes on) are checked against the policy and stat'ed; stat filters, and counts under deny globs or
  // several roots, need every file. A plain count (one root, no deny globs) shows no file and checks none.
  const [firstRoot, ...otherRoots] = query.roots;
  if (
    query.countOnly &&
    !needsStat &&
    firstRoot !== undefined &&
    otherRoots.length === 0 &&
    (query.denyGlobs ?? []).length === 0
  ) {
    const count = await countListedFiles(
      firstRoot.dir,
      ['--files', '--null', ...fileFilterArgs(query), '.'],
      nameRegex,
      query.signal,
    );
    return { files: [], realPaths: [], count, truncated: false };
  }
  let listed: Candidate[] | undefined;
  if (!query.countOnly && !needsStat && query.roots.length === 1) {
    // One root without stat filters: ripgrep walks in path order (--sort path, one thread) and is
    // stopped once the rows and one more are found, so a limit of 10,000 in a 43,000-file tree reads a
    // quarter of it and nothing is sorted here.
    const walk = await walkFiles(query, nameRegex, keep + 1, true);
    const allowed = await allowedInOrder(walk.candidates, keep + 1, query.allowedFiles);
    // ripgrep orders names by their UTF-8 bytes, answers by UTF-16 code units: they differ only for
    // some characters beyond U+E000 (and names that are not UTF-8); and the policy may drop a file the
    // walk counted. Either way the full listing below decides.
    if (!walk.unordered && (allowed.length > keep || !walk.stopped)) listed = allowed;
  }
  if (listed === undefined) {
    const { candidates } = await walkFiles(query, nameRegex, MAX_FILTER_CANDIDATES, false);
    // A count needs no order.
    if (!query.countOnly || needsStat) candidates.sort((a, b) => comparePaths(a.display, b.display));
    listed = await allowedInOrder(
      candidates,
      needsStat || query.countOnly ? Infinity : keep + 1,
      query.allowedFiles,
    );
  }
  if (query.countOnly && !needsStat)
    return { files: [], realPaths: [], count: listed.length, truncated: false };
  const pool = needsStat ? listed : listed.slice(0, keep);

  const rows: { row: FileRow; abs: string }[] = [];
  let matched = 0;
  if (!needsStat && query.statRows === false) {
    for (const candidate of pool) rows.push({ row: toRow(candidate.display), abs: candidate.abs });
    matched = rows.length;
  } else {
    // Synchronous lstat in time slices: 10,000 promise lstats through libuv's thread pool took longer
    // than ripgrep's whole walk; the event loop still turns every SLICE_MS (ping, cancel).
    const slices = new TimeSlices(query.signal);
    for (let index = 0; index < pool.length; index++) {
      if (!query.countOnly && rows.length > keep) break;
      await slices.turn(index);
      const candidate = pool[index]!;
      // lstat: the entry itself, never where a link put in its place since the listing points.
      const info = lstatQuietly(candidate.abs);
      if (!info?.isFile()) continue; // vanished (or replaced) since ripgrep listed it
      if (!sizes.every((filter) => sizeMatches(info.size, filter))) continue;
      if (after !== undefined && info.mtimeMs < after) continue;
      if (before !== undefined && info.mtimeMs >= before) continue;
      matched++;
      if (rows.length <= keep) rows.push({ row: toRow(candidate.display, info), abs: candidate.abs });
    }
  }
  // Without stat filters the listing decides what is left over; with them, what matched.
  const truncated = !query.countOnly && (needsStat ? rows.length > keep : listed.length > keep);
  const shown = rows.slice(0, keep);
  return {
    files: shown.map((r) => r.row),
    realPaths: shown.map((r) => r.abs),
    count: query.countOnly ? matched : shown.length,
    truncated,
  };
}

interface Walk {
  /** Files found, the policy's deny check passed, in ripgrep's order. */
  candidates: Candidate[];
  /** Stopped at `stopAt` files (the walk may go on). */
  stopped: boolean;
  /** Sorted walk only: ripgrep's order was not the answers' path order somewhere. */
  unordered: boolean;
}

/**
 * Runs `rg --files` over every root, keeping the files the name pattern and the deny check pass. Stops
 * at `stopAt` files: in a sorted walk these are the first in path order; in the parallel walk (any
 * order) reaching it is LIMIT_EXCEEDED.
 */
async function walkFiles(
  query: ListFilesQuery,
  nameRegex: TextTest | undefined,
  stopAt: number,
  sorted: boolean,
): Promise<Walk> {
  const candidates: Candidate[] = [];
  // Overlapping roots list a file twice: keep its first occurrence only.
  const seen = new Set<string>();
  let stopped = false;
  let unordered = false;
  let previous: string | undefined;
  // NUL-separated, so that a file name holding a newline stays one name.
  const args = ['--files', '--null', ...(sorted ? ['--sort', 'path'] : []), ...fileFilterArgs(query), '.'];
  for (const root of query.roots) {
    if (stopped) break;
    const prefix = root.display === '.' ? '' : `${root.display}/`;
    // rg prints clean relative paths below the (real, normalised) root: joined by concatenation, since
    // path.join's normalising of every one of 43,000 paths was a good part of a listing's time.
    const base = root.dir.endsWith(path.sep) ? root.dir : root.dir + path.sep;
    const overlapping = query.roots.length > 1;
    const result = await runRipgrep(args, {
      cwd: root.dir,
      separator: '\0',
      ...(query.signal ? { signal: query.signal } : {}),
      onLine: (line) => {
        const rel = normalize(line);
        if (sorted) {
          if (previous !== undefined && comparePaths(previous, rel) >= 0) unordered = true;
          previous = rel;
        }
        if (nameRegex && !nameRegex.test(rel.slice(rel.lastIndexOf('/') + 1).normalize('NFC'))) return true;
        const abs = base + (path.sep === '/' ? rel : rel.replaceAll('/', path.sep));
        if (query.isDenied?.(abs)) return true;
        if (overlapping) {
          if (seen.has(abs)) return true;
          seen.add(abs);
        }
        candidates.push({ abs, display: prefix + rel });
        if (candidates.length < stopAt) return true;
        stopped = true;
        return false;
      },
    });
    // An empty listing because paths could not be walked (a name too long) is empty, not an argument error.
    if (
      result.exitCode === 2 &&
      !result.stopped &&
      candidates.length === 0 &&
      result.stderr &&
      !onlyPathErrors(result.stderr)
    ) {
      throw new ToolError(
        'INVALID_ARGUMENT',
        `ripgrep could not list files: ${result.stderr.split('\n')[0]}`,
        {
          hint: 'Check the globs and file types (rg --type-list shows the known types).',
        },
      );
    }
  }
  if (stopped && !sorted) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `More than ${MAX_FILTER_CANDIDATES} files match; the listing was stopped.`,
      {
        hint: 'Narrow it with roots, glob, extensions or depth.',
        details: { limit: 'max_candidates', max: MAX_FILTER_CANDIDATES },
      },
    );
  }
  return { candidates, stopped, unordered };
}

/** The first `wanted` candidates (in their order) the policy allows by their real location. */
async function allowedInOrder(
  candidates: readonly Candidate[],
  wanted: number,
  allowedFiles: ListFilesQuery['allowedFiles'],
): Promise<Candidate[]> {
  if (!allowedFiles) return candidates.slice(0, wanted);
  const kept: Candidate[] = [];
  const step = Number.isFinite(wanted) ? Math.max(1024, wanted) : candidates.length;
  for (let start = 0; start < candidates.length && kept.length < wanted; start += step) {
    const chunk = candidates.slice(start, start + step);
    const allowed = await allowedFiles(chunk.map((c) => c.abs));
    for (const c of chunk) if (allowed(c.abs) && kept.length < wanted) kept.push(c);
  }
  return kept;
}

function lstatQuietly(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined; // unreadable folder on the way, name too long…: not listed, as if vanished
  }
}

function toRow(display: string, info?: Stats): FileRow {
  const ext = path.posix.extname(display);
  const row: FileRow = { path: display, ext: ext.length > 1 ? ext.slice(1) : '' };
  if (info) {
    row.size_bytes = info.size;
    row.mtime = Math.floor(info.mtimeMs / 1000);
  }
  return row;
}

/** Gives event-loop turns every SLICE_MS during a synchronous loop, and stops it on a cancel. */
class TimeSlices {
  private start = performance.now();
  constructor(private readonly signal: AbortSignal | undefined) {}

  async turn(index: number): Promise<void> {
    if ((index & 15) !== 15 || performance.now() - this.start <= SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    if (this.signal?.aborted) throw new ToolError('CANCELLED', 'The request was cancelled.');
    this.start = performance.now();
  }
}

/**
 * Stats rows listed without stat (statRows false), in place: size and time, as a listing with stat
 * would have given them (0 for a file that vanished since: it is still listed, as ripgrep saw it).
 */
export async function statFileRows(
  rows: readonly FileRow[],
  realPaths: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  const slices = new TimeSlices(signal);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    if (row.size_bytes !== undefined) continue;
    await slices.turn(index);
    const info = lstatQuietly(realPaths[index]!);
    row.size_bytes = info?.size ?? 0;
    row.mtime = Math.floor((info?.mtimeMs ?? 0) / 1000);
  }
}

function normalize(line: string): string {
  const slashed = path.sep === '\\' ? line.replaceAll('\\', '/') : line;
  return slashed.startsWith('./') ? slashed.slice(2) : slashed;
}
