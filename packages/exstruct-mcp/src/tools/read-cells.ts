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
      'Read specific cells by A1 address (e.g. ["B3", "J98"]) from an exstruct_extract output. Use it when you ' +
      'already know which cells you need; prefer exstruct_read_range for blocks. Cells with neither value nor ' +
      'formula are also listed in missing_cells. Formulas come when the output was extracted with mode "verbose".',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      out_path: outPathInput,
      addresses: z.array(z.string().min(1)).min(1).max(10_000).describe('A1 addresses, e.g. ["A1", "C7"].'),
      sheet: sheetInput,
      include_formulas: z
        .boolean()
        .default(true)
        .describe('Add formulas when the output has them (verbose mode).'),
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
