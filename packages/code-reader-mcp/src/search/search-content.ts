import { ToolError } from '@mcp-workbench/core/engine';
import { runRipgrep, ripgrepFailure, warningLines } from '../rg/run.js';
import { sortByPath } from '../util/path-order.js';
import { hashKey } from '../paging/budget.js';
import { SnapshotStore } from '../paging/snapshots.js';
import { StampedCache } from './cache.js';
import { MAX_MAX_COUNT } from './options.js';
import { rootsIgnoredFromAbove } from '../files/ignored-above.js';
import { CountCollector } from './collect.js';
import { escapedExtra, type UnescapedLine } from './match-lines.js';
import { searchArgs, searchFileFilterArgs } from './rg-args.js';
import { runInBatches } from './rg-batches.js';
import {
  FIRST_BATCH_MATCHES,
  MAX_BATCH_JSON,
  MAX_LONG_LINES,
  batchAt,
  readBatch,
  readLines,
  readsLines,
  sameFiles,
  textBytesFrom,
  type LinesRead,
  type ReadAhead,
} from './row-batches.js';
import type { FileCount, SearchOutcome, SearchQuery } from './types.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 120_000;
/** Searches over more files than this are not cached (stamping them would cost more than it saves). */
export const MAX_STAMPED_FILES = 20_000;
/**
 * max_count is ripgrep's per-file `-m N` in every mode; answers are paged, so no global cap applies
 * except this one, which only bounds memory: rows past it are not listed (the totals count them all).
 */
export const MAX_COLLECTED_MATCHES = 200_000;
/**
 * Rows are read at least this long after the count, even when the count used up the call's time: a
 * search cut short by timeout_ms still shows the matches of the files it counted.
 */
export const ROW_GRACE_MS = 1_000;

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
  /** A cursor's next page: a result kept from its first page serves it, checked or not (issue 25). */
  continuation?: boolean;
  /** Called once the counting ripgrep has started (not for a cached result). */
  onCounting?: () => void;
}

/** What a page needs of the rows: those from `from` whose text passes `textBytes`, or `minRows` rows. */
export interface RowNeed {
  from: number;
  /** Rows from `from` on until their text (a lower bound of any page's bytes) passes this. */
  textBytes: number;
  /** At least this many rows in all (summary samples). */
  minRows?: number;
}

/** True when the outcome's rows cover every counted file (or stopped at the memory cap). */
export function rowsComplete(outcome: SearchOutcome): boolean {
  return outcome.limitHit || outcome.rowFiles >= outcome.fileCounts.length;
}

/**
 * Runs searches on ripgrep. A search is one counting run over the whole tree (`rg --count-matches`,
 * every file's count in parallel, without printing a line), then `rg --json` over just the files whose
 * rows a page shows, in path order, as pages ask for them. Printing every matching line as JSON and
 * reading it all, as before, cost 2-4× ripgrep's own time on common words, for a page of ~100 rows.
 * Results stay cached until a searched file changes (small trees), and the last few are kept for their
 * cursors whatever the tree's size.
 */
export class SearchEngine {
  private readonly cache = new StampedCache<SearchOutcome>();
  private readonly recent = new SnapshotStore<SearchOutcome>();
  /** A first batch of rows started as the search counted (see readAhead), until readRows takes it. */
  private readonly ahead = new WeakMap<SearchOutcome, ReadAhead>();
  /** Row reads of an outcome run one at a time (a cached outcome may serve two calls at once). */
  private readonly reading = new WeakMap<SearchOutcome, Promise<unknown>>();

  /** `maxCollected`: the memory cap on kept rows; `maxStamped`: on cached searches' files (tests lower them). */
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
    const cached = await this.cache.get(key);
    if (cached) return { outcome: cached, cacheHit: true, key };
    const kept = options.continuation ? this.recent.get(key) : undefined;
    if (kept) return { outcome: kept, cacheHit: true, key };
    const startedAt = Date.now();
    const { outcome, searched } = await this.count(query, options);
    if (!outcome.timedOut) {
      const roots = query.targetKind === 'roots' ? query.targets : [];
      // Past MAX_STAMPED_FILES (or when ripgrep did not say) the result is not cached: then no listing
      // of the files runs at all.
      const files =
        searched === undefined || searched > this.maxStamped
          ? Promise.resolve(undefined)
          : this.searchedFiles(query, options);
      this.cache.set(key, outcome, files, startedAt, roots);
    }
    this.recent.set(key, outcome);
    return { outcome, cacheHit: false, key };
  }

  /** Every file's match count: one parallel ripgrep run that prints counts, not lines. */
  private async count(
    query: SearchQuery,
    options: SearchEngineOptions,
  ): Promise<{ outcome: SearchOutcome; searched: number | undefined }> {
    // One root names every file once; overlapping roots or batches of named files may name one twice.
    const counter = new CountCollector(query.targetKind === 'roots' && query.targets.length === 1);
    const countedAt = Date.now();
    const deadline = Date.now() + options.timeoutMs;
    const result = await runInBatches(query, ['--stats', ...searchArgs({ ...query, mode: 'total_only' })], {
      deadline,
      separator: '\0',
      spool: true,
      ...(options.signal ? { signal: options.signal } : {}),
      onLine: (record) => void counter.push(record),
      afterRun: () => counter.endRun(),
      ...(options.onCounting ? { onSpawn: options.onCounting } : {}),
    });
    const failure = ripgrepFailure(result, 'query');
    if (failure) throw failure;
    // ripgrep searches files in parallel, so its order varies between runs: sorted by path, equal
    // searches give equal answers and cursors line up.
    const sorted = sortByPath(counter.counts, (c) => c.file);
    const ahead = result.timedOut ? undefined : this.readAhead(query, sorted, deadline, options.signal);
    const real = await options.allowedFiles?.(sorted.map((c) => c.file));
    const denied = (file: string) => options.isDenied?.(file) === true || (real !== undefined && !real(file));
    const fileCounts = sorted.filter((c) => !denied(c.file));
    const warnings = result.exitCode === 2 ? warningLines(result.stderr) : [];
    // ripgrep stops reading a file at max_count matching lines (-m). The counts are of occurrences, so a
    // file may have stopped there when its count and the matching lines of all files reach max_count.
    const mayStop = counter.matchedLines === undefined || counter.matchedLines >= query.maxCount;
    const capped = mayStop ? fileCounts.filter((c) => c.count >= query.maxCount).length : 0;
    if (capped > 0) {
      warnings.push(
        `${capped} file${capped === 1 ? '' : 's'} may have reached max_count (${query.maxCount} matching lines per file), where ripgrep stops counting: raise max_count (up to ${MAX_MAX_COUNT}) to count further.`,
      );
    }
    // No file searched at all: say so when ignore files above the roots hid them (ripgrep honours those).
    const ignoredAbove =
      counter.searchedFiles === 0 && query.targetKind === 'roots' && !query.noIgnore
        ? await rootsIgnoredFromAbove(query.targets, searchFileFilterArgs(query), options.signal)
        : [];
    // Totals are true or absent: a search cut short by its time limit has seen only part of the files.
    if (result.timedOut) {
      warnings.push(
        `The search stopped at its time limit (timeout_ms ${options.timeoutMs}): total_matches and files_with_matches are left out because ripgrep did not see every file; raise timeout_ms or narrow the search.`,
      );
    }
    const outcome: SearchOutcome = {
      matches: [],
      rowFiles: 0,
      fileCounts,
      ...(result.timedOut ? {} : { totalMatches: fileCounts.reduce((sum, c) => sum + c.count, 0) }),
      limitHit: false,
      timedOut: result.timedOut,
      countedAt,
      warnings,
      ...(ignoredAbove.length > 0 ? { ignoredAbove } : {}),
    };
    if (ahead) this.ahead.set(outcome, ahead);
    return { outcome, searched: counter.searchedFiles };
  }

  /**
   * Starts reading the first page's first batch of rows while the files found are checked against the
   * policy (allowedFiles: a file system call per folder, ~10 ms for 1,000 files): the batch the first
   * readRows picks when no file is left out. It takes the run only if its batch has the same files.
   */
  private readAhead(
    query: SearchQuery,
    sorted: readonly FileCount[],
    deadline: number,
    signal: AbortSignal | undefined,
  ): ReadAhead | undefined {
    const pages =
      query.mode === 'matches' || query.mode === 'optimize_paths' || query.mode === 'group_by_file';
    if (!pages || !readsLines(query) || sorted.length === 0) return undefined;
    const { batch } = batchAt(sorted, 0, FIRST_BATCH_MATCHES, () => Number.MAX_SAFE_INTEGER);
    const stop = new AbortController();
    const cancel = () => stop.abort();
    signal?.addEventListener('abort', cancel, { once: true });
    const read = readLines(query, batch, {
      deadline: Math.max(deadline, Date.now() + ROW_GRACE_MS),
      signal: stop.signal,
    });
    // Not taken (another batch, or no page read): stopped, and its end not waited for.
    read.catch(() => undefined).finally(() => signal?.removeEventListener('abort', cancel));
    return { files: batch.map((c) => c.file), read, stop };
  }

  /**
   * Reads the rows a page needs into the outcome (kept there for the next pages): `rg --json` over the
   * next counted files in path order, in batches that grow, until `need` is met or every file is read.
   * False when the time ran out first (the rows read so far stay; a cut batch is dropped whole).
   */
  async readRows(
    query: SearchQuery,
    outcome: SearchOutcome,
    need: RowNeed,
    options: { deadline: number; signal?: AbortSignal },
  ): Promise<boolean> {
    const previous = this.reading.get(outcome) ?? Promise.resolve();
    const reading = previous.then(() => this.readRowsNow(query, outcome, need, options));
    this.reading.set(
      outcome,
      reading.catch(() => undefined),
    );
    return reading;
  }

  private async readRowsNow(
    query: SearchQuery,
    outcome: SearchOutcome,
    need: RowNeed,
    options: { deadline: number; signal?: AbortSignal },
  ): Promise<boolean> {
    let ahead = this.ahead.get(outcome);
    this.ahead.delete(outcome);
    try {
      return await this.readBatches(query, outcome, need, options, () => {
        const taken = ahead;
        ahead = undefined;
        return taken;
      });
    } finally {
      ahead?.stop.abort();
    }
  }

  private async readBatches(
    query: SearchQuery,
    outcome: SearchOutcome,
    need: RowNeed,
    options: { deadline: number; signal?: AbortSignal },
    takeAhead: () => ReadAhead | undefined,
  ): Promise<boolean> {
    let target = FIRST_BATCH_MATCHES;
    /** What this call's batches read: matches counted in their files, their rows' text and ripgrep's JSON. */
    let countedRead = 0;
    let bytesRead = 0;
    let jsonRead = 0;
    /** Lines whose escapes jsonRead leaves out, counted once a batch's size depends on them. */
    const unescaped: { file: string; lines: UnescapedLine[] }[] = [];
    const onJson = (bytes: number, file?: string, lines?: UnescapedLine[]) => {
      jsonRead += bytes;
      if (file !== undefined && lines !== undefined && lines.length > 0) unescaped.push({ file, lines });
    };
    for (;;) {
      const have = textBytesFrom(outcome.matches, need.from, need.textBytes);
      if (rowsComplete(outcome) || (have > need.textBytes && outcome.matches.length >= (need.minRows ?? 0)))
        return true;
      // The next batch: twice the last, or more when the text per match read so far says the page needs
      // more (and a quarter; short lines: one run, not three), as long as that is no more of ripgrep's
      // JSON than MAX_BATCH_JSON by the JSON per match so far (minified lines: ~40 KB a match).
      let capOf = () => Number.MAX_SAFE_INTEGER;
      if (countedRead > 0) {
        const doubled = target * 2;
        let cap: number | undefined;
        capOf = () => {
          for (const { file, lines } of unescaped.splice(0)) jsonRead += escapedExtra(file, lines);
          return (cap ??= Math.max(
            doubled,
            Math.floor(MAX_BATCH_JSON / Math.max(1, jsonRead / countedRead)),
          ));
        };
        const estimate =
          bytesRead > 0 ? Math.ceil(((need.textBytes - have) / (bytesRead / countedRead)) * 1.25) : doubled;
        // The cap can only lower an estimate above the doubled batch.
        target = estimate > doubled ? Math.max(doubled, Math.min(estimate, capOf())) : doubled;
      }
      target = Math.max(target, (need.minRows ?? 0) - outcome.matches.length);
      const picked = batchAt(outcome.fileCounts, outcome.rowFiles, target, capOf);
      target = picked.target;
      const { batch, counted } = picked;
      const rowsBefore = outcome.matches.length;
      // The time is up already: no ripgrep is started only to be killed (a race a tiny run could win).
      if (Date.now() >= options.deadline) return false;
      const ahead = takeAhead();
      let started: Promise<LinesRead> | undefined;
      if (ahead && sameFiles(ahead.files, batch)) started = ahead.read;
      else ahead?.stop.abort();
      const read = await readBatch(query, batch, options, onJson, started);
      if (read === undefined) return false;
      for (const warning of read.warnings)
        if (!outcome.warnings.includes(warning)) outcome.warnings.push(warning);
      const { rows } = read;
      const room = this.maxCollected - outcome.matches.length;
      if (rows.length > room) {
        outcome.matches.push(...rows.slice(0, room));
        outcome.limitHit = true;
        outcome.warnings.push(
          `Listed the first ${this.maxCollected} matching lines (files in path order); total_matches and files_with_matches count them all. Narrow the search or lower max_count to see the rest.`,
        );
      } else outcome.matches.push(...rows);
      outcome.rowFiles += batch.length;
      countedRead += counted;
      bytesRead += textBytesFrom(outcome.matches, rowsBefore, Number.MAX_SAFE_INTEGER);
      const long = [...(outcome.longLines ?? []), ...read.clippedLines].slice(0, MAX_LONG_LINES);
      if (long.length > 0) outcome.longLines = long;
    }
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
