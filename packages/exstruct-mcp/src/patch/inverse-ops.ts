// Inverse ops: what puts cells, and sheets a patch deletes, back as they were (spec 12.7).
import { colIndexToAlpha, formatRange, type CellRange } from '../ooxml/cell-ref.js';
import { asCellDate, valueOf } from './cell-read.js';
import { replaceFormulaText, type CellState, type Scalar } from './cells.js';
import { applySheetChanges, rewriteSheetReferences, type SheetDeletion } from './formula.js';
import type { OpOf, PatchOp } from './op-schemas.js';
import { addressOf, type SheetEdit } from './sheet-edit.js';
import { rememberMaster, undoState } from './undo-state.js';
import type { SheetRef, WorkbookEdit } from './workbook-edit.js';
import { parseDefinedNames } from './workbook-xml.js';
import { findElement } from './xml.js';

/** Inverse ops that put back every cell of a range as it is now. */
export function snapshotCells(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  name: string,
  range: CellRange,
): PatchOp[] {
  const values: (Scalar | null)[][] = [];
  const others: PatchOp[] = []; // formulas, errors and text set_range_values would misread
  for (let r = range.start.row; r <= range.end.row; r++) {
    const row: (Scalar | null)[] = [];
    for (let c = range.start.col; c <= range.end.col; c++) {
      const op = restoreCell(edit, sheet, name, r, c);
      if (op.op === 'set_value' && op.value_type === undefined) row.push(op.value);
      else {
        row.push(null);
        others.push(op);
      }
    }
    values.push(row);
  }
  return [{ op: 'set_range_values', sheet: name, range: formatRange(range), values }, ...others];
}

/** The op that puts a cell back as it is now: errors stay errors, array formulas stay arrays. */
export function restoreCell(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  name: string,
  row: number,
  col: number,
): PatchOp {
  const cell = addressOf(row, col);
  const before = valueOf(sheet, row, col);
  if (before?.kind === 'formula') {
    const array = arrayRefAt(sheet, row, col);
    const formula = String(before.value);
    return { op: 'set_formula', sheet: name, cell, formula, ...(array ? { array_range: array } : {}) };
  }
  const value = before?.value ?? null;
  const state = sheet.peek(row, col);
  if (state?.attrs.get('t') === 'e' && typeof value === 'string')
    return { op: 'set_value', sheet: name, cell, value, value_type: 'error' };
  // An ISO date cell (t="d") goes back as one, not as text.
  if (state?.attrs.get('t') === 'd' && typeof value === 'string' && value.trim() !== '')
    return { op: 'set_value', sheet: name, cell, value: value.trim(), value_type: 'date' };
  if (isRichText(edit, state)) undoState(edit).richCells.push(`${name}!${cell}`);
  // Text that set_value would take for a formula or a date goes back as text.
  if (
    typeof value === 'string' &&
    (value.startsWith('=') || asCellDate(edit, sheet, row, col, value) !== value)
  )
    return { op: 'set_value', sheet: name, cell, value, value_type: 'text' };
  return { op: 'set_value', sheet: name, cell, value };
}

/** The range of the array formula whose top-left cell this is. */
export function arrayRefAt(sheet: SheetEdit, row: number, col: number): string | undefined {
  const attrs = sheet.peek(row, col)?.formulaAttrs;
  return attrs?.get('t') === 'array' ? attrs.get('ref') : undefined;
}

/** Whether a cell, as loaded, holds text with formatting runs (inline or shared). */
function isRichText(edit: WorkbookEdit, cell: CellState | undefined): boolean {
  if (cell?.richInline) return true;
  return cell?.sharedIndex !== undefined && undoState(edit).richStrings.has(cell.sharedIndex);
}

export function listCells(cells: string[]): string {
  const shown = cells.slice(0, 10).join(', ');
  return cells.length > 10 ? `${shown} and ${cells.length - 10} more cells` : shown;
}

/** Deleted sheets remember their neighbours by name; a later rename must follow. */
export function renameNeighbours(deletions: SheetDeletion[], from: string, to: string): void {
  const renamed = (name: string | undefined) => (name?.toLowerCase() === from.toLowerCase() ? to : name);
  for (const d of deletions) {
    d.previous = renamed(d.previous);
    d.next = renamed(d.next);
  }
}

/**
 * Rewrites references to a renamed/deleted sheet in the rows already in memory. Returns the ops that
 * put back the formulas a deletion rewrote (renaming back restores them by itself).
 */
export function rewriteLoaded(
  edit: WorkbookEdit,
  sheet: SheetEdit | undefined,
  from: string,
  change: string | SheetDeletion,
): PatchOp[] {
  const restores: PatchOp[] = [];
  if (!sheet) return restores;
  const deletion = typeof change !== 'string';
  const cells = [...sheet.rows.values()].flatMap((state) =>
    [...state.cells.values()].filter((cell) => cell.formula !== undefined).map((cell) => ({ state, cell })),
  );
  // Before any master changes: a shared formula's dependents show its text, moved to them.
  for (const { state, cell } of deletion ? cells : []) {
    const shown = sheet.formulaOf(state.row, cell.col);
    if (shown !== undefined && rewriteSheetReferences(shown, from, change) !== undefined)
      restores.push(restoreCell(edit, sheet, sheet.name, state.row, cell.col));
  }
  for (const { state, cell } of cells) {
    if (!cell.formula) continue;
    const next = rewriteSheetReferences(cell.formula, from, change);
    if (next === undefined) continue;
    const attrs = cell.formulaAttrs;
    replaceFormulaText(cell, next, deletion);
    const si = attrs?.get('t') === 'shared' && attrs.has('ref') ? attrs.get('si') : undefined;
    const master = si === undefined ? undefined : sheet.masters.get(si);
    if (master) {
      // Dependents in rows that stream through get their inverse ops from the original text.
      if (deletion) rememberMaster(edit, sheet, si!, master);
      master.formula = next;
    }
    state.raw = undefined;
    edit.formulasChanged = true;
  }
  return restores;
}

/** A defined name as the patch has it so far. */
interface CurrentName {
  name: string;
  scope: SheetRef | undefined;
  value: string;
  hidden: boolean;
}

/** The workbook's defined names after the ops so far (references renamed, restores applied). */
export function currentNames(edit: WorkbookEdit): CurrentName[] {
  const list: CurrentName[] = [];
  for (const n of parseDefinedNames(edit.pkg?.workbookXml ?? '')) {
    const entry = n.localSheetId === undefined ? undefined : edit.pkg?.sheets[n.localSheetId];
    const scope = entry ? edit.sheets.find((s) => s.entry === entry) : undefined;
    if (n.localSheetId !== undefined && !scope) continue; // its sheet is gone
    list.push({ ...n, scope, value: applySheetChanges(n.value, edit) ?? n.value });
  }
  for (const e of undoState(edit).names) {
    const key = e.name.toLowerCase();
    const at = list.findIndex((n) => n.scope === e.scope && n.name.toLowerCase() === key);
    const hidden = e.hidden ?? list[at]?.hidden ?? false;
    if (at !== -1) list.splice(at, 1);
    if (e.value !== null && (!e.scope || edit.sheets.includes(e.scope)))
      list.push({ name: e.name, scope: e.scope, value: e.value, hidden });
  }
  return list;
}

type Snapshot = OpOf<'restore_design_snapshot'>['design_snapshot'];
export type NameEntry = NonNullable<Snapshot['defined_names']>[number];

/**
 * The defined names a sheet deletion loses or breaks, by the sheet whose restore_design_snapshot
 * puts them back: names local to the sheet (its print area, …) and names elsewhere that refer to it.
 */
export function namesLostWith(
  edit: WorkbookEdit,
  ref: SheetRef,
  deletion: SheetDeletion,
): Map<SheetRef, NameEntry[]> {
  const bySheet = new Map<SheetRef, NameEntry[]>();
  for (const n of currentNames(edit)) {
    const carrier = n.scope ?? ref; // a workbook-level name is put back along with the sheet
    if (n.scope !== ref && rewriteSheetReferences(n.value, ref.name, deletion) === undefined) continue;
    if (!carrier.edit) continue; // local to a chartsheet: no op can carry it
    const entry: NameEntry = { name: n.name, scope: n.scope ? 'sheet' : 'workbook', value: n.value };
    if (n.hidden) entry.hidden = true;
    bySheet.set(carrier, [...(bySheet.get(carrier) ?? []), entry]);
  }
  return bySheet;
}

/** Parts of a deleted sheet that no op rebuilds, by the element that holds them. */
const NOT_REBUILT: [string, string][] = [
  ['sheetProtection', 'sheet protection'],
  ['autoFilter', 'autofilter'],
  ['conditionalFormatting', 'conditional formatting'],
  ['dataValidations', 'data validation'],
  ['hyperlinks', 'hyperlinks'],
  ['pageSetup', 'page setup'],
  ['headerFooter', 'headers and footers'],
  ['rowBreaks', 'page breaks'],
  ['colBreaks', 'page breaks'],
  ['drawing', 'drawings, pictures and charts'],
  ['legacyDrawing', 'comments'],
  ['picture', 'background picture'],
  ['oleObjects', 'embedded objects'],
  ['controls', 'form controls'],
  ['tableParts', 'tables'],
  ['extLst', 'extension data (such as sparklines)'],
];

/** What inverse ops cannot rebuild of a deleted sheet, in words. */
function notRebuilt(sheet: SheetEdit): string[] {
  const lost = NOT_REBUILT.filter(([el]) => findElement(sheet.tail, el)).map(([, words]) => words);
  if (findElement(sheet.head, 'pane')) lost.push('frozen panes');
  if (findElement(sheet.head, 'tabColor')) lost.push('tab colour');
  const spans = [...[...sheet.rows.values()].map((r) => r.attrs), ...sheet.cols.map((c) => c.attrs)];
  if (spans.some((a) => a.get('hidden') === '1' || a.get('hidden') === 'true'))
    lost.push('hidden rows and columns');
  if (spans.some((a) => a.has('outlineLevel'))) lost.push('outline groups');
  if (spans.some((a) => a.get('customFormat') === '1' || a.has('style'))) lost.push('row and column formats');
  return [...new Set(lost)];
}

/** Ops that rebuild a deleted sheet: its cells, formats, merges, sizes, visibility and names. */
export function deletedSheetInverse(
  edit: WorkbookEdit,
  ref: SheetRef,
  position: number,
  names: NameEntry[],
  warnings: string[],
): PatchOp[] {
  const { name, edit: sheet } = ref;
  const hidden = ref.state === 'hidden' || ref.state === 'veryHidden';
  const state = hidden ? { state: ref.state as 'hidden' | 'veryHidden' } : {};
  const inverse: PatchOp[] = [{ op: 'add_sheet', sheet: name, position, ...state }];
  const snapshot: Snapshot = {};
  if (names.length) snapshot.defined_names = names;
  if (!sheet || sheet.tooLargeToKeep) {
    warnings.push(
      `Sheet "${name}" is too large to be rebuilt by inverse ops; keep a copy of the original file to undo its deletion.`,
    );
  } else {
    const styles: { cell: string; style_id: number }[] = [];
    const arrays: PatchOp[] = []; // after the values they cover
    for (const row of [...sheet.rows.values()].sort((a, b) => a.row - b.row)) {
      for (const cell of [...row.cells.values()].sort((a, b) => a.col - b.col)) {
        const address = addressOf(row.row, cell.col);
        if (valueOf(sheet, row.row, cell.col)) {
          const op = restoreCell(edit, sheet, name, row.row, cell.col);
          (op.op === 'set_formula' && op.array_range ? arrays : inverse).push(op);
        }
        const s = Number(cell.attrs.get('s') ?? 0);
        if (s) styles.push({ cell: address, style_id: s });
      }
    }
    inverse.push(...arrays);
    const heights = [...sheet.rows.values()]
      .filter((r) => r.attrs.get('customHeight') === '1')
      .map((r) => ({ row: r.row, height: Number(r.attrs.get('ht')) }));
    const widths = sheet.cols
      .filter((s) => s.attrs.get('customWidth') === '1')
      .flatMap((s) =>
        Array.from({ length: Math.min(s.max, 16384) - s.min + 1 }, (_, i) => ({
          column: colIndexToAlpha(s.min - 1 + i),
          width: Number(s.attrs.get('width')),
        })),
      );
    const merges = sheet.merges.map(formatRange);
    if (styles.length) snapshot.cell_styles = styles;
    if (heights.length) snapshot.row_heights = heights;
    if (widths.length && widths.length <= 1024) snapshot.column_widths = widths;
    if (merges.length) snapshot.merged_ranges = { scope: 'A1:XFD1048576', ranges: merges };
    const lost = notRebuilt(sheet);
    if (lost.length)
      warnings.push(
        `Inverse ops rebuild the cells, formats, merges, sizes, visibility and defined names of "${name}", not its ${lost.join(', ')}.`,
      );
  }
  if (Object.keys(snapshot).length)
    inverse.push({ op: 'restore_design_snapshot', sheet: name, design_snapshot: snapshot });
  return inverse;
}
