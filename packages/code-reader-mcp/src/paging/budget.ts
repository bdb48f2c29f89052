import {
  ToolError,
  clampInteger,
  decodeCursor,
  encodeCursor,
  utf8ByteLength,
} from '@mcp-workbench/core/engine';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LineCounts } from './line-counts.js';
import { boundedInteger } from '../util/bounded-integer.js';

/** Answers stay under this many o200k tokens unless the caller asks for more. */
export const DEFAULT_ANSWER_TOKENS = 8_000;
/** Clients reject bigger tool results; no answer goes above this. */
export const MAX_ANSWER_TOKENS = 20_000;
const MIN_ANSWER_TOKENS = 500;

export const answerBudgetSchema = boundedInteger(
  'max_answer_tokens',
  MIN_ANSWER_TOKENS,
  MAX_ANSWER_TOKENS,
  `default ${DEFAULT_ANSWER_TOKENS}, ${MIN_ANSWER_TOKENS}–${MAX_ANSWER_TOKENS}`,
);

/** The `next_cursor` of the previous page (every paged answer says so in its own note). */
export const cursorSchema = z.string().optional();

export function answerBudget(value: number | undefined): number {
  return clampInteger(
    'max_answer_tokens',
    value,
    DEFAULT_ANSWER_TOKENS,
    MIN_ANSWER_TOKENS,
    MAX_ANSWER_TOKENS,
  );
}

export interface Page<T> {
  rows: T[];
  /** Index (in the full list) of the first row after this page, or undefined when nothing is left. */
  nextOffset: number | undefined;
}

/**
 * Picks the longest run of rows from `offset` whose rendered answer fits in `budget` tokens. `render`
 * builds the complete answer text for a candidate page (so headers and the cursor are counted too).
 * The byte length bounds the token count from above, so small answers are never tokenized.
 */
export async function fitPage<T>(
  rows: readonly T[],
  offset: number,
  budget: number,
  render: (page: readonly T[], hasMore: boolean) => string,
  /** More rows exist after `rows` (not read yet): the last page of `rows` is not the last one. */
  moreAfter = false,
): Promise<Page<T>> {
  // A non-zero offset comes from a cursor, and a cursor is only issued while rows are left after it:
  // one at or past the end was forged or belongs to another result.
  if (offset > 0 && offset >= rows.length && !moreAfter) throw foreignCursor();
  const rest = rows.slice(offset);
  const tokens = new LineCounts();
  let count = firstCandidate(rest.length, budget * BYTES_PER_TOKEN_CAP, (n) =>
    utf8ByteLength(render(rest.slice(0, n), n < rest.length || moreAfter)),
  );
  // Each pass shrinks the page (by the measured overshoot), so this ends after a few passes.
  for (;;) {
    const page = rest.slice(0, count);
    const hasMore = count < rest.length || moreAfter;
    const text = render(page, hasMore);
    const bytes = utf8ByteLength(text);
    if (bytes <= budget) return done(page, offset, count, hasMore);
    // Far too long: shrink by bytes before tokenizing (tokenizing 50,000 rows to keep 200 costs
    // half a second). Answers average well under BYTES_PER_TOKEN_CAP bytes per token, so this never
    // cuts a page below what fits, except for text of very long tokens (long runs of spaces).
    if (bytes > budget * BYTES_PER_TOKEN_CAP && count > 1) {
      count = Math.max(1, Math.floor((count * budget * BYTES_PER_TOKEN_CAP) / bytes));
      continue;
    }
    const used = await tokens.count(text);
    // Tokens bound what a model reads; bytes bound what the transport carries. Text of very long
    // tokens (runs of one character) could be megabytes within a token budget: cap bytes too.
    const withinBytes = bytes <= budget * MAX_BYTES_PER_TOKEN;
    if (used <= budget && withinBytes) return done(page, offset, count, hasMore);
    if (count <= 1 && !withinBytes) {
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `A single result is ${bytes} bytes, more than the answer may carry (${budget * MAX_BYTES_PER_TOKEN} bytes for a budget of ${budget} tokens).`,
        {
          hint: 'Narrow the request: fewer context lines, a smaller range, or part of a long line (extract_code_section start_column/end_column).',
        },
      );
    }
    if (!withinBytes) {
      count = Math.max(1, Math.floor((count * budget * MAX_BYTES_PER_TOKEN * 0.9) / bytes));
      continue;
    }
    if (count <= 1) {
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `A single result needs ${used} tokens, more than the answer budget of ${budget}.`,
        {
          hint: 'Narrow the request: fewer context lines, a smaller range, or part of a long line (extract_code_section start_column/end_column); or raise max_answer_tokens if it is below 20000.',
        },
      );
    }
    count = Math.max(1, Math.min(count - 1, Math.floor((count * budget * 0.92) / used)));
  }
}

/** Rows rendered to estimate a row's size before the first full candidate page. */
const PROBE_ROWS = 128;

/**
 * The first page to try: rendering all 180,000 rows of a big result to keep 300 would cost seconds
 * (and block the event loop), so the page size is estimated from the first rows and then doubled
 * until its text passes `maxBytes` (or every row is in). The fitting loop shrinks it from there, as
 * it would from the whole list: the pages are the same, the work is proportional to a page.
 */
function firstCandidate(total: number, maxBytes: number, bytesOf: (count: number) => number): number {
  if (total <= PROBE_ROWS) return total;
  const probe = bytesOf(PROBE_ROWS);
  if (probe > maxBytes) return PROBE_ROWS;
  let count = Math.min(total, Math.ceil((PROBE_ROWS * maxBytes) / Math.max(1, probe)));
  while (count < total && bytesOf(count) <= maxBytes) count = Math.min(total, count * 2);
  return count;
}

/**
 * More bytes per o200k token than answers (code, paths, JSON, TOON) have on average: no page is longer
 * than this many bytes per token of budget (unless it is a single row).
 */
export const BYTES_PER_TOKEN_CAP = 8;
/**
 * Hard cap on answer bytes per token of budget: 20,000 tokens → at most 640 KB, far under the 10 MiB
 * a stdio client accepts in one message, whatever the content.
 */
export const MAX_BYTES_PER_TOKEN = 32;

function done<T>(page: T[], offset: number, count: number, hasMore: boolean): Page<T> {
  return { rows: page, nextOffset: hasMore ? offset + count : undefined };
}

const pageCursorSchema = z.object({ k: z.string(), o: z.number().int().min(0), h: z.string() });
export type PageCursor = z.infer<typeof pageCursorSchema>;

/** A cursor names the request (key), where to continue (offset) and what the rows were (hash). */
export function makeCursor(key: string, offset: number, fingerprint: string): string {
  return encodeCursor({ k: key.slice(0, 24), o: offset, h: fingerprint });
}

export function readCursor(cursor: string, key: string): PageCursor {
  const parsed = decodeCursor(cursor, pageCursorSchema);
  if (parsed.k !== key.slice(0, 24)) {
    throw new ToolError('INVALID_ARGUMENT', 'The cursor belongs to a different request.', {
      hint: 'Repeat the same arguments as the call that returned next_cursor, adding only cursor.',
    });
  }
  return parsed;
}

/** A cursor whose position does not exist in the result it was passed with. */
export function foreignCursor(): ToolError {
  return new ToolError('INVALID_ARGUMENT', 'The cursor does not belong to this result.', {
    hint: 'Pass next_cursor exactly as returned, with the same arguments; or call again without cursor.',
  });
}

export function staleCursor(): ToolError {
  return new ToolError(
    'CONFLICT',
    'The files changed since the cursor was issued; the pages no longer line up.',
    {
      hint: 'Call again without cursor to start over on the current files.',
    },
  );
}

/** A short, stable fingerprint of a list of results, used to detect a cursor over changed data. */
export function fingerprint(items: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(items)).digest('base64url').slice(0, 12);
}

export function hashKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
