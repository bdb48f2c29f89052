import { z } from 'zod';
import { defineTool, reply } from '@mcp-workbench/core';
import { formatOutput, parseToon } from '@mcp-workbench/core/engine';
import type { ExstructToolDeps } from './deps.js';
import { fitAnswer } from './answer-size.js';
import { readThroughJob } from './read-job.js';
import { outPathInput, sheetInput } from './read-schemas.js';

const range = z.tuple([z.number().int().min(1), z.number().int().min(1)]);

/** Largest max_bytes: a chunk ~ a quarter million tokens, far under what one message may carry. */
const MAX_CHUNK_BYTES = 1_000_000;

export const readJsonChunkTool = (deps: ExstructToolDeps) =>
  defineTool({
    name: 'exstruct_read_json_chunk',
    title: 'Read an extraction output in chunks',
    description:
      'Read the output of exstruct_extract piece by piece so it fits your context. Without sheet/filter/cursor ' +
      'the whole output comes back if it fits max_bytes; otherwise pass `sheet` (required when there are several) ' +
      'and page with `next_cursor` until it is absent. The first page of a sheet carries its other fields ' +
      '(shapes, charts, merged cells, …) and rows; later pages carry rows only. filter.rows and filter.cols are ' +
      '[start, end], 1-based and inclusive (cols: A = 1, works for numeric and letter keys). max_bytes (default ' +
      '50000) bounds the chunk; start at 50000, raise it (e.g. 120000) if pages come back with very few rows, ' +
      'lower it if your context is small. Pass next_cursor back unchanged together with the same sheet and filter. ' +
      'A .toon output is answered in TOON: rows as a table of {cell (A1), v1…vk} lines, each holding k cells of ' +
      'one row from that cell rightwards (null = empty); see the README. ' +
      'For specific cells prefer exstruct_read_range / exstruct_read_cells.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      sheet: sheetInput,
      max_bytes: z
        .number()
        .int()
        .min(200)
        .max(MAX_CHUNK_BYTES)
        .default(50_000)
        .describe(`Most UTF-8 bytes of the returned chunk (default 50000, at most ${MAX_CHUNK_BYTES}).`),
      filter: z
        .object({
          rows: range.optional().describe('[first, last] row numbers, 1-based inclusive, e.g. [1, 200].'),
          cols: range
            .optional()
            .describe('[first, last] column numbers, 1-based inclusive (A = 1), e.g. [1, 10].'),
        })
        .strict()
        .optional(),
      cursor: z
        .string()
        .optional()
        .describe('next_cursor from the previous call (same out_path, sheet and filter).'),
    },
    output: {
      chunk: z
        .string()
        .describe(
          'This chunk: the whole output, or {book_name, sheet_name, sheet}; JSON text, or TOON text when out_path is a .toon file.',
        ),
      next_cursor: z.string().optional().describe('Present while more rows follow; pass it back as cursor.'),
      warnings: z.array(z.string()),
    },
    async run(args, { paths, signal }) {
      const { op: _op, ...result } = await readThroughJob(deps, paths, args.out_path, signal, {
        op: 'chunk',
        sheet: args.sheet,
        maxBytes: args.max_bytes,
        filter: args.filter,
        cursor: args.cursor,
      });
      // One row (or a sheet's other fields) larger than max_bytes still comes whole: bound it too.
      fitAnswer(
        result.chunk,
        'This chunk',
        'A single row or the sheet fields are this large: narrow with filter.cols (or filter.rows), or read cells with exstruct_read_range.',
      );
      const { format, ...answer } = result;
      const paging = { next_cursor: answer.next_cursor ?? null, warnings: answer.warnings };
      // The text block embeds the chunk as a document (not as an escaped string), paging fields first:
      // TOON for a TOON output file (encoded whole by the official encoder), JSON otherwise.
      if (format === 'toon') {
        return reply(answer, formatOutput({ ...paging, chunk: parseToon(answer.chunk) }, 'toon'));
      }
      const head = JSON.stringify(paging);
      return reply(answer, `${head.slice(0, -1)},"chunk":${answer.chunk}}`);
    },
  });
