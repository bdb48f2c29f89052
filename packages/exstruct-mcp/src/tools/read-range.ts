import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from './deps.js';
import { fitAnswer } from './answer-size.js';
import { readThroughJob } from './read-job.js';
import { CellItemSchema, outPathInput, sheetInput } from './read-schemas.js';

export const readRangeTool = (deps: ExstructToolDeps) =>
  defineTool({
    name: 'exstruct_read_range',
    title: 'Read a cell range',
    description:
      'Read a rectangular A1 range (e.g. "B2:D20") from an exstruct_extract output, cell by cell, without ' +
      'paging through chunks. Each cell comes as {cell: "B2", value}; include_empty=false leaves out blank ' +
      'cells. include_formulas adds each cell formula when the output was extracted with mode "verbose" ' +
      '(otherwise a warning says so). max_cells (default 10000) guards against huge ranges.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      sheet: sheetInput,
      range: z.string().min(1).describe('A1 range such as "A1:C10" (a single cell "B3" also works).'),
      include_formulas: z.boolean().default(false).describe('Add formulas (needs a verbose extraction).'),
      include_empty: z.boolean().default(true).describe('Also list blank cells (value null).'),
      max_cells: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .default(10_000)
        .describe('Refuse ranges larger than this.'),
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
