import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from './deps.js';
import { fitAnswer } from './answer-size.js';
import { readThroughJob } from './read-job.js';
import { CellItemSchema, MAX_RANGE_CELLS, outPathInput, sheetInput } from './read-schemas.js';

export const readRangeTool = (deps: ExstructToolDeps) =>
  defineTool({
    name: 'exstruct_read_range',
    title: 'Read a cell range',
    description:
      'Read the cells of an A1 range ("B2:D20" or "B3") from the out_path of exstruct_extract as ' +
      '{cell, value}, without paging. Formulas need a verbose extraction. A range over max_cells is refused.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      sheet: sheetInput,
      range: z.string().min(1),
      include_formulas: z.boolean().default(false),
      include_empty: z.boolean().default(true).describe('List blank cells too (value null).'),
      max_cells: z.number().int().min(1).max(MAX_RANGE_CELLS).default(10_000),
    },
    output: {
      book_name: z.string().optional(),
      sheet_name: z.string(),
      range: z.string().describe('The range read, normalised (e.g. "A1:C10").'),
      cells: z.array(CellItemSchema),
      warnings: z.array(z.string()),
    },
    async run(args, { paths, signal }) {
      const { op: _op, ...answer } = await readThroughJob(deps, paths, args.out_path, signal, {
        op: 'range',
        sheet: args.sheet,
        range: args.range,
        includeFormulas: args.include_formulas,
        includeEmpty: args.include_empty,
        maxCells: args.max_cells,
      });
      return fitAnswer(
        answer,
        `The range ${answer.range}`,
        'Read a smaller range (fewer rows or columns); cells with long texts make big answers.',
      );
    },
  });
