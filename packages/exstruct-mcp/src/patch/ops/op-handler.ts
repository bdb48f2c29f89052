import type { OpName, OpOf, PatchOp } from '../op-schemas.js';
import type { PatchDiffItem, PatchValue } from '../types.js';
import type { SheetEdit } from '../sheet-edit.js';
import type { WorkbookEdit } from '../workbook-edit.js';

export interface ApplyOptions {
  autoFormula: boolean;
}

/** What a handler works on: the edit, where the op stands in the list, and where notes go. */
export interface OpContext {
  edit: WorkbookEdit;
  /** The op's 0-based index in the request (named in diffs and errors). */
  index: number;
  options: ApplyOptions;
  /** Said to every caller. */
  warnings: string[];
  /** What the inverse ops cannot restore: said only to a caller who asked for them. */
  undoWarnings: string[];
}

/** One op's diff entries and the ops that undo it (in the order to apply them). */
export interface OpOutcome {
  items: PatchDiffItem[];
  inverse: PatchOp[];
}

/** Applies one op of kind K to the edit; a failure throws PatchOpError. */
export type OpHandler<K extends OpName> = (op: OpOf<K>, ctx: OpContext) => OpOutcome;

/** A diff entry of the op at `ctx.index`. */
export function diffItem(
  ctx: OpContext,
  op: PatchOp,
  sheet: string,
  cell: string | null,
  before: PatchValue | null,
  after: PatchValue | null,
  status: 'applied' | 'skipped' = 'applied',
): PatchDiffItem {
  return { op_index: ctx.index, op: op.op, sheet, cell, before, after, status };
}

/** The worksheet an op names (PatchOpError when there is none) and its name as the workbook spells it. */
export function sheetOf(edit: WorkbookEdit, name: string): { edit: SheetEdit; name: string } {
  const ref = edit.require(name);
  return { edit: ref.edit, name: ref.name };
}
