import { ToolError, defineTool, reply } from '@mcp-workbench/core';
import { z } from 'zod';
import { answerBudget } from '../paging/budget.js';
import { OUTPUT_MODE_FLAGS } from '../search/options.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { searchAnswer, searchOptionsInput, searchOutputShape, searchQueryOf } from './search-shared.js';
import { prepareLoopCounting } from '../tokens/counter.js';
import { searchText } from './search-text.js';
import { formatOf, outputFormatSchema, pagingInput } from './shared.js';

// The five output modes: what each does, and that they exclude each other, is said once, in the description.
const modeFlagsInput = Object.fromEntries(
  OUTPUT_MODE_FLAGS.map((flag) => [flag, z.boolean().optional()]),
) as Record<(typeof OUTPUT_MODE_FLAGS)[number], z.ZodOptional<z.ZodBoolean>>;

export function searchContentTool(deps: ToolDeps) {
  return defineTool({
    name: 'search_content',
    title: 'Search file contents',
    description:
      'Search file contents with ripgrep: query is a Rust regex (fixed_strings: literal); roots or files, not ' +
      "both. Rows as rg -n prints them: path:line:text, context path-line-text, the path only on a file's first " +
      'row. Overview: total_only, count_only_matches (per file) or summary_only; group_by_file (rg --heading) and ' +
      'optimize_paths (paths after a base_dir) reshape. At most one of these five.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      roots: z.array(z.string()).optional(),
      files: z.array(z.string()).optional(),
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
        // A page of rows is cut by its tokens: the tokenizer loads on the event loop, idle while
        // ripgrep searches (counter.ts), once ripgrep runs.
        ...(args.total_only === true ? {} : { onSearch: prepareLoopCounting }),
      });
      const text = format === 'toon' ? searchText(answer) : undefined;
      return text === undefined ? answer : reply(answer, text);
    },
  });
}
