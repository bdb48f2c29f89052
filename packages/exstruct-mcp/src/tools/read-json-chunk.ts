import { z } from 'zod';
import { defineTool, reply } from '@mcp-workbench/core';
import { formatOutput, parseToon } from '@mcp-workbench/core/engine';
import type { ExstructToolDeps } from './deps.js';
import { fitAnswer } from './answer-size.js';
import { readThroughJob } from './read-job.js';
import { outPathInput, sheetInput, MAX_CHUNK_BYTES } from './read-schemas.js';

const range = z.tuple([z.number().int().min(1), z.number().int().min(1)]);

/** Largest max_bytes: a chunk ~ a quarter million tokens, far under what one message may carry. */

export const readJsonChunkTool = (deps: ExstructToolDeps) =>
  defineTool({
    name: 'exstruct_read_json_chunk',
    title: 'Read an extraction output in chunks',
    description:
      'Read the out_path of exstruct_extract in chunks of at most max_bytes: the whole output if it fits, ' +
      'else pass sheet and call again with cursor = next_cursor (same sheet and filter) until none comes. A ' +
      "sheet's first chunks also hold its shapes, charts, merges…. filter.rows/cols: [first, last], 1-based " +
      'and inclusive (A = 1). Raise max_bytes if chunks hold few rows. A .toon output answers in TOON, rows ' +
      'as {cell,v1…vk} lines (k cells rightwards from cell). For known cells use exstruct_read_range/read_cells.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      sheet: sheetInput,
      max_bytes: z.number().int().min(200).max(MAX_CHUNK_BYTES).default(50_000),
      filter: z.object({ rows: range.optional(), cols: range.optional() }).strict().optional(),
      cursor: z.string().optional(),
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
