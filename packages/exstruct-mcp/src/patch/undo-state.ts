import type { SharedMaster, SheetEdit } from './sheet-edit.js';
import type { SheetRef, WorkbookEdit } from './workbook-edit.js';

/** A defined name set (or removed: value null) by restore_design_snapshot; written with workbook.xml. */
export interface NameEdit {
  name: string;
  /** The sheet the name is local to; undefined for a workbook-level name. */
  scope: SheetRef | undefined;
  value: string | null;
  /** undefined keeps an existing name's flag. */
  hidden: boolean | undefined;
}

/** What a patch keeps for undo beyond the sheets' own state, from the ops to the package writer. */
export interface UndoState {
  names: NameEdit[];
  /** Shared formula masters as they were before a sheet deletion rewrote them, by sheet and `si`. */
  masters: Map<SheetEdit, Map<string, SharedMaster>>;
  /** Indexes of shared strings with formatting runs (rich text), among those loaded. */
  richStrings: ReadonlySet<number>;
  /** Overwritten rich-text cells ("Sheet!A1"): their inverse ops restore the text only. */
  richCells: string[];
}

const states = new WeakMap<WorkbookEdit, UndoState>();

export function undoState(edit: WorkbookEdit): UndoState {
  let state = states.get(edit);
  if (!state) {
    state = { names: [], masters: new Map(), richStrings: new Set(), richCells: [] };
    states.set(edit, state);
  }
  return state;
}

/** Records a shared formula master before a deletion rewrites it (the first, original text wins). */
export function rememberMaster(edit: WorkbookEdit, sheet: SheetEdit, si: string, master: SharedMaster): void {
  const masters = undoState(edit).masters;
  let bySi = masters.get(sheet);
  if (!bySi) masters.set(sheet, (bySi = new Map<string, SharedMaster>()));
  if (!bySi.has(si)) bySi.set(si, { ...master });
}

/** Records a defined name edit; a later edit of the same name and scope replaces an earlier one. */
export function setName(edit: WorkbookEdit, change: NameEdit): void {
  const names = undoState(edit).names;
  const key = change.name.toLowerCase();
  const at = names.findIndex((n) => n.scope === change.scope && n.name.toLowerCase() === key);
  if (at !== -1) names.splice(at, 1);
  names.push(change);
}
