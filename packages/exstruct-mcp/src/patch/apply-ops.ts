import { listCells } from './inverse-ops.js';
import type { PatchOp } from './op-schemas.js';
import { applyOp } from './ops/handlers.js';
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

/**
 * Applies ops in order to the in-memory edit, each by its handler (ops/handlers.ts); a failing op
 * throws PatchOpError (with its index and op).
 */
export function applyOps(edit: WorkbookEdit, ops: readonly PatchOp[], options: ApplyOptions): ApplyResult {
  const diff: PatchDiffItem[] = [];
  const inverseByOp: PatchOp[][] = [];
  const warnings: string[] = [];
  const undoWarnings: string[] = [];
  ops.forEach((op, index) => {
    const ctx: OpContext = { edit, index, options, warnings, undoWarnings };
    try {
      const outcome = applyOp(op, ctx);
      diff.push(...outcome.items);
      if (outcome.items.some((i) => i.status === 'applied')) inverseByOp.push(outcome.inverse);
    } catch (error) {
      if (error instanceof PatchOpError) throw Object.assign(error, { opIndex: index, op });
      throw error;
    }
  });
  const rich = undoState(edit).richCells;
  if (rich.length)
    undoWarnings.push(
      `Inverse ops restore the text of ${listCells(rich)} but not the formatting runs inside (rich text: bold or coloured parts of the text).`,
    );
  return { diff, inverse: inverseByOp.reverse().flat(), warnings, undoWarnings };
}
