import { ToolError } from '@mcp-workbench/core/engine';
import { runRipgrep, ripgrepFailure, warningLines, type RgRunOptions, type RgRunResult } from '../rg/run.js';
import { comparePaths } from '../util/path-order.js';
import { hashKey } from '../paging/budget.js';
import { StampedCache } from './cache.js';
import { CountCollector, JsonMatchCollector } from './collect.js';
import { searchArgs, searchFileFilterArgs } from './rg-args.js';
import type { SearchOutcome, SearchQuery } from './types.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 120_000;
/** Searches over more files than this are not cached (stamping them would cost more than it saves). */
export const MAX_STAMPED_FILES = 20_000;
/**
 * max_count is ripgrep's per-file `-m N` in every mode; answers are paged, so no global cap applies
 * except this one, which only bounds memory. Past it, the first matching lines in path order are kept
 * (so every page and cursor is the same on every run) and the rest only counted, in the same run.
 */
export const MAX_COLLECTED_MATCHES = 200_000;

export interface SearchRun {
  outcome: SearchOutcome;
  cacheHit: boolean;
  key: string;
}

export interface SearchEngineOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Paths a walk may find but the server denies (checked again on each result). */
  isDenied?: (foundPath: string) => boolean;
  /** Of the files found, those the policy allows by their real location (checked on every result). */
  allowedFiles?: (files: string[]) => Promise<(file: string) => boolean>;
  /** Skip the cache lookup (continuation of a cursor re-validates through the fingerprint instead). */
  bypassCache?: boolean;
}

/** Runs searches on ripgrep and remembers results until a searched file changes. */
export class SearchEngine {
  private readonly cache = new StampedCache<SearchOutcome>();

  /** `maxCollected`: the memory cap on kept matches; `maxStamped`: on cached searches' files (tests lower them). */
  constructor(
    private readonly maxCollected = MAX_COLLECTED_MATCHES,
    private readonly maxStamped = MAX_STAMPED_FILES,
  ) {}

  /** The cache key: every field of the query (all of them change the result). */
  keyOf(query: SearchQuery): string {
    return hashKey(query);
  }

  async search(query: SearchQuery, options: SearchEngineOptions): Promise<SearchRun> {
    if (query.query === '') {
      throw new ToolError('INVALID_ARGUMENT', 'query is empty.', {
        hint: 'Give the text or regular expression to search for.',
      });
    }
    const key = this.keyOf(query);
    if (!options.bypassCache) {
      const cached = await this.cache.get(key);
      if (cached) return { outcome: cached, cacheHit: true, key };
    }
    const startedAt = Date.now();
    const { outcome, searched } = await this.runRipgrep(query, options);
    if (!outcome.timedOut) {
      const roots = query.targetKind === 'roots' ? query.targets : [];
      // Past MAX_STAMPED_FILES the result is not cached: then no listing of the files runs at all.
      const files =
        searched > this.maxStamped ? Promise.resolve(undefined) : this.searchedFiles(query, options);
      this.cache.set(key, outcome, files, startedAt, roots);
    }
    return { outcome, cacheHit: false, key };
  }

  /** The outcome, and how many files ripgrep searched (0 when it did not say: count modes). */
  private async runRipgrep(
    query: SearchQuery,
    options: SearchEngineOptions,
  ): Promise<{ outcome: SearchOutcome; searched: number }> {
    const counting = query.mode === 'total_only' || query.mode === 'count_only_matches';
    const deadline = Date.now() + options.timeoutMs;
    const collect = async (mode: 'json' | 'count') => {
      const collector = new JsonMatchCollector(query.contextAfter, this.maxCollected);
      const counter = new CountCollector();
      const args = searchArgs(mode === 'count' ? { ...query, mode: 'total_only' } : query);
      const result = await runInBatches(query, args, {
        deadline,
        ...(mode === 'count' ? { separator: '\0' as const } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(mode === 'json' ? { onLongRecord: (record: Buffer) => collector.pushLong(record) } : {}),
        onLine: (line, clipped) => {
          if (mode === 'json') return collector.push(line, clipped);
          counter.push(line);
          return true;
        },
      });
      return { collector, counts: counter.counts, result };
    };
    // One run: over the memory cap the collector keeps the first matches in path order (the same on
    // every run) and counts every match, so the totals stay true (issue 13, bug 6).
    const { collector, counts, result } = await collect(counting ? 'count' : 'json');
    const totals = { counts: counting ? counts : collector.fileCounts(), complete: !result.stopped };
    const failure = ripgrepFailure(result, 'query');
    if (failure) throw failure;
    const found = totals.counts;
    const real = await options.allowedFiles?.(found.map((c) => c.file));
    const denied = (file: string) => options.isDenied?.(file) === true || (real !== undefined && !real(file));
    // ripgrep searches files in parallel, so its order varies between runs: sort by path (lines stay
    // in file order) so that equal searches give equal answers and cursors line up.
    const allowedCounts = found.filter((c) => !denied(c.file)).sort((a, b) => comparePaths(a.file, b.file));
    const matches = counting ? [] : collector.matchesInOrder().filter((m) => !denied(m.file));
    const limitHit = !counting && collector.overflowed;
    const warnings = result.exitCode === 2 ? warningLines(result.stderr) : [];
    const longLines = collector.clippedLines.filter((l) => !denied(l.file)).slice(0, 3);
    if (limitHit) {
      warnings.push(
        `Listed the first ${this.maxCollected} matching lines (files in path order); total_matches and files_with_matches count them all. Narrow the search or lower max_count to see the rest.`,
      );
    }
    // Totals are true or absent: a search cut short by its time limit has seen only part of the files.
    const complete = totals.complete && !result.timedOut;
    if (!complete) {
      warnings.push(
        `The search stopped at its time limit (timeout_ms ${options.timeoutMs}): total_matches and files_with_matches are left out because ripgrep did not see every file; raise timeout_ms or narrow the search.`,
      );
    }
    const outcome: SearchOutcome = {
      matches,
      fileCounts: allowedCounts,
      ...(complete ? { totalMatches: allowedCounts.reduce((sum, c) => sum + c.count, 0) } : {}),
      limitHit,
      timedOut: result.timedOut,
      warnings,
      ...(longLines.length > 0 ? { longLines } : {}),
    };
    return { outcome, searched: collector.searchedFiles };
  }

  /**
   * The files a search looked at, for the cache stamp: the named files, or `rg --files` with the same
   * filters. Runs after the answer is sent; a listing that is too large leaves the result uncached.
   */
  private async searchedFiles(
    query: SearchQuery,
    options: SearchEngineOptions,
  ): Promise<string[] | undefined> {
    if (query.targetKind === 'files') return query.targets;
    const files: string[] = [];
    const result = await runRipgrep(
      ['--files', '--null', ...searchFileFilterArgs(query), '--', ...query.targets],
      {
        cwd: query.targets[0] as string,
        timeoutMs: options.timeoutMs,
        separator: '\0',
        onLine: (line) => {
          files.push(line);
          return files.length <= this.maxStamped;
        },
      },
    );
    if (result.stopped || result.timedOut || result.exitCode === 2) return undefined;
    return files;
  }
}

/**
 * Most bytes of file paths handed to one ripgrep process: well below the system's command-line limit
 * (Linux ~2 MiB, macOS 1 MiB; Windows 32,767 characters), so a long file list never fails with E2BIG.
 */
export const MAX_PATH_BYTES_PER_RUN = process.platform === 'win32' ? 24_000 : 256 * 1024;

/** Splits a file list into runs that each fit one command line (MAX_PATH_BYTES_PER_RUN). */
export function pathBatches(files: readonly string[], maxBytes = MAX_PATH_BYTES_PER_RUN): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = Buffer.byteLength(file) + 1;
    if (current.length > 0 && bytes + size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Runs a search whose arguments end with `--` and the targets. Named files go in batches that each fit
 * a command line, one ripgrep after the other, all within one deadline; a reader that stops, a time
 * limit or a cancel ends the whole run. The results read as one run's.
 */
async function runInBatches(
  query: SearchQuery,
  args: string[],
  options: Omit<RgRunOptions, 'cwd' | 'timeoutMs'> & { deadline: number },
): Promise<RgRunResult> {
  const fixed = args.slice(0, args.length - query.targets.length);
  const batches = query.targetKind === 'files' ? pathBatches(query.targets) : [query.targets];
  const cwd = query.targetKind === 'roots' ? (query.targets[0] as string) : process.cwd();
  let stderr = '';
  let exitCode: number | null = 1;
  for (const batch of batches) {
    const timeoutMs = Math.max(1, options.deadline - Date.now());
    const result = await runRipgrep([...fixed, ...batch], { ...options, cwd, timeoutMs });
    if (result.stderr) stderr = stderr ? `${stderr}\n${result.stderr}` : result.stderr;
    // 0 (found) wins over 1 (nothing in this batch); 2 (an error) wins over both.
    if (result.exitCode === 2 || exitCode === 2) exitCode = 2;
    else if (result.exitCode === 0) exitCode = 0;
    if (result.stopped || result.timedOut) return { ...result, exitCode, stderr };
  }
  return { exitCode, stderr, timedOut: false, stopped: false };
}
