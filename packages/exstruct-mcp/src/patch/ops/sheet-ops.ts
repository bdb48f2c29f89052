// Ops on the sheet list: add, rename, delete (references elsewhere follow or become #REF!).
import type { SheetDeletion } from '../formula.js';
import { deletedSheetInverse, namesLostWith, renameNeighbours, rewriteLoaded } from '../inverse-ops.js';
import type { PatchOp } from '../op-schemas.js';
import { SheetEdit } from '../sheet-edit.js';
import { sheetNameProblem } from '../sheet-name.js';
import { PatchOpError } from '../types.js';
import type { SheetRef, WorkbookEdit } from '../workbook-edit.js';
import { diffItem, type OpHandler } from './op-handler.js';

export const addSheet: OpHandler<'add_sheet'> = (op, ctx) => {
  const { edit } = ctx;
  const name = op.sheet;
  checkSheetName(edit, name);
  const ref: SheetRef = {
    name,
    entry: undefined,
    edit: new SheetEdit(name, true, edit.pkg?.conformance),
    state: op.state ?? 'visible',
  };
  const position = Math.min(op.position ?? edit.sheets.length, edit.sheets.length);
  edit.sheets.splice(position, 0, ref);
  return {
    items: [diffItem(ctx, op, name, null, null, { kind: 'sheet', value: name })],
    inverse: [{ op: 'delete_sheet', sheet: name }],
  };
};

export const renameSheet: OpHandler<'rename_sheet'> = (op, ctx) => {
  const { edit } = ctx;
  const ref = existing(edit, op.sheet);
  const from = ref.name;
  if (from.toLowerCase() !== op.new_name.toLowerCase()) checkSheetName(edit, op.new_name);
  ref.name = op.new_name;
  if (ref.edit) ref.edit.name = op.new_name;
  edit.renames.push({ from, to: op.new_name });
  renameNeighbours(edit.deletions, from, op.new_name);
  for (const other of edit.sheets) rewriteLoaded(edit, other.edit, from, op.new_name);
  return {
    items: [
      diffItem(ctx, op, from, null, { kind: 'sheet', value: from }, { kind: 'sheet', value: op.new_name }),
    ],
    inverse: [{ op: 'rename_sheet', sheet: op.new_name, new_name: from }],
  };
};

export const deleteSheet: OpHandler<'delete_sheet'> = (op, ctx) => {
  const { edit } = ctx;
  const ref = existing(edit, op.sheet);
  const position = edit.sheets.indexOf(ref);
  const visibleLeft = edit.sheets.filter((s) => s !== ref && s.state === 'visible').length;
  if (visibleLeft === 0)
    throw new PatchOpError(
      `"${ref.name}" is the last visible sheet; a workbook needs at least one. Add another sheet first.`,
    );
  const deletion: SheetDeletion = {
    name: ref.name,
    previous: edit.sheets[position - 1]?.name,
    next: edit.sheets[position + 1]?.name,
  };
  const names = namesLostWith(edit, ref, deletion);
  edit.sheets.splice(position, 1);
  edit.removed.push(ref);
  edit.deletions.push(deletion);
  edit.formulasChanged = true;
  edit.contentChanged = true;
  const restores = edit.sheets.flatMap((other) => rewriteLoaded(edit, other.edit, ref.name, deletion));
  const elsewhere: PatchOp[] = [...names]
    .filter(([sheet]) => sheet !== ref)
    .map(([sheet, list]) => ({
      op: 'restore_design_snapshot',
      sheet: sheet.name,
      design_snapshot: { defined_names: list },
    }));
  const own = deletedSheetInverse(edit, ref, position, names.get(ref) ?? [], ctx.undoWarnings);
  return {
    items: [diffItem(ctx, op, ref.name, null, { kind: 'sheet', value: ref.name }, null)],
    inverse: [...own, ...elsewhere, ...restores],
  };
};

/** A sheet of any kind (chart and dialog sheets too), or PatchOpError listing the sheets there are. */
function existing(edit: WorkbookEdit, name: string): SheetRef {
  const ref = edit.find(name);
  if (!ref)
    throw new PatchOpError(
      `Sheet "${name}" does not exist. Sheets: ${edit.sheets.map((s) => `"${s.name}"`).join(', ')}.`,
    );
  return ref;
}

/** Excel's rules for a sheet name, and no clash with another sheet (names are case-insensitive). */
function checkSheetName(edit: WorkbookEdit, name: string): void {
  const problem = sheetNameProblem(name);
  if (problem) throw new PatchOpError(problem);
  const clash = edit.find(name);
  if (clash)
    throw new PatchOpError(
      `A sheet named "${clash.name}" already exists (names are case-insensitive). Choose another name.`,
    );
}
