import { setImmediate as nextTurn } from 'node:timers/promises';
import { currentCallSignal, ToolError } from '@mcp-workbench/core/engine';
import { listCells } from './inverse-ops.js';
import type { PatchOp } from './op-schemas.js';
import { applyOp, prepareOps } from './ops/handlers.js';
import type { ApplyOptions, OpContext } from './ops/op-handler.js';
import { PatchOpError, type PatchDiffItem } from './types.js';
import { undoState } from './undo-state.js';
import type { WorkbookEdit } from './workbook-edit.js';

export type { ApplyOptions } from './ops/op-handler.js';

export interface ApplyResult {
  diff: PatchDiffItem[];
  /** Inverse ops of applied ops, already in the order to apply them (last op first). */
  inverse: PatchOp[];
  warnings: string[];
  /** What the inverse ops cannot restore: worth saying only to a caller who asked for them. */
  undoWarnings: string[];
}

/** How long ops run before the event loop gets a turn (to answer pings and hear a cancel). */
const SLICE_MS = 20;

/**
 * Applies ops in order to the in-memory edit, each by its handler (ops/handlers.ts); a failing op
 * throws PatchOpError (with its index and op). Every SLICE_MS the server gets a turn, and a cancelled
 * call (`signal`, by default the tool call's) stops before its next op: nothing has been written yet.
 */
export async function applyOps(
  edit: WorkbookEdit,
  ops: readonly PatchOp[],
  options: ApplyOptions,
  signal: AbortSignal | undefined = currentCallSignal(),
): Promise<ApplyResult> {
  const diff: PatchDiffItem[] = [];
  const inverseByOp: PatchOp[][] = [];
  const warnings: string[] = [];
  const undoWarnings: string[] = [];
  await prepareOps(ops);
  let slice = performance.now();
  for (const [index, op] of ops.entries()) {
    if (performance.now() - slice > SLICE_MS) {
      await nextTurn();
      slice = performance.now();
    }
    if (signal?.aborted) {
      throw new ToolError('CANCELLED', `The request was cancelled before op[${index}]; nothing was written.`);
    }
    const ctx: OpContext = { edit, index, options, warnings, undoWarnings };
    try {
      const outcome = applyOp(op, ctx);
      diff.push(...outcome.items);
      if (outcome.items.some((i) => i.status === 'applied')) inverseByOp.push(outcome.inverse);
    } catch (error) {
      if (error instanceof PatchOpError) throw Object.assign(error, { opIndex: index, op });
      throw error;
    }
  }
  const rich = undoState(edit).richCells;
  if (rich.length)
    undoWarnings.push(
      `Inverse ops restore the text of ${listCells(rich)} but not the formatting runs or phonetic guides inside (rich text: bold or coloured parts of the text; ふりがな).`,
    );
  return { diff, inverse: inverseByOp.reverse().flat(), warnings, undoWarnings };
}
