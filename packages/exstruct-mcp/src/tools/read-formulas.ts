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
      'List the formulas of a sheet, or of an A1 range, from the out_path of an exstruct_extract in mode ' +
      'verbose (other modes keep none). include_values adds the value Excel last computed.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      sheet: sheetInput,
      range: z.string().min(1).optional(),
      include_values: z.boolean().default(false),
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
