import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from './deps.js';
import { fitAnswer } from './answer-size.js';
import { readThroughJob } from './read-job.js';
import { CellItemSchema, outPathInput, sheetInput } from './read-schemas.js';

export const readCellsTool = (deps: ExstructToolDeps) =>
  defineTool({
    name: 'exstruct_read_cells',
    title: 'Read specific cells',
    description:
      'Read cells by A1 address (["B3", "J98"]) from the out_path of exstruct_extract; for blocks use ' +
      'exstruct_read_range. Empty cells are listed in missing_cells. Formulas need a verbose extraction.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      addresses: z.array(z.string().min(1)).min(1).max(10_000),
      sheet: sheetInput,
      include_formulas: z.boolean().default(true),
    },
    output: {
      book_name: z.string().optional(),
      sheet_name: z.string(),
      cells: z.array(CellItemSchema),
      missing_cells: z.array(z.string()).describe('Addresses that hold nothing in the output.'),
      warnings: z.array(z.string()),
    },
    async run(args, { paths, signal }) {
      const { op: _op, ...answer } = await readThroughJob(deps, paths, args.out_path, signal, {
        op: 'cells',
        sheet: args.sheet,
        addresses: args.addresses,
        includeFormulas: args.include_formulas,
      });
      return fitAnswer(
        answer,
        `The ${args.addresses.length} cells`,
        'Ask for fewer addresses per call; cells with long texts make big answers.',
      );
    },
  });
