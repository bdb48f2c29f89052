import { clampInteger, defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  listFiles,
  type FileRow,
  type ListFilesQuery,
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
import { pathsOf, type ToolDeps } from './deps.js';
import {
  compact,
  formatOf,
  limitsSchema,
  listOf,
  outputFormatSchema,
  pagingInput,
  render,
  stringList,
} from './shared.js';
import type { ProjectPaths } from '../project/state.js';

export const fileFilterInput = {
  roots: z
    .array(z.string())
    .optional()
    .describe(
      'Directories to list (default: the project directory, i.e. the first root or set_project_path).',
    ),
  pattern: z
    .string()
    .optional()
    .describe('Regular expression tested against the file name, e.g. "^test_.*\\\\.py$".'),
  glob: stringList.describe(
    'Include glob(s) relative to each root, e.g. "src/**/*.ts" (ripgrep glob syntax).',
  ),
  types: stringList.describe('ripgrep file types, e.g. "ts", "py", "rust" (rg --type-list).'),
  extensions: stringList.describe('Extensions without the dot, e.g. ["ts", "tsx"].'),
  exclude: stringList.describe('Exclude glob(s), e.g. "**/__tests__/**".'),
  depth: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .optional()
    .describe('Maximum depth; 1 = files directly in the root.'),
  hidden: z.boolean().optional().describe('Include hidden files and directories (default false).'),
  no_ignore: z
    .boolean()
    .optional()
    .describe('Ignore .gitignore/.ignore rules (default false: they are honoured).'),
  size: stringList.describe(
    'Size filter(s), all must hold: "+10k" (≥10 kB), "-1mi" (≤1 MiB); units b, k, m, g, ki, mi, gi.',
  ),
  changed_within: z
    .string()
    .optional()
    .describe('Modified within a duration ("30min", "2h", "3d", "1w") or since a date ("2024-05-01").'),
  changed_before: z.string().optional().describe('Modified before a duration ago or a date.'),
};

export type FileFilterArgs = {
  roots?: string[] | undefined;
  pattern?: string | undefined;
  glob?: string | string[] | undefined;
  types?: string | string[] | undefined;
  extensions?: string | string[] | undefined;
  exclude?: string | string[] | undefined;
  depth?: number | undefined;
  hidden?: boolean | undefined;
  no_ignore?: boolean | undefined;
  size?: string | string[] | undefined;
  changed_within?: string | undefined;
  changed_before?: string | undefined;
};

/** Turns the shared filter arguments into an engine query (resolving every root through the policy). */
export async function fileQueryOf(
  args: FileFilterArgs,
  paths: ProjectPaths,
  limit: number,
  countOnly: boolean,
): Promise<ListFilesQuery> {
  const inputs = args.roots && args.roots.length > 0 ? args.roots : [await paths.baseDir()];
  const roots = [];
  for (const input of inputs) {
    const dir = await paths.resolve(input, { mustExist: true, kind: 'directory' });
    roots.push({ dir, display: paths.display(dir) });
  }
  const isDenied = paths.deniedPredicate();
  return compact({
    roots,
    pattern: args.pattern,
    globs: listOf(args.glob),
    types: listOf(args.types),
    extensions: listOf(args.extensions),
    exclude: listOf(args.exclude),
    depth: args.depth,
    hidden: args.hidden,
    noIgnore: args.no_ignore,
    size: listOf(args.size),
    changedWithin: args.changed_within,
    changedBefore: args.changed_before,
    limit,
    countOnly,
    denyGlobs: paths.denyGlobs,
    isDenied,
  });
}

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
      const key = hashKey(['list_files', query.roots, { ...query, isDenied: undefined }]);
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
        render(shape(candidate, hasMore ? offset + candidate.length : undefined), format),
      );
      if (page.nextOffset !== undefined) deps.listings.set(key, { files: rows, limitHit });
      return shape(page.rows, page.nextOffset);
    },
  });
}
