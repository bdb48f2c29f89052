// Ops that write cell content: one value or formula (with or without compare-and-set), a rectangle of
// values, a formula filled along a row or column.
import { parseA1, parseRange } from '../../ooxml/cell-ref.js';
import { asCellDate, valueOf } from '../cell-read.js';
import { translateFormula } from '../formula.js';
import { arrayRefAt, restoreCell, snapshotCells } from '../inverse-ops.js';
import type { OpOf } from '../op-schemas.js';
import { show, matches, matchesDate } from './compare.js';
import { rangeInside, writeFormula, writeValue } from './cell-writes.js';
import { setStyle } from './styling.js';
import type { PatchOp } from '../op-schemas.js';
import { addressOf, type SheetEdit } from '../sheet-edit.js';
import { diffItem, sheetOf, type OpContext, type OpHandler, type OpOutcome } from './op-handler.js';

type OneCellOp = OpOf<'set_value' | 'set_value_if' | 'set_formula' | 'set_formula_if'>;

/** set_value, set_value_if, set_formula, set_formula_if: one cell, its old content as the undo. */
function writeOneCell(op: OneCellOp, ctx: OpContext): OpOutcome {
  const { edit } = ctx;
  const { edit: sheet, name } = sheetOf(edit, op.sheet);
  const at = parseA1(op.cell);
  const before = valueOf(sheet, at.row, at.col);
  if (op.op === 'set_value_if' || op.op === 'set_formula_if') {
    const expected = asCellDate(edit, sheet, at.row, at.col, op.expected ?? null);
    // Text that became a number names a date (the cell is formatted as one): compared as a date.
    const same =
      typeof expected === 'number' && typeof op.expected === 'string'
        ? matchesDate(before, expected, edit.date1904)
        : matches(before, expected);
    if (!same) {
      ctx.warnings.push(
        `Skipped op[${ctx.index}] ${op.op} at ${name}!${op.cell}: the cell holds ${show(before)}, expected ${show(op.expected ?? null)}.`,
      );
      return { items: [diffItem(ctx, op, name, op.cell, before, before, 'skipped')], inverse: [] };
    }
  }
  const array = op.op === 'set_formula' ? op.array_range : undefined;
  // A new array formula covers other cells: undo puts the whole range back.
  const inverse =
    array && arrayRefAt(sheet, at.row, at.col) !== array
      ? snapshotCells(edit, sheet, name, parseRange(array))
      : [restoreCell(edit, sheet, name, at.row, at.col), ...keepDateFormat(sheet, name, at)];
  if (op.op === 'set_value' && op.value_type === 'date')
    inverse.push(...showAsDate(ctx, sheet, name, at, /T\d/.test(String(op.value))));
  const after =
    op.op === 'set_value' || op.op === 'set_value_if'
      ? writeValue(
          edit,
          sheet,
          at.row,
          at.col,
          op.value,
          ctx.options.autoFormula,
          op.op,
          op.op === 'set_value' ? op.value_type : undefined,
        )
      : writeFormula(edit, sheet, at.row, at.col, op.formula, array ? parseRange(array) : undefined);
  return { items: [diffItem(ctx, op, name, op.cell, before, after)], inverse };
}

/**
 * A date cell shows as a date only through its number format: under General, Excel shows 45382 for
 * 2024-03-31. A cell without a date format gets the built-in short date, or date and time (its other
 * formatting kept); the returned op puts its old format back on undo.
 */
function showAsDate(
  ctx: OpContext,
  sheet: SheetEdit,
  name: string,
  at: { row: number; col: number },
  withTime: boolean,
): PatchOp[] {
  const current = sheet.effectiveStyle(at.row, at.col);
  if (ctx.edit.styles.dateKind(current) !== undefined) return [];
  setStyle(sheet, at.row, at.col, ctx.edit.styles.derive(current, { numFmtId: withTime ? 22 : 14 }));
  return [
    {
      op: 'restore_design_snapshot',
      sheet: name,
      design_snapshot: { cell_styles: [{ cell: addressOf(at.row, at.col), style_id: current }] },
    },
  ];
}

/**
 * An ISO date cell goes back on undo as a date, which gives a cell without a date format the short
 * date (showAsDate): its format as it was is put back after it, so undo leaves the producer's bytes.
 */
function keepDateFormat(sheet: SheetEdit, name: string, at: { row: number; col: number }): PatchOp[] {
  if (sheet.peek(at.row, at.col)?.attrs.get('t') !== 'd') return [];
  const style = sheet.effectiveStyle(at.row, at.col);
  return [
    {
      op: 'restore_design_snapshot',
      sheet: name,
      design_snapshot: { cell_styles: [{ cell: addressOf(at.row, at.col), style_id: style }] },
    },
  ];
}

export const setValue: OpHandler<'set_value'> = writeOneCell;
export const setValueIf: OpHandler<'set_value_if'> = writeOneCell;
export const setFormula: OpHandler<'set_formula'> = writeOneCell;
export const setFormulaIf: OpHandler<'set_formula_if'> = writeOneCell;

export const setRangeValues: OpHandler<'set_range_values'> = (op, ctx) => {
  const { edit } = ctx;
  const { edit: sheet, name } = sheetOf(edit, op.sheet);
  const range = parseRange(op.range);
  const inverse = snapshotCells(edit, sheet, name, range);
  // Writing over a whole array formula replaces it (as in Excel); part of one is still refused.
  for (const array of sheet.arrays.filter((a) => rangeInside(a, range)))
    sheet.arrays.splice(sheet.arrays.indexOf(array), 1);
  op.values.forEach((rowValues, r) =>
    rowValues.forEach((value, c) =>
      writeValue(
        edit,
        sheet,
        range.start.row + r,
        range.start.col + c,
        value,
        ctx.options.autoFormula,
        op.op,
      ),
    ),
  );
  const size = `${range.end.row - range.start.row + 1}x${range.end.col - range.start.col + 1}`;
  return { items: [diffItem(ctx, op, name, op.range, null, { kind: 'value', value: size })], inverse };
};

export const fillFormula: OpHandler<'fill_formula'> = (op, ctx) => {
  const { edit } = ctx;
  const { edit: sheet, name } = sheetOf(edit, op.sheet);
  const range = parseRange(op.range);
  const base = parseA1(op.base_cell);
  const inverse = snapshotCells(edit, sheet, name, range);
  const body = op.formula.slice(1);
  for (let r = range.start.row; r <= range.end.row; r++) {
    for (let c = range.start.col; c <= range.end.col; c++) {
      writeFormula(edit, sheet, r, c, `=${translateFormula(body, r - base.row, c - base.col)}`);
    }
  }
  return {
    items: [diffItem(ctx, op, name, op.range, null, { kind: 'formula', value: op.formula })],
    inverse,
  };
};
