import path from 'node:path';
import { ToolError, localFiles, type FileAccess } from '@mcp-workbench/core/engine';
import type { OnConflict } from '../output/on-conflict.js';
import type { OutputAllowed } from '../output/output-path.js';
import { createSeedWorkbook } from './new-workbook.js';
import type { PatchOp } from './op-schemas.js';
import { sheetNameProblem } from './sheet-name.js';
import { assertEditable, DEPENDENTS_NOT_CALCULATED, runPatch, type PatchResult } from './run-patch.js';

export interface MakeRequest {
  output: string;
  ops: PatchOp[];
  /** Undefined: an existing output is kept and `{stem}_1{suffix}` written. */
  onConflict: OnConflict | undefined;
  /** How the warning names an existing file it keeps (ConflictOptions.notOwned). */
  notOwned?: string;
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
  // Trimmed as add_sheet's name is; then the same rules as add_sheet (a blank name is refused too).
  let first = request.sheet === undefined ? 'Sheet1' : request.sheet.trim();
  const problem = sheetNameProblem(first);
  if (problem) throw new ToolError('INVALID_ARGUMENT', `sheet: ${problem}`);
  // An add_sheet of the same name would collide with the first sheet: keep "Sheet1" then.
  if (request.ops.some((op) => op.op === 'add_sheet' && op.sheet.toLowerCase() === first.toLowerCase()))
    first = 'Sheet1';
  const seed = await createSeedWorkbook(
    first,
    path.extname(request.output).toLowerCase() as '.xlsx' | '.xlsm',
  );
  try {
    const result = await runPatch({ ...request, input: seed.file, inputFiles: localFiles });
    // A new workbook has no formulas but those the ops wrote: none keeps an old value.
    return { ...result, warnings: result.warnings.filter((w) => w !== DEPENDENTS_NOT_CALCULATED) };
  } finally {
    await seed.dispose();
  }
}
