import path from 'node:path';
import { ToolError, localFiles, type FileAccess } from '@mcp-workbench/core/engine';
import type { OnConflict } from '../output/on-conflict.js';
import type { OutputAllowed } from '../output/output-path.js';
import { createSeedWorkbook } from './new-workbook.js';
import type { PatchOp } from './op-schemas.js';
import { assertEditable, runPatch, type PatchResult } from './run-patch.js';

export interface MakeRequest {
  output: string;
  ops: PatchOp[];
  /** Undefined: an existing output is kept and `{stem}_1{suffix}` written. */
  onConflict: OnConflict | undefined;
  /** Name of the first sheet (default Sheet1). */
  sheet?: string;
  autoFormula?: boolean;
  dryRun?: boolean;
  returnInverseOps?: boolean;
  preflightFormulaCheck?: boolean;
  /** How the output is written (a server's PathPolicy; default the user's own paths). */
  files?: FileAccess;
  /** Whether a rename candidate may be written (a server passes its PathPolicy's verdict). */
  outputAllowed?: OutputAllowed;
}

/** Builds a new workbook: an empty one with one sheet, then the ops, through the patch engine. */
export async function runMake(request: MakeRequest): Promise<PatchResult> {
  assertEditable(request.output);
  let first = request.sheet?.trim() || 'Sheet1';
  // An add_sheet of the same name would collide with the first sheet: keep "Sheet1" then.
  if (request.ops.some((op) => op.op === 'add_sheet' && op.sheet.toLowerCase() === first.toLowerCase()))
    first = 'Sheet1';
  if (first.length > 31 || /[:\\/?*[\]]/.test(first)) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `"${first}" is not a valid sheet name (at most 31 characters, none of : \\ / ? * [ ]).`,
    );
  }
  const seed = await createSeedWorkbook(
    first,
    path.extname(request.output).toLowerCase() as '.xlsx' | '.xlsm',
  );
  try {
    const result = await runPatch({ ...request, input: seed.file, inputFiles: localFiles });
    return result;
  } finally {
    await seed.dispose();
  }
}
