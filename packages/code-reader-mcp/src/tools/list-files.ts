import { clampInteger, defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, listFiles, type FileRow } from '../files/list-files.js';
import {
  answerBudget,
  fingerprint,
  fitPage,
  hashKey,
  makeCursor,
  readCursor,
  staleCursor,
} from '../paging/budget.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { fileFilterInput, fileQueryOf } from './file-filters.js';
import { compact, formatOf, limitsSchema, outputFormatSchema, pagingInput, render } from './shared.js';

/**
 * File rows are short values in several columns; in o200k a tab between them costs fewer tokens than a comma
 * (3 to 4 points of the saving over JSON, measured by bench/tokens.bench.mjs). The TOON header declares it.
 */
const LIST_TOON = { delimiter: '\t' } as const;

const fileRowSchema = z.object({
  path: z.string().describe('Relative to the project directory (or to its root).'),
  size_bytes: z.number(),
  mtime: z.number().describe('Last modification, Unix time in seconds.'),
  ext: z.string().describe('Extension without the dot ("" when none).'),
});

export function listFilesTool(deps: ToolDeps) {
  return defineTool({
    name: 'list_files',
    title: 'List files',
    description:
      'List files under the project (ripgrep --files: fast, honours .gitignore) with size, mtime and extension. ' +
      'Narrow with extensions ["ts"], glob "src/**", types, pattern (regex on the name), exclude, depth, size "+10k", ' +
      'changed_within "2d". Use count_only:true to just count. Rows are root-relative; a long list comes in pages ' +
      '(pass next_cursor as cursor). Default limit 2000 files, max 10000.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      ...fileFilterInput,
      limit: z
        .number()
        .optional()
        .describe(`Most files to return (default ${DEFAULT_LIST_LIMIT}, max ${MAX_LIST_LIMIT}).`),
      count_only: z.boolean().optional().describe('Return only the number of matching files.'),
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
      limits: limitsSchema,
    },
    textFormat: formatOf,
    textOptions: LIST_TOON,
    async run(args, ctx) {
      const format = formatOf(args);
      const limit = clampInteger('limit', args.limit, DEFAULT_LIST_LIMIT, 1, MAX_LIST_LIMIT);
      const budget = answerBudget(args.max_answer_tokens);
      const paths = pathsOf(ctx, deps);
      const query = await fileQueryOf(args, paths, limit, args.count_only === true);
      const limits = { limit, max_answer_tokens: budget };
      if (args.count_only) {
        const result = await listFiles({ ...query, signal: ctx.signal });
        return { count: result.count, truncated: false, limits };
      }
      const key = hashKey([
        'list_files',
        query.roots,
        { ...query, isDenied: undefined, allowedFiles: undefined },
      ]);
      let offset = 0;
      let rows: FileRow[] | undefined;
      let limitHit = false;
      if (args.cursor !== undefined) {
        const cursor = readCursor(args.cursor, key);
        offset = cursor.o;
        const snapshot = deps.listings.get(key);
        if (snapshot) {
          rows = snapshot.files;
          limitHit = snapshot.limitHit;
        } else {
          const fresh = await listFiles({ ...query, signal: ctx.signal });
          if (fingerprint(fresh.files) !== cursor.h) throw staleCursor();
          rows = fresh.files;
          limitHit = fresh.truncated;
        }
      } else {
        const result = await listFiles({ ...query, signal: ctx.signal });
        rows = result.files;
        limitHit = result.truncated;
      }
      const fp = fingerprint(rows);
      const shape = (page: readonly FileRow[], nextOffset: number | undefined) =>
        compact({
          count: rows.length,
          files: [...page],
          truncated: limitHit || nextOffset !== undefined,
          next_cursor: nextOffset === undefined ? undefined : makeCursor(key, nextOffset, fp),
          limits,
        });
      const page = await fitPage(rows, offset, budget, (candidate, hasMore) =>
        render(shape(candidate, hasMore ? offset + candidate.length : undefined), format, LIST_TOON),
      );
      if (page.nextOffset !== undefined) deps.listings.set(key, { files: rows, limitHit });
      return shape(page.rows, page.nextOffset);
    },
  });
}
