import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { policyAllows } from '../output/output-path.js';
import { parseOps } from '../patch/parse-ops.js';
import { runMake } from '../patch/run-make.js';
import type { ExstructToolDeps } from './deps.js';
import { commonEditInput, opsInput, patchOutputShape, resolveOutput, shapeResult } from './patch-output.js';

export function makeTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_make',
    title: 'Create a workbook',
    description:
      'Create a new .xlsx/.xlsm workbook at out_path and fill it with ops (the same ops as exstruct_patch). ' +
      'It starts with one empty sheet named "Sheet1" (or `sheet`); add more with add_sheet. Example ops: ' +
      '[{"op":"set_range_values","sheet":"Sheet1","range":"A1:B2","values":[["Month","Sales"],["Jan",120]]}, ' +
      '{"op":"set_bold","sheet":"Sheet1","range":"A1:B1"}]. If out_path exists, on_conflict decides.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      out_path: z.string().min(1).describe('Path of the new workbook, ending in .xlsx or .xlsm.'),
      ops: opsInput.default([]),
      sheet: z.string().optional().describe('Name of the first sheet (default "Sheet1").'),
      ...commonEditInput,
    },
    output: patchOutputShape,
    async run(args, { paths }) {
      const ops = parseOps(args.ops);
      const output = await resolveOutput(paths, args.out_path);
      const result = await runMake({
        output,
        ops,
        // Edits go to a new file ({name}_patched…); unset, the policy is overwrite (the tool is destructive).
        onConflict: args.on_conflict ?? deps.onConflict ?? 'overwrite',
        ...(args.sheet === undefined ? {} : { sheet: args.sheet }),
        autoFormula: args.auto_formula,
        dryRun: args.dry_run,
        returnInverseOps: args.return_inverse_ops,
        preflightFormulaCheck: args.preflight_formula_check,
        files: paths,
        outputAllowed: policyAllows(paths),
      });
      return shapeResult(result);
    },
  });
}
