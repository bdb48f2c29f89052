import { ToolError, defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { readStructure, withParsedFile } from '../code/parsed-file.js';
import { QUERY_KEYS, applyFilter, commentHits, runQueryString, structureHits } from '../code/query.js';
import { pageSections } from '../paging/sections.js';
import { filePathInput } from './code-shared.js';
import { sourceFile, type ToolDeps } from './deps.js';
import {
  compact,
  continuation,
  continuationOutput,
  formatOf,
  outputFormatSchema,
  pagingInput,
  pagingOf,
} from './shared.js';

const hitSchema = z.object({
  capture: z.string(),
  node_type: z.string(),
  name: z.string(),
  class: z.string().optional(),
  start_line: z.number(),
  end_line: z.number(),
  text: z.string(),
});

export function queryCodeTool(deps: ToolDeps) {
  return defineTool({
    name: 'query_code',
    title: 'Query code with tree-sitter',
    description:
      'Find syntax nodes in one file: query_key, or a tree-sitter query_string such as ' +
      '"(call_expression function: (identifier) @fn)"; give one. filter, comma-separated, all must hold: ' +
      'name=main, name~=^get (RE2 regex), class=…, type=method_definition, text~=TODO, lines>50. Names as in ' +
      'get_code_outline: a method is its own name, its class a column.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      file_path: filePathInput,
      query_key: z.enum(QUERY_KEYS).optional(),
      query_string: z.string().min(1).optional(),
      filter: z.string().optional(),
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: {
      file_path: z.string(),
      language: z.string(),
      query: z.string(),
      count: z.number(),
      results: z.array(hitSchema),
      ...continuationOutput,
    },
    textFormat: formatOf,
    async run(args, ctx) {
      if ((args.query_key === undefined) === (args.query_string === undefined)) {
        throw new ToolError('INVALID_ARGUMENT', 'Give exactly one of query_key and query_string.', {
          hint: `query_key: ${QUERY_KEYS.join(' | ')}; or query_string: a tree-sitter S-expression query.`,
        });
      }
      const { real, shown } = await sourceFile(ctx, deps, args.file_path);
      const key = args.query_key;
      const { hits, language } =
        key !== undefined && key !== 'comments'
          ? await readStructure(ctx.paths, real, shown, ctx.signal).then((read) => ({
              hits: structureHits(read.structure, key),
              language: read.language,
            }))
          : await withParsedFile(
              ctx.paths,
              real,
              shown,
              ({ tree, query, languageId }) => ({
                hits:
                  key === 'comments'
                    ? commentHits(tree)
                    : runQueryString(tree, query, args.query_string as string),
                language: languageId,
              }),
              undefined,
              ctx.signal,
            );
      const results = applyFilter(hits, args.filter);
      const query = args.query_key ?? (args.query_string as string);
      return pageSections({
        ...pagingOf(args, ['query_code', shown, query, args.filter ?? '']),
        sections: { results },
        build: (page, nextCursor) =>
          compact({
            file_path: shown,
            language,
            query,
            count: results.length,
            results: (page.results ?? []) as typeof results,
            ...continuation(nextCursor),
          }),
      });
    },
  });
}
