import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { defaultOutputName, policyAllows } from '../output/output-path.js';
import { parseOps } from '../patch/parse-ops.js';
import { assertEditable, runPatch } from '../patch/run-patch.js';
import type { ExstructToolDeps } from './deps.js';
import { commonEditInput, opsInput, patchOutputShape, resolveOutput, shapeResult } from './patch-output.js';

export function patchTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_patch',
    title: 'Edit a workbook',
    description:
      'Edit an .xlsx/.xlsm workbook by applying ops in order (cell values, formulas, ranges, formats, ' +
      'sheets). All or nothing: if any op fails, nothing is written and `error` names the op. The result ' +
      'goes to a new file ({name}_patched.xlsx next to the input unless out_dir/out_name say otherwise); ' +
      'everything not edited (charts, shapes, pivot tables, macros, cached formula results) is kept. ' +
      'Tips: read the cells first (exstruct_extract with alpha_col=true gives A1 columns); use ' +
      'dry_run=true to preview the diff; use set_value_if to avoid overwriting unexpected content; ' +
      'return_inverse_ops=true gives an undo list. Legacy .xls cannot be edited (needs Excel).',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      xlsx_path: z.string().min(1).describe('The workbook to edit (.xlsx or .xlsm).'),
      ops: opsInput,
      out_dir: z
        .string()
        .optional()
        .describe("Folder for the result (created if missing). Default: the input's folder."),
      out_name: z.string().optional().describe('File name of the result. Default: {stem}_patched{suffix}.'),
      ...commonEditInput,
    },
    output: patchOutputShape,
    async run(args, { paths }) {
      const ops = parseOps(args.ops);
      const input = await paths.resolve(args.xlsx_path, { mustExist: true, kind: 'file' });
      assertEditable(input);
      const dir = args.out_dir
        ? await paths.resolve(args.out_dir, { kind: 'directory' })
        : path.dirname(input);
      const output = await resolveOutput(paths, path.join(dir, defaultOutputName(input, args.out_name)));
      const result = await runPatch({
        input,
        output,
        ops,
        // Edits go to a new file ({name}_patched…); unset, the policy is overwrite (the tool is destructive).
        onConflict: args.on_conflict ?? deps.onConflict ?? 'overwrite',
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
