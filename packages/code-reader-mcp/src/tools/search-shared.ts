// search_content's options, output shape and answer paging.
import { ToolError, clampInteger, type ToolContext } from '@mcp-workbench/core';
import { z } from 'zod';
import {
  BYTES_PER_TOKEN_CAP,
  fingerprint,
  fitPage,
  makeCursor,
  readCursor,
  staleCursor,
} from '../paging/budget.js';
import { ignoredFromAboveWarning } from '../files/ignored-above.js';
import type { ProjectPaths } from '../project/state.js';
import { checkCursorFiles, checkNewlyRead, stampCursorFiles } from '../search/cursor-stamps.js';
import { DEFAULT_MAX_COUNT, MAX_MAX_COUNT, effectiveMaxCount, outputModeOf } from '../search/options.js';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  ROW_GRACE_MS,
  rowsComplete,
  type SearchRun,
} from '../search/search-content.js';
import {
  SUMMARY_SAMPLES,
  SUMMARY_TOP_FILES,
  commonDirectory,
  groupByFile,
  pagedRowsOf,
  toMatchRow,
  topFiles,
} from '../search/shape.js';
import type { FileCount, SearchMatch, SearchOutcome, SearchQuery } from '../search/types.js';
import { boundedInteger } from '../util/bounded-integer.js';
import type { ToolDeps } from './deps.js';
import { rejectNul } from './file-filters.js';
import { compact, limitsSchema, listOf, render, stringList } from './shared.js';

const MAX_CONTEXT = 50;
const MAX_COUNT_RANGE = `max_count must be an integer from 1 to ${MAX_MAX_COUNT} (larger values are clamped to ${MAX_MAX_COUNT}; omit it for the default ${DEFAULT_MAX_COUNT})`;

const matchRowSchema = z.object({
  file: z.string(),
  line: z.number(),
  column: z.number(),
  text: z.string(),
  before: z.array(z.string()).optional(),
  after: z.array(z.string()).optional(),
});
const fileCountSchema = z.object({ file: z.string(), count: z.number() });

export const searchOptionsInput = {
  query: z.string().min(1),
  case: z.enum(['smart', 'sensitive', 'insensitive']).optional().describe('default smart (rg -S)'),
  fixed_strings: z.boolean().optional(),
  word: z.boolean().optional(),
  multiline: z.boolean().optional(),
  include_globs: stringList.describe('"*.ts"'),
  exclude_globs: stringList,
  hidden: z.boolean().optional(),
  no_ignore: z.boolean().optional(),
  max_filesize: z.string().optional().describe('"500K"'),
  context_before: boundedInteger('context_before', 0, MAX_CONTEXT),
  context_after: boundedInteger('context_after', 0, MAX_CONTEXT),
  // An integer, as declared: the schema never offers a type the server then refuses.
  max_count: z
    .number({ error: MAX_COUNT_RANGE })
    .int({ error: MAX_COUNT_RANGE })
    .min(1, { error: MAX_COUNT_RANGE })
    .optional()
    .describe(`lines per file (rg -m); default ${DEFAULT_MAX_COUNT}, max ${MAX_MAX_COUNT}`),
  timeout_ms: boundedInteger('timeout_ms', 100, MAX_TIMEOUT_MS, `default ${DEFAULT_TIMEOUT_MS}`),
};

export type SearchOptionArgs = {
  query: string;
  case?: 'smart' | 'sensitive' | 'insensitive' | undefined;
  fixed_strings?: boolean | undefined;
  word?: boolean | undefined;
  multiline?: boolean | undefined;
  include_globs?: string | string[] | undefined;
  exclude_globs?: string | string[] | undefined;
  hidden?: boolean | undefined;
  no_ignore?: boolean | undefined;
  max_filesize?: string | undefined;
  context_before?: number | undefined;
  context_after?: number | undefined;
  max_count?: number | undefined;
  timeout_ms?: number | undefined;
  total_only?: boolean | undefined;
  count_only_matches?: boolean | undefined;
  summary_only?: boolean | undefined;
  group_by_file?: boolean | undefined;
  optimize_paths?: boolean | undefined;
};

export const searchOutputShape = {
  total_matches: z
    .number()
    .optional()
    .describe(
      'Occurrences found, every one (as rg --count-matches counts them, within max_count lines per file); ' +
        'absent when the search stopped at its time limit (a warning says so).',
    ),
  files_with_matches: z.number().optional().describe('Files with a match; absent like total_matches.'),
  matches: z.array(matchRowSchema).optional(),
  base_dir: z.string().optional().describe('optimize_paths: the directory every match file is relative to.'),
  files: z
    .array(
      z.object({
        file: z.string(),
        count: z.number(),
        matches: z.array(matchRowSchema.omit({ file: true })),
      }),
    )
    .optional(),
  file_counts: z.array(fileCountSchema).optional(),
  top_files: z.array(fileCountSchema).optional(),
  sample: z.array(z.object({ file: z.string(), line: z.number(), text: z.string() })).optional(),
  truncated: z
    .boolean()
    .describe('Results stopped at the safety cap or timeout, or continue on the next page.'),
  timed_out: z.boolean().optional(),
  cache_hit: z.boolean(),
  next_cursor: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  limits: limitsSchema,
};

export type SearchAnswer = z.infer<z.ZodObject<typeof searchOutputShape>>;

const MAX_FILESIZE = /^\d+[KMG]?$/i;

/** Validates the search options and builds the engine query for the given targets. */
export function searchQueryOf(
  args: SearchOptionArgs,
  targets: string[],
  targetKind: 'roots' | 'files',
  paths: ProjectPaths,
): { query: SearchQuery; warnings: string[] } {
  for (const field of ['query', 'include_globs', 'exclude_globs', 'max_filesize'] as const)
    rejectNul(field, args[field]);
  const mode = outputModeOf(args, args.query);
  const maxCount = effectiveMaxCount(args.max_count);
  if (args.max_filesize !== undefined && !MAX_FILESIZE.test(args.max_filesize)) {
    throw new ToolError('INVALID_ARGUMENT', `max_filesize "${args.max_filesize}" is not a size.`, {
      hint: 'Use a number with an optional K, M or G suffix, e.g. "500K" or "2M".',
    });
  }
  const query: SearchQuery = {
    targets,
    targetKind,
    query: args.query,
    caseMode: args.case ?? 'smart',
    fixedStrings: args.fixed_strings === true,
    word: args.word === true,
    multiline: args.multiline === true,
    includeGlobs: listOf(args.include_globs),
    excludeGlobs: listOf(args.exclude_globs),
    hidden: args.hidden === true,
    noIgnore: args.no_ignore === true,
    ...(args.max_filesize ? { maxFilesize: args.max_filesize } : {}),
    contextBefore: clampInteger('context_before', args.context_before, 0, 0, MAX_CONTEXT),
    contextAfter: clampInteger('context_after', args.context_after, 0, 0, MAX_CONTEXT),
    maxCount: maxCount.value,
    mode,
    denyGlobs: [...paths.denyGlobs],
  };
  const warnings = maxCount.clamped
    ? [`max_count ${String(args.max_count)} was clamped to ${MAX_MAX_COUNT}.`]
    : [];
  for (const field of ['context_before', 'context_after'] as const) {
    const asked = args[field];
    if (asked !== undefined && asked > MAX_CONTEXT)
      warnings.push(`${field} ${asked} was clamped to ${MAX_CONTEXT} lines (the most a search shows).`);
  }
  return { query, warnings };
}

/**
 * Runs a search and shapes one page of the answer for its output mode, within the token budget.
 */
export async function searchAnswer(
  deps: ToolDeps,
  ctx: ToolContext,
  paths: ProjectPaths,
  built: { query: SearchQuery; warnings: string[] },
  options: {
    timeoutMs?: number | undefined;
    cursor?: string | undefined;
    budget: number;
    format: 'toon' | 'json';
    /** The default answer's own text form (undefined: TOON), so pages are cut by what is sent. */
    textOf?: (answer: SearchAnswer) => string | undefined;
    /** Called as the search starts: once its counting ripgrep runs, or for a result already kept. */
    onSearch?: () => void;
  },
) {
  const { query } = built;
  const timeoutMs = clampInteger('timeout_ms', options.timeoutMs, DEFAULT_TIMEOUT_MS, 100, MAX_TIMEOUT_MS);
  const deadline = Date.now() + timeoutMs;
  const run: SearchRun = await deps.search.search(query, {
    timeoutMs,
    signal: ctx.signal,
    isDenied: paths.deniedPredicate(),
    allowedFiles: (files) => paths.allowedFiles(files),
    continuation: options.cursor !== undefined,
    ...(options.onSearch ? { onCounting: options.onSearch } : {}),
  });
  if (run.cacheHit) options.onSearch?.();
  const { outcome } = run;
  // A result is named by its files and their counts (the rows of a page are read when it is shown).
  const fp = () => fingerprintOf(outcome);
  let offset = 0;
  if (options.cursor !== undefined) {
    const cursor = readCursor(options.cursor, run.key);
    if (cursor.h !== fp()) throw staleCursor();
    await checkCursorFiles(outcome);
    offset = cursor.o;
  }
  // The rows this page can show: enough that a full page ends before them (or every row).
  let rowsTimedOut = false;
  if (query.mode !== 'total_only' && query.mode !== 'count_only_matches') {
    const need =
      query.mode === 'summary_only'
        ? { from: 0, textBytes: 0, minRows: SUMMARY_SAMPLES }
        : { from: offset, textBytes: options.budget * BYTES_PER_TOKEN_CAP };
    const read = await deps.search.readRows(query, outcome, need, {
      deadline: Math.max(deadline, Date.now() + ROW_GRACE_MS),
      signal: ctx.signal,
    });
    rowsTimedOut = !read;
    if (options.cursor !== undefined) await checkNewlyRead(outcome);
  }
  const rows = pagedRowsOf(query.mode, outcome);
  // Match rows not read yet: only the modes that page over matches have them.
  const matchRows =
    query.mode === 'matches' || query.mode === 'optimize_paths' || query.mode === 'group_by_file';
  const moreRows = matchRows && !rowsComplete(outcome);
  const timedOut = outcome.timedOut || rowsTimedOut;
  const rowWarnings = rowsTimedOut
    ? [
        `Reading the matching lines stopped at the time limit (timeout_ms ${timeoutMs}) after ${rows.length} of them; pass next_cursor to read on.`,
      ]
    : [];
  const display = memoDisplay(paths);
  const baseWarnings = [...built.warnings, ...outcome.warnings, ...rowWarnings];
  if (outcome.ignoredAbove)
    baseWarnings.push(ignoredFromAboveWarning(outcome.ignoredAbove.map((root) => display(root) || '.')));
  // Long lines are named for the rows a page shows, so a page does not depend on how far rows were read.
  const longLines = new Map((outcome.longLines ?? []).map((long) => [`${long.line}\0${long.file}`, long]));
  const warningsFor = (shown: readonly SearchMatch[]): string[] => {
    const warnings = [...baseWarnings];
    let named = 0;
    for (const row of longLines.size > 0 ? shown : []) {
      const long = longLines.get(`${row.line}\0${row.file}`);
      if (!long || named === 3) continue;
      named++;
      warnings.push(
        `Line ${long.line} of ${display(long.file)} is ${long.bytes} bytes, too long to read whole: ` +
          'only its first 64 KiB were kept (a match past them is shown by its matched text, its column counted in bytes after them).',
      );
    }
    return warnings;
  };
  const limits = { max_count: query.maxCount, max_answer_tokens: options.budget, timeout_ms: timeoutMs };

  const shape = (
    page: readonly (SearchMatch | FileCount)[],
    nextOffset: number | undefined,
  ): SearchAnswer => {
    const body: SearchAnswer = {
      total_matches: outcome.totalMatches,
      files_with_matches: outcome.totalMatches === undefined ? undefined : outcome.fileCounts.length,
      truncated: false,
      cache_hit: run.cacheHit,
      limits,
    };
    if (query.mode === 'matches') {
      body.matches = (page as SearchMatch[]).map((m) => toMatchRow(m, display));
    } else if (query.mode === 'optimize_paths') {
      const matchRows = (page as SearchMatch[]).map((m) => toMatchRow(m, display));
      const base = commonDirectory(matchRows.map((m) => m.file));
      body.base_dir = base;
      body.matches = matchRows.map((m) => ({ ...m, file: base ? m.file.slice(base.length + 1) : m.file }));
    } else if (query.mode === 'group_by_file') {
      const matchRows = (page as SearchMatch[]).map((m) => toMatchRow(m, display));
      const countByDisplay = new Map(outcome.fileCounts.map((c) => [display(c.file), c.count]));
      body.files = groupByFile(matchRows, (file) => countByDisplay.get(file) ?? 0);
    } else if (query.mode === 'count_only_matches') {
      body.file_counts = (page as FileCount[]).map((c) => ({ file: display(c.file), count: c.count }));
    } else if (query.mode === 'summary_only') {
      body.top_files = topFiles(outcome.fileCounts, display, SUMMARY_TOP_FILES);
      body.sample = outcome.matches
        .slice(0, SUMMARY_SAMPLES)
        .map((m) => ({ file: display(m.file), line: m.line, text: m.text }));
    }
    const shown: readonly SearchMatch[] = matchRows
      ? (page as SearchMatch[])
      : query.mode === 'summary_only'
        ? outcome.matches.slice(0, SUMMARY_SAMPLES)
        : [];
    const warnings = warningsFor(shown);
    return compact({
      ...body,
      truncated: outcome.limitHit || timedOut || nextOffset !== undefined,
      timed_out: timedOut ? true : undefined,
      cache_hit: run.cacheHit,
      next_cursor: nextOffset === undefined ? undefined : makeCursor(run.key, nextOffset, fp()),
      warnings: warnings.length > 0 ? warnings : undefined,
      limits,
    });
  };
  const textOf = (answer: SearchAnswer) =>
    (options.format === 'toon' ? options.textOf?.(answer) : undefined) ?? render(answer, options.format);
  const page = await fitPage(
    rows,
    offset,
    options.budget,
    (candidate, hasMore) => textOf(shape(candidate, hasMore ? offset + candidate.length : undefined)),
    moreRows,
  );
  if (page.nextOffset !== undefined) await stampCursorFiles(outcome);
  return shape(page.rows, page.nextOffset);
}

const fingerprints = new WeakMap<SearchOutcome, string>();

/**
 * An outcome's fingerprint (its files and counts never change), made when a cursor needs it and kept:
 * for 33,000 files it cost ~50-90 ms, on calls that issue no cursor (total_only) too.
 */
function fingerprintOf(outcome: SearchOutcome): string {
  let fp = fingerprints.get(outcome);
  if (fp === undefined) {
    fp = fingerprint(outcome.fileCounts.map((c) => [c.file, c.count]));
    fingerprints.set(outcome, fp);
  }
  return fp;
}

function memoDisplay(paths: ProjectPaths): (abs: string) => string {
  const memo = new Map<string, string>();
  return (abs) => {
    let shown = memo.get(abs);
    if (shown === undefined) {
      shown = paths.display(abs);
      memo.set(abs, shown);
    }
    return shown;
  };
}
