import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { defaultOutputName } from '../output/output-path.js';
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

export function patchTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_patch',
    title: 'Edit a workbook',
    description:
      'Edit an .xlsx/.xlsm workbook with ops applied in order, all or nothing (if one fails nothing is ' +
      'written and the error names it). Writes {name}_patched.xlsx beside the input unless out_dir/out_name, ' +
      'keeping all it did not edit (charts, shapes, pivots, macros). Read the cells first (exstruct_extract, ' +
      'options.alpha_col for A1 columns); dry_run previews the diff; set_value_if guards against overwriting; ' +
      'return_inverse_ops gives undo ops. ' +
      conflictDefaultText(
        deps.onConflict,
        'An existing output is replaced only if it is {name}_patched, else {name}_1… is written',
      ),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      xlsx_path: z.string().min(1),
      ops: opsInput,
      out_dir: z.string().optional(),
      out_name: z.string().optional(),
      ...commonEditInput,
    },
    output: patchOutputShape,
    async run(args, { paths }) {
      return onServerThread(deps, async () => {
        const { parseOps, assertEditable, runPatch } = await loadEditEngine();
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
          // Unset: the input's own {stem}_patched file is replaced (re-running a patch updates it), any
          // other existing file is kept and {stem}_1… written: overwrite only when asked.
          onConflict: args.on_conflict ?? deps.onConflict,
          ownedBy: async (file) => path.basename(file) === defaultOutputName(input, undefined),
          notOwned: `is not ${defaultOutputName(input, undefined)}, the one file a patch of ${path.basename(input)} replaces without on_conflict`,
          ...commonEditOptions(args, paths),
        });
        return shapeResult(result);
      });
    },
  });
}
