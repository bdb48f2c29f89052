import { ToolError, defineTool, reply } from '@mcp-workbench/core';
import { z } from 'zod';
import { answerBudget } from '../paging/budget.js';
import { OUTPUT_MODE_FLAGS } from '../search/options.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { searchAnswer, searchOptionsInput, searchOutputShape, searchQueryOf } from './search-shared.js';
import { SEARCH_ROWS_HELP, searchText } from './search-text.js';
import { formatOf, outputFormatSchema, pagingInput } from './shared.js';

const modeFlagsInput = Object.fromEntries(
  OUTPUT_MODE_FLAGS.map((flag) => [flag, z.boolean().optional()]),
) as Record<(typeof OUTPUT_MODE_FLAGS)[number], z.ZodOptional<z.ZodBoolean>>;

modeFlagsInput.total_only = z.boolean().optional().describe('Only the total number of matches.');
modeFlagsInput.count_only_matches = z.boolean().optional().describe('Match counts per file.');
modeFlagsInput.summary_only = z
  .boolean()
  .optional()
  .describe('Top files by matches plus a few sample lines.');
modeFlagsInput.group_by_file = z.boolean().optional().describe('Matches grouped under their file.');
modeFlagsInput.optimize_paths = z
  .boolean()
  .optional()
  .describe('Matches with paths relative to their common directory (base_dir).');

export function searchContentTool(deps: ToolDeps) {
  return defineTool({
    name: 'search_content',
    title: 'Search file contents',
    description:
      'Search code with ripgrep: give query (regex; fixed_strings:true for literal text) and optionally roots ' +
      '(directories) or files, include_globs ["*.ts"], case, word, context_before/context_after. Returns matching ' +
      'lines with root-relative path, line and text (plus merged context lines). ' +
      SEARCH_ROWS_HELP +
      ' For an overview first use ' +
      'total_only, count_only_matches or summary_only; group_by_file / optimize_paths reshape the list. These five ' +
      'flags are mutually exclusive (set at most one). max_count (default 1000, max 10000) caps matching lines per file (rg -m). ' +
      'Repeated identical searches come from a cache (cache_hit) until a searched file changes.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      roots: z
        .array(z.string())
        .optional()
        .describe('Directories to search (default: the project directory). Not with files.'),
      files: z.array(z.string()).optional().describe('Search exactly these files. Not with roots.'),
      ...searchOptionsInput,
      ...modeFlagsInput,
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: searchOutputShape,
    textFormat: formatOf,
    async run(args, ctx) {
      if (args.roots && args.files) {
        throw new ToolError('INVALID_ARGUMENT', 'roots and files are mutually exclusive.', {
          hint: 'Pass roots (directories to search) or files (exact files), not both.',
        });
      }
      const paths = pathsOf(ctx, deps);
      const targets: string[] = [];
      const kind = args.files ? 'files' : 'roots';
      if (args.files) {
        if (args.files.length === 0) {
          throw new ToolError('INVALID_ARGUMENT', 'files is empty.', {
            hint: 'List at least one file, or pass roots.',
          });
        }
        for (const file of args.files) {
          const real = await paths.resolve(file, { mustExist: true, kind: 'file' });
          if (!targets.includes(real)) targets.push(real); // the same file twice is searched once
        }
      } else {
        const inputs = args.roots && args.roots.length > 0 ? args.roots : [await paths.baseDir()];
        for (const root of inputs) {
          const real = await paths.resolve(root, { mustExist: true, kind: 'directory' });
          if (!targets.includes(real)) targets.push(real);
        }
      }
      const built = searchQueryOf(args, targets, kind, paths);
      const format = formatOf(args);
      const answer = await searchAnswer(deps, ctx, paths, built, {
        timeoutMs: args.timeout_ms,
        cursor: args.cursor,
        budget: answerBudget(args.max_answer_tokens),
        format,
        textOf: searchText,
      });
      const text = format === 'toon' ? searchText(answer) : undefined;
      return text === undefined ? answer : reply(answer, text);
    },
  });
}
