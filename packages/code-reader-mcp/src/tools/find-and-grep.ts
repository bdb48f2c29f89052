import { clampInteger, defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, listFiles } from '../files/list-files.js';
import { answerBudget } from '../paging/budget.js';
import { OUTPUT_MODE_FLAGS } from '../search/options.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { fileFilterInput, fileQueryOf } from './file-filters.js';
import { searchAnswer, searchOptionsInput, searchOutputShape, searchQueryOf } from './search-shared.js';
import { formatOf, outputFormatSchema, pagingInput } from './shared.js';

export function findAndGrepTool(deps: ToolDeps) {
  const modeFlags = Object.fromEntries(
    OUTPUT_MODE_FLAGS.map((flag) => [flag, z.boolean().optional()]),
  ) as Record<(typeof OUTPUT_MODE_FLAGS)[number], z.ZodOptional<z.ZodBoolean>>;
  return defineTool({
    name: 'find_and_grep',
    title: 'Find files, then search them',
    description:
      'Two steps in one call: pick files with the list_files filters (roots, extensions, glob, types, pattern, exclude, ' +
      'depth, size, changed_within, …; file_limit caps them) and search their contents for query with the ' +
      'search_content options (case, word, context, max_count, and at most one of total_only, count_only_matches, ' +
      'summary_only, group_by_file, optimize_paths). Example: {"extensions": ["py"], "changed_within": "7d", "query": "TODO"}.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      ...fileFilterInput,
      file_limit: z
        .number()
        .optional()
        .describe(`Most files to search (default ${DEFAULT_LIST_LIMIT}, max ${MAX_LIST_LIMIT}).`),
      ...searchOptionsInput,
      ...modeFlags,
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: {
      files_found: z.number().describe('Files the filters selected (and that were searched).'),
      files_truncated: z.boolean().describe('More files matched the filters than file_limit.'),
      ...searchOutputShape,
    },
    textFormat: formatOf,
    async run(args, ctx) {
      const paths = pathsOf(ctx, deps);
      const limit = clampInteger('file_limit', args.file_limit, DEFAULT_LIST_LIMIT, 1, MAX_LIST_LIMIT);
      // Validate the search options before walking the tree, so a bad call fails fast.
      searchQueryOf(args, [], 'files', paths);
      const listing = await listFiles({
        ...(await fileQueryOf(args, paths, limit, false)),
        signal: ctx.signal,
      });
      const built = searchQueryOf(args, listing.realPaths, 'files', paths);
      const head = { files_found: listing.files.length, files_truncated: listing.truncated };
      if (listing.realPaths.length === 0) {
        return {
          ...head,
          total_matches: 0,
          files_with_matches: 0,
          truncated: false,
          cache_hit: false,
          limits: { max_count: built.query.maxCount, file_limit: limit },
        };
      }
      const answer = await searchAnswer(
        deps,
        ctx,
        paths,
        built,
        {
          timeoutMs: args.timeout_ms,
          cursor: args.cursor,
          budget: answerBudget(args.max_answer_tokens),
          format: formatOf(args),
        },
        head,
      );
      const limits: Record<string, number> = { ...answer.limits, file_limit: limit };
      return { ...head, ...answer, limits };
    },
  });
}
