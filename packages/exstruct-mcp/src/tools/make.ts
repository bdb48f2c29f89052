import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { conflictDefaultText } from './conflict-text.js';
import { onServerThread, type ExstructToolDeps } from './deps.js';
import { loadEditEngine } from './load-edit-engine.js';
import {
  commonEditInput,
  commonEditOptions,
  opsInput,
  patchOutputShape,
  resolveOutput,
  shapeResult,
} from './patch-output.js';

export function makeTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_make',
    title: 'Create a workbook',
    description:
      'Create a workbook at out_path (.xlsx/.xlsm) from ops, as exstruct_patch applies them, e.g. ' +
      '[{"op":"set_range_values","sheet":"Sheet1","range":"A1:B2","values":[["Month","Sales"],["Jan",120]]}]. ' +
      'It starts with one empty sheet, `sheet` (default "Sheet1"); add_sheet adds more. ' +
      conflictDefaultText(deps.onConflict, 'An existing file is kept and {name}_1… written'),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      out_path: z.string().min(1),
      ops: opsInput.default([]).describe('The ops of exstruct_patch.'),
      sheet: z.string().optional(),
      ...commonEditInput,
    },
    output: patchOutputShape,
    async run(args, { paths }) {
      return onServerThread(deps, async () => {
        const { parseOps, runMake } = await loadEditEngine();
        const ops = parseOps(args.ops);
        const output = await resolveOutput(paths, args.out_path);
        const result = await runMake({
          output,
          ops,
          // Unset: an existing file is kept and {stem}_1… written (overwrite only when asked).
          onConflict: args.on_conflict ?? deps.onConflict,
          notOwned: 'exstruct_make replaces no file without on_conflict',
          ...(args.sheet === undefined ? {} : { sheet: args.sheet }),
          ...commonEditOptions(args, paths),
        });
        return shapeResult(result);
      });
    },
  });
}
