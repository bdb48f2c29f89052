import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from './deps.js';
import { fitAnswer } from './answer-size.js';
import { readThroughJob } from './read-job.js';
import { CellValueSchema, outPathInput, sheetInput } from './read-schemas.js';

export const readFormulasTool = (deps: ExstructToolDeps) =>
  defineTool({
    name: 'exstruct_read_formulas',
    title: 'Read formulas',
    description:
      'List the formulas of a sheet (or of an A1 range) from an exstruct_extract output made with mode ' +
      '"verbose" (only verbose outputs carry formulas_map; otherwise the answer is empty with a warning telling ' +
      "you to re-extract). include_values adds each formula cell's cached value as Excel last computed it.",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      sheet: sheetInput,
      range: z.string().min(1).optional().describe('Only formulas inside this A1 range, e.g. "J2:J201".'),
      include_values: z.boolean().default(false).describe('Add the cached value of each formula cell.'),
    },
    output: {
      book_name: z.string().optional(),
      sheet_name: z.string(),
      range: z.string().optional(),
      formulas: z.array(
        z.object({ cell: z.string(), formula: z.string(), value: CellValueSchema.optional() }),
      ),
      warnings: z.array(z.string()),
    },
    async run(args, { paths, signal }) {
      const { op: _op, ...answer } = await readThroughJob(deps, paths, args.out_path, signal, {
        op: 'formulas',
        sheet: args.sheet,
        range: args.range,
        includeValues: args.include_values,
      });
      return fitAnswer(
        answer,
        'The formulas',
        'Pass a smaller range; a sheet of long formulas makes a big answer.',
      );
    },
  });
