import { ToolError } from '@mcp-workbench/core/engine';
import { runRipgrep, ripgrepFailure, warningLines } from '../rg/run.js';
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
 * except this one, which only bounds memory. A search that reaches it runs again with `--sort path`
 * so that the kept prefix (and so every page and cursor) is the same on every run.
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
  allowedFiles?: (files: string[]) => Promise<Set<string>>;
  /** Skip the cache lookup (continuation of a cursor re-validates through the fingerprint instead). */
  bypassCache?: boolean;
}

/** Runs searches on ripgrep and remembers results until a searched file changes. */
export class SearchEngine {
  private readonly cache = new StampedCache<SearchOutcome>();

  /** `maxCollected`: the memory cap on kept matches (tests lower it). */
  constructor(private readonly maxCollected = MAX_COLLECTED_MATCHES) {}

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
    const outcome = await this.runRipgrep(query, options);
    if (!outcome.timedOut) {
      const roots = query.targetKind === 'roots' ? query.targets : [];
      this.cache.set(key, outcome, this.searchedFiles(query, options), startedAt, roots);
    }
    return { outcome, cacheHit: false, key };
  }

  private async runRipgrep(query: SearchQuery, options: SearchEngineOptions): Promise<SearchOutcome> {
    const counting = query.mode === 'total_only' || query.mode === 'count_only_matches';
    const run = async (sorted: boolean) => {
      const collector = new JsonMatchCollector(query.contextAfter, this.maxCollected);
      const counter = new CountCollector();
      const args = searchArgs(query);
      const result = await runRipgrep(sorted ? ['--sort', 'path', ...args] : args, {
        cwd: query.targetKind === 'roots' ? (query.targets[0] as string) : process.cwd(),
        timeoutMs: options.timeoutMs,
        ...(counting ? { separator: '\0' as const } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        onLine: (line, clipped) => {
          if (!counting) return collector.push(line, clipped);
          counter.push(line);
          return true;
        },
      });
      return { collector, counts: counter.counts, result };
    };
    let { collector, counts, result } = await run(false);
    if (result.stopped) ({ collector, counts, result } = await run(true));
    const failure = ripgrepFailure(result, 'query');
    if (failure) throw failure;
    const found = counting ? counts : collector.fileCounts();
    const real = await options.allowedFiles?.(found.map((c) => c.file));
    const denied = (file: string) =>
      options.isDenied?.(file) === true || (real !== undefined && !real.has(file));
    // ripgrep searches files in parallel, so its order varies between runs: sort by path (lines stay
    // in file order) so that equal searches give equal answers and cursors line up.
    const allowedCounts = found.filter((c) => !denied(c.file)).sort((a, b) => compareText(a.file, b.file));
    const matches = counting
      ? []
      : collector.matches
          .filter((m) => !denied(m.file))
          .sort((a, b) => compareText(a.file, b.file) || a.line - b.line);
    const limitHit = !counting && result.stopped;
    const warnings = result.exitCode === 2 ? warningLines(result.stderr) : [];
    const longLines = collector.clippedLines.filter((l) => !denied(l.file)).slice(0, 3);
    if (limitHit) {
      warnings.push(
        `Stopped after ${this.maxCollected} matching lines (files in path order); narrow the search or lower max_count.`,
      );
    }
    return {
      matches,
      fileCounts: allowedCounts,
      totalMatches: allowedCounts.reduce((sum, c) => sum + c.count, 0),
      limitHit,
      timedOut: result.timedOut,
      warnings,
      ...(longLines.length > 0 ? { longLines } : {}),
    };
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
          return files.length <= MAX_STAMPED_FILES;
        },
      },
    );
    if (result.stopped || result.timedOut || result.exitCode === 2) return undefined;
    return files;
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
