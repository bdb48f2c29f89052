// restore_design_snapshot: puts back formats, merges, sizes, defined names and rule formulas exactly
// as an inverse op recorded them, and records the present ones as its own inverse.
import { formatRange, parseA1, parseRange } from '../../ooxml/cell-ref.js';
import { currentNames } from '../inverse-ops.js';
import type { OpOf } from '../op-schemas.js';
import { rangesOverlap } from '../sheet-parts.js';
import { PatchOpError } from '../types.js';
import { setName } from '../undo-state.js';
import { ruleFormulas, setRuleFormulas } from '../workbook-xml.js';
import { diffItem, sheetOf, type OpHandler } from './op-handler.js';
import { columnIndex, columnWidth, rowHeight, setColumnWidth, setRowHeight } from './sizes.js';
import { setStyle } from './styling.js';

type Snapshot = OpOf<'restore_design_snapshot'>['design_snapshot'];

export const restoreDesignSnapshot: OpHandler<'restore_design_snapshot'> = (op, ctx) => {
  const { edit } = ctx;
  const { edit: sheet, name } = sheetOf(edit, op.sheet);
  const snap = op.design_snapshot;
  const inverseSnap: Snapshot = {};
  if (snap.cell_styles) {
    inverseSnap.cell_styles = [];
    for (const { cell, style_id } of snap.cell_styles) {
      if (style_id >= edit.styles.xfCount)
        throw new PatchOpError(
          `style_id ${style_id} does not exist (the workbook has ${edit.styles.xfCount} cell formats).`,
          cell,
        );
      const at = parseA1(cell);
      inverseSnap.cell_styles.push({ cell, style_id: sheet.effectiveStyle(at.row, at.col) });
      setStyle(sheet, at.row, at.col, style_id);
    }
  }
  if (snap.merged_ranges) {
    const scope = parseRange(snap.merged_ranges.scope);
    const current = sheet.merges.filter((m) => rangesOverlap(m, scope));
    inverseSnap.merged_ranges = { scope: snap.merged_ranges.scope, ranges: current.map(formatRange) };
    sheet.merges = [
      ...sheet.merges.filter((m) => !rangesOverlap(m, scope)),
      ...snap.merged_ranges.ranges.map((r) => parseRange(r)),
    ];
  }
  if (snap.row_heights) {
    inverseSnap.row_heights = snap.row_heights.map(({ row }) => ({ row, height: rowHeight(sheet, row) }));
    for (const { row, height } of snap.row_heights) setRowHeight(sheet, row, height);
  }
  if (snap.column_widths) {
    inverseSnap.column_widths = snap.column_widths.map(({ column }) => ({
      column,
      width: columnWidth(sheet, columnIndex(column)),
    }));
    for (const { column, width } of snap.column_widths) setColumnWidth(sheet, columnIndex(column), width);
  }
  if (snap.defined_names) {
    const ref = edit.require(op.sheet);
    const now = currentNames(edit);
    inverseSnap.defined_names = snap.defined_names.map(({ name: key, scope }) => {
      const had = now.find(
        (n) =>
          n.scope === (scope === 'sheet' ? ref : undefined) && n.name.toLowerCase() === key.toLowerCase(),
      );
      return { name: key, scope, value: had?.value ?? null, ...(had ? { hidden: had.hidden } : {}) };
    });
    for (const d of snap.defined_names) {
      setName(edit, {
        name: d.name,
        scope: d.scope === 'sheet' ? ref : undefined,
        value: d.value,
        hidden: d.hidden,
      });
      if (d.value !== null) edit.definedNames.add(d.name.toUpperCase());
    }
    edit.contentChanged = true;
  }
  if (snap.rule_formulas) {
    const edits = snap.rule_formulas;
    const previous = sheet.tailRewrite;
    const current = ruleFormulas(previous ? previous(sheet.tail) : sheet.tail);
    const missing = edits.find((e) => e.index >= current.length);
    if (missing)
      throw new PatchOpError(
        `"${name}" has ${current.length} formulas in conditional formats and data validations; there is no #${missing.index} (counted from 0).`,
      );
    inverseSnap.rule_formulas = edits.map(({ index }) => ({ index, formula: current[index]! }));
    // Applied when the sheet's tail streams through the writer.
    sheet.tailRewrite = (tail) => setRuleFormulas(previous ? previous(tail) : tail, edits);
    edit.contentChanged = true;
  }
  return {
    items: [diffItem(ctx, op, name, null, null, { kind: 'style', value: 'design snapshot restored' })],
    inverse: [{ op: 'restore_design_snapshot', sheet: name, design_snapshot: inverseSnap }],
  };
};
