import { clampInteger, defineTool, reply } from '@mcp-workbench/core';
import { z } from 'zod';
import { boundedInteger } from '../util/bounded-integer.js';
import {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  listFiles,
  statFileRows,
  type FileRow,
} from '../files/list-files.js';
import {
  answerBudget,
  fingerprint,
  fitPage,
  hashKey,
  makeCursor,
  readCursor,
  staleCursor,
} from '../paging/budget.js';
import { ignoredFromAboveWarning } from '../files/ignored-above.js';
import { prepareLoopCounting } from '../tokens/counter.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { fileFilterInput, fileQueryOf } from './file-filters.js';
import { compact, formatOf, limitsSchema, outputFormatSchema, pagingInput, render } from './shared.js';
import { joinLines, note, rowPath } from './text-rows.js';

/**
 * File rows are short values in several columns; in o200k a tab between them costs fewer tokens than a comma
 * (3 to 4 points of the saving over JSON, measured by bench/tokens.bench.mjs). The TOON header declares it.
 */
const LIST_TOON = { delimiter: '\t' } as const;

// size_bytes and mtime are in every row of a JSON answer, a TOON table with those fields and
// structuredContent; a text page of paths alone is listed without stat.
const fileRowSchema = z.object({
  path: z.string().describe('Relative to the project directory (or to its root).'),
  size_bytes: z.number().optional(),
  mtime: z.number().optional().describe('Last modification, Unix time in seconds.'),
  ext: z.string().describe('Extension without the dot ("" when none).'),
});

const DETAIL_FIELDS = ['size_bytes', 'mtime', 'ext'] as const;
type DetailField = (typeof DETAIL_FIELDS)[number];

interface ListAnswer {
  count: number;
  files?: FileRow[];
  truncated: boolean;
  next_cursor?: string;
  warnings?: string[];
  limits: Record<string, number>;
}

/**
 * The default text: one path per line, as `rg --files` prints them, then notes — the file count when
 * the page does not show them all, why the list stops, the cursor. With `fields`, the TOON table of the
 * path and those fields (tab-delimited).
 */
function listText(answer: ListAnswer, fields: readonly DetailField[], limitHit: boolean): string {
  const files = answer.files ?? [];
  if (fields.length > 0) {
    const rows = files.map((f): Record<string, string | number> =>
      // Rows asked with size_bytes or mtime were stat'ed (run: statRows).
      Object.fromEntries([['path', f.path], ...fields.map((k) => [k, f[k] ?? 0] as const)]),
    );
    return render(compact({ ...answer, files: rows, limits: undefined }), 'toon', LIST_TOON);
  }
  const lines = files.map((f) => rowPath(f.path));
  if (answer.count !== files.length || files.length === 0) lines.push(note(`${answer.count} files`));
  if (answer.next_cursor !== undefined) lines.push(note(`next_cursor: ${answer.next_cursor}`));
  if (limitHit) lines.push(note(`truncated: more files than limit ${answer.limits.limit}`));
  for (const warning of answer.warnings ?? []) lines.push(note(warning));
  return joinLines(lines);
}

/** What a cursor checks: the listing's paths (sizes and times may be stat'ed later, or not at all). */
function fingerprintOf(rows: readonly FileRow[]): string {
  return fingerprint(rows.map((row) => row.path));
}

const warningsOf = (ignoredAbove: string[] | undefined) =>
  ignoredAbove ? [ignoredFromAboveWarning(ignoredAbove)] : undefined;

export function listFilesTool(deps: ToolDeps) {
  return defineTool({
    name: 'list_files',
    title: 'List files',
    description:
      'List files (rg --files: honours .gitignore), one root-relative path per line. Filters combine; ' +
      'count_only gives just the number; fields adds size_bytes/mtime/ext columns.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      ...fileFilterInput,
      limit: boundedInteger(
        'limit',
        1,
        MAX_LIST_LIMIT,
        `default ${DEFAULT_LIST_LIMIT}, max ${MAX_LIST_LIMIT}`,
      ),
      count_only: z.boolean().optional(),
      fields: z.array(z.enum(DETAIL_FIELDS)).optional(),
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: {
      count: z
        .number()
        .describe('Files that matched (all of them for count_only; else the rows kept, ≤ limit).'),
      files: z.array(fileRowSchema).optional(),
      truncated: z
        .boolean()
        .describe('More files matched than limit, or the rows continue on the next page.'),
      next_cursor: z.string().optional(),
      warnings: z
        .array(z.string())
        .optional()
        .describe('Why nothing was found, when ignore files above hid it.'),
      limits: limitsSchema,
    },
    textFormat: formatOf,
    textOptions: LIST_TOON,
    async run(args, ctx) {
      // A page of paths is cut by its tokens: the tokenizer loads on the event loop while ripgrep walks.
      if (args.count_only !== true) prepareLoopCounting();
      const format = formatOf(args);
      const limit = clampInteger('limit', args.limit, DEFAULT_LIST_LIMIT, 1, MAX_LIST_LIMIT);
      const budget = answerBudget(args.max_answer_tokens);
      const paths = pathsOf(ctx, deps);
      const query = await fileQueryOf(args, paths, limit, args.count_only === true);
      const limits = { limit, max_answer_tokens: budget };
      if (args.count_only) {
        const result = await listFiles({ ...query, signal: ctx.signal });
        return compact({
          count: result.count,
          truncated: false,
          warnings: warningsOf(result.ignoredAbove),
          limits,
        });
      }
      const key = hashKey([
        'list_files',
        query.roots,
        { ...query, isDenied: undefined, allowedFiles: undefined },
      ]);
      const fields = [...new Set(args.fields ?? [])];
      // Who reads sizes and times: the JSON answer, a table with those fields, structuredContent.
      const statRows = format === 'json' || fields.some((f) => f !== 'ext') || ctx.structuredOutput === true;
      const list = () => listFiles({ ...query, statRows, signal: ctx.signal });
      let offset = 0;
      let listing: { files: FileRow[]; realPaths: string[]; limitHit: boolean; ignoredAbove?: string[] };
      if (args.cursor !== undefined) {
        const cursor = readCursor(args.cursor, key);
        offset = cursor.o;
        const snapshot = deps.listings.get(key);
        if (snapshot) listing = snapshot;
        else {
          const fresh = await list();
          listing = { files: fresh.files, realPaths: fresh.realPaths, limitHit: fresh.truncated };
          if (fingerprintOf(listing.files) !== cursor.h) throw staleCursor();
        }
      } else {
        const result = await list();
        listing = {
          files: result.files,
          realPaths: result.realPaths,
          limitHit: result.truncated,
          ...(result.ignoredAbove ? { ignoredAbove: result.ignoredAbove } : {}),
        };
      }
      // A page listed for paths alone, continued as JSON (or with fields): its rows get their stat now.
      if (statRows) await statFileRows(listing.files, listing.realPaths, ctx.signal);
      const { files: rows, limitHit } = listing;
      const fp = fingerprintOf(rows);
      const shape = (page: readonly FileRow[], nextOffset: number | undefined) =>
        compact({
          count: rows.length,
          files: [...page],
          truncated: limitHit || nextOffset !== undefined,
          next_cursor: nextOffset === undefined ? undefined : makeCursor(key, nextOffset, fp),
          warnings: warningsOf(listing.ignoredAbove),
          limits,
        });
      const textOf = (answer: ListAnswer) =>
        format === 'toon' ? listText(answer, fields, limitHit) : render(answer, format);
      const page = await fitPage(rows, offset, budget, (candidate, hasMore) =>
        textOf(shape(candidate, hasMore ? offset + candidate.length : undefined)),
      );
      if (page.nextOffset !== undefined) deps.listings.set(key, listing);
      const answer = shape(page.rows, page.nextOffset);
      return format === 'toon' ? reply(answer, textOf(answer)) : answer;
    },
  });
}
