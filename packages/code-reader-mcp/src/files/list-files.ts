import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import { compileLinearRegex, type TextTest } from '../util/linear-regex.js';
import { runRipgrep } from '../rg/run.js';
import { denyExcludeGlobs } from '../search/rg-args.js';
import { parseSize, parseTimePoint, sizeMatches, type SizeFilter } from './filters.js';

export const DEFAULT_LIST_LIMIT = 2_000;
export const MAX_LIST_LIMIT = 10_000;
/** With size/time filters every candidate is stat'ed; stop collecting candidates beyond this. */
const MAX_FILTER_CANDIDATES = 500_000;
const STAT_CONCURRENCY = 64;

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
  /** The server's deny globs: passed to ripgrep as excludes and checked again on each path. */
  denyGlobs?: readonly string[];
  isDenied?: (foundPath: string) => boolean;
  /** Of the files found, those the policy allows by their real location (checked on every result). */
  allowedFiles?: (files: string[]) => Promise<Set<string>>;
  signal?: AbortSignal;
}

export interface FileRow {
  path: string;
  size_bytes: number;
  /** Modification time in Unix seconds (a plain number costs a third of the tokens of an ISO date). */
  mtime: number;
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
  for (const glob of query.globs ?? []) args.push('--glob', glob);
  for (const ext of query.extensions ?? []) args.push('--glob', `*.${ext.replace(/^\./, '')}`);
  for (const glob of [...(query.exclude ?? []), ...denyExcludeGlobs(query.denyGlobs ?? [])])
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
  return compileLinearRegex(pattern, 'pattern', '"^test_.*\\.py$" (use glob for globs)');
}

/** Lists files with `rg --files` (honouring .gitignore), then filters and stats them. */
export async function listFiles(query: ListFilesQuery): Promise<ListFilesResult> {
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
  // Without stat filters, stop ripgrep once one more than the limit is known (that proves truncation).
  const stopAt =
    query.countOnly && !needsStat ? Infinity : needsStat ? MAX_FILTER_CANDIDATES : query.limit + 1;

  const candidates: Candidate[] = [];
  // Overlapping roots list a file twice: keep its first occurrence only.
  const seen = new Set<string>();
  // NUL-separated, so that a file name holding a newline stays one name.
  const args = ['--files', '--null', ...fileFilterArgs(query), '.'];
  for (const root of query.roots) {
    if (candidates.length >= stopAt) break;
    const prefix = root.display === '.' ? '' : `${root.display}/`;
    const result = await runRipgrep(args, {
      cwd: root.dir,
      separator: '\0',
      ...(query.signal ? { signal: query.signal } : {}),
      onLine: (line) => {
        const rel = normalize(line);
        if (nameRegex && !nameRegex.test(path.posix.basename(rel))) return true;
        const abs = path.join(root.dir, rel);
        if (query.isDenied?.(abs) || seen.has(abs)) return true;
        seen.add(abs);
        candidates.push({ abs, display: prefix + rel });
        return candidates.length < stopAt;
      },
    });
    if (result.exitCode === 2 && !result.stopped && candidates.length === 0 && result.stderr) {
      throw new ToolError(
        'INVALID_ARGUMENT',
        `ripgrep could not list files: ${result.stderr.split('\n')[0]}`,
        {
          hint: 'Check the globs and file types (rg --type-list shows the known types).',
        },
      );
    }
  }

  if (query.allowedFiles) {
    const allowed = await query.allowedFiles(candidates.map((c) => c.abs));
    candidates.splice(0, candidates.length, ...candidates.filter((c) => allowed.has(c.abs)));
  }
  if (query.countOnly && !needsStat)
    return { files: [], realPaths: [], count: candidates.length, truncated: false };

  const rows: { row: FileRow; abs: string }[] = [];
  let matched = 0;
  const keepRows = query.countOnly ? 0 : query.limit;
  for (let start = 0; start < candidates.length; start += STAT_CONCURRENCY) {
    if (!query.countOnly && matched > query.limit) break;
    const chunk = candidates.slice(start, start + STAT_CONCURRENCY);
    // lstat: the entry itself, never where a link put in its place since the listing points.
    const stats = await Promise.all(chunk.map((c) => lstat(c.abs).catch(() => undefined)));
    chunk.forEach((candidate, index) => {
      const info = stats[index];
      if (!info?.isFile()) return; // vanished (or replaced) since ripgrep listed it
      if (!sizes.every((filter) => sizeMatches(info.size, filter))) return;
      if (after !== undefined && info.mtimeMs < after) return;
      if (before !== undefined && info.mtimeMs >= before) return;
      matched++;
      if (rows.length < keepRows)
        rows.push({ row: toRow(candidate.display, info.size, info.mtimeMs), abs: candidate.abs });
    });
  }
  rows.sort((a, b) => (a.row.path < b.row.path ? -1 : a.row.path > b.row.path ? 1 : 0));
  const truncated = !query.countOnly && matched > query.limit;
  return {
    files: rows.map((r) => r.row),
    realPaths: rows.map((r) => r.abs),
    count: query.countOnly ? matched : rows.length,
    truncated,
  };
}

function toRow(display: string, size: number, mtimeMs: number): FileRow {
  const ext = path.posix.extname(display);
  return {
    path: display,
    size_bytes: size,
    mtime: Math.floor(mtimeMs / 1000),
    ext: ext.length > 1 ? ext.slice(1) : '',
  };
}

function normalize(line: string): string {
  const slashed = path.sep === '\\' ? line.replaceAll('\\', '/') : line;
  return slashed.startsWith('./') ? slashed.slice(2) : slashed;
}
