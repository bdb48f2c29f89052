import { clampInteger, defineTool, reply } from '@mcp-workbench/core';
import { z } from 'zod';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, listFiles } from '../files/list-files.js';
import { answerBudget } from '../paging/budget.js';
import { OUTPUT_MODE_FLAGS } from '../search/options.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { fileFilterInput, fileQueryOf } from './file-filters.js';
import {
  searchAnswer,
  searchOptionsInput,
  searchOutputShape,
  searchQueryOf,
  type SearchAnswer,
} from './search-shared.js';
import { SEARCH_ROWS_HELP, searchText } from './search-text.js';
import { compact, formatOf, outputFormatSchema, pagingInput } from './shared.js';

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
      'summary_only, group_by_file, optimize_paths). Example: {"extensions": ["py"], "changed_within": "7d", "query": "TODO"}. ' +
      'The rows are search_content\'s; two more notes say "# searched N files" and, when file_limit cut the ' +
      'list, "# file list cut at file_limit N". ' +
      SEARCH_ROWS_HELP,
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
      const format = formatOf(args);
      // The default text: search_content's rows, after notes on the files searched.
      const leadNotes = [
        `searched ${head.files_found} files`,
        ...(head.files_truncated ? [`file list cut at file_limit ${limit}`] : []),
      ];
      const textOf = (answer: SearchAnswer) =>
        format === 'toon' ? searchText(answer, leadNotes) : undefined;
      if (listing.realPaths.length === 0) {
        // The same fields as an answer of files without a match (an empty matches or files list).
        const rows = {
          matches: built.query.mode === 'matches' ? [] : undefined,
          files: built.query.mode === 'group_by_file' ? [] : undefined,
        };
        const none = compact({
          ...head,
          ...rows,
          total_matches: 0,
          files_with_matches: 0,
          truncated: false,
          cache_hit: false,
          limits: { max_count: built.query.maxCount, file_limit: limit },
        });
        const text = textOf(none);
        return text === undefined ? none : reply(none, text);
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
          format,
          textOf,
        },
        head,
      );
      const limits: Record<string, number> = { ...answer.limits, file_limit: limit };
      const whole = { ...head, ...answer, limits };
      const text = textOf(whole);
      return text === undefined ? whole : reply(whole, text);
    },
  });
}
