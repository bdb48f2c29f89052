// The ops catalogue's ops, each to the handler that applies it: a new op gets its schema in
// op-schemas.ts and its handler here (the type refuses a catalogue op without one).
import type { OpName, PatchOp } from '../op-schemas.js';
import { autoFitColumns, loadAutoFit } from './auto-fit.js';
import { createChart, deleteChart } from './chart-ops.js';
import { fillFormula, setFormula, setFormulaIf, setRangeValues, setValue, setValueIf } from './cell-ops.js';
import {
  drawGridBorder,
  setAlignment,
  setBold,
  setDimensions,
  setFillColor,
  setFontColor,
  setFontSize,
  setStyle,
} from './format-ops.js';
import { mergeCells, unmergeCells } from './merge-ops.js';
import type { OpContext, OpHandler, OpOutcome } from './op-handler.js';
import { restoreDesignSnapshot } from './restore-snapshot.js';
import { addSheet, deleteSheet, renameSheet } from './sheet-ops.js';
import { applyTableStyle, deleteTable } from './table-ops.js';

export const OP_HANDLERS: { readonly [K in OpName]: OpHandler<K> } = {
  set_value: setValue,
  set_formula: setFormula,
  add_sheet: addSheet,
  set_range_values: setRangeValues,
  fill_formula: fillFormula,
  set_value_if: setValueIf,
  set_formula_if: setFormulaIf,
  set_bold: setBold,
  set_font_size: setFontSize,
  set_font_color: setFontColor,
  set_fill_color: setFillColor,
  set_alignment: setAlignment,
  set_style: setStyle,
  draw_grid_border: drawGridBorder,
  set_dimensions: setDimensions,
  merge_cells: mergeCells,
  unmerge_cells: unmergeCells,
  rename_sheet: renameSheet,
  delete_sheet: deleteSheet,
  auto_fit_columns: autoFitColumns,
  apply_table_style: applyTableStyle,
  create_chart: createChart,
  delete_chart: deleteChart,
  delete_table: deleteTable,
  restore_design_snapshot: restoreDesignSnapshot,
};

/** Applies `op` with its handler (the table's type pairs each op name with the handler of that op). */
export function applyOp(op: PatchOp, ctx: OpContext): OpOutcome {
  const handler = OP_HANDLERS[op.op] as (op: PatchOp, ctx: OpContext) => OpOutcome;
  return handler(op, ctx);
}

/** What some ops load before they run, kept out of the edit engine's start (see loadAutoFit). */
const OP_PREPARATIONS: { readonly [K in OpName]?: () => Promise<void> } = {
  auto_fit_columns: loadAutoFit,
};

/** Loads what the handlers of `ops` need before any of them runs. */
export async function prepareOps(ops: readonly PatchOp[]): Promise<void> {
  const names = new Set(ops.map((op) => op.op));
  for (const name of names) await OP_PREPARATIONS[name]?.();
}
