// Ops that change how cells look: fonts, fills, alignment, grid borders, row heights, column widths.
import { colIndexToAlpha, parseRange } from '../../ooxml/cell-ref.js';
import { gridRange } from '../workbook-edit.js';
import { diffItem, sheetOf, type OpContext, type OpHandler, type OpOutcome } from './op-handler.js';
import { columnIndex, columnWidth, rowHeight, setColumnWidth, setRowHeight } from './sizes.js';
import { describeChange, restyle, styleChange, type FormattingOp } from './styling.js';

/** set_bold, set_font_size, set_font_color, set_fill_color, set_alignment, set_style. */
function format(op: FormattingOp, ctx: OpContext): OpOutcome {
  const { edit: sheet, name } = sheetOf(ctx.edit, op.sheet);
  const where = (op.cell ?? op.range)!;
  const change = styleChange(op);
  const inverse = restyle(ctx.edit, sheet, name, parseRange(where), change);
  return {
    items: [diffItem(ctx, op, name, where, null, { kind: 'style', value: describeChange(change) })],
    inverse,
  };
}

export const setBold: OpHandler<'set_bold'> = format;
export const setFontSize: OpHandler<'set_font_size'> = format;
export const setFontColor: OpHandler<'set_font_color'> = format;
export const setFillColor: OpHandler<'set_fill_color'> = format;
export const setAlignment: OpHandler<'set_alignment'> = format;
export const setStyle: OpHandler<'set_style'> = format;

export const drawGridBorder: OpHandler<'draw_grid_border'> = (op, ctx) => {
  const { edit: sheet, name } = sheetOf(ctx.edit, op.sheet);
  const where = gridRange(op)!;
  const inverse = restyle(ctx.edit, sheet, name, parseRange(where), { gridBorder: true });
  return {
    items: [diffItem(ctx, op, name, where, null, { kind: 'style', value: 'grid_border(thin,black)' })],
    inverse,
  };
};

export const setDimensions: OpHandler<'set_dimensions'> = (op, ctx) => {
  const { edit: sheet, name } = sheetOf(ctx.edit, op.sheet);
  const rowHeights: { row: number; height: number | null }[] = [];
  const colWidths: { column: string; width: number | null }[] = [];
  for (const r of new Set(op.rows ?? [])) {
    rowHeights.push({ row: r, height: rowHeight(sheet, r) });
    setRowHeight(sheet, r, op.row_height!);
  }
  for (const c of new Set((op.columns ?? []).map(columnIndex))) {
    colWidths.push({ column: colIndexToAlpha(c), width: columnWidth(sheet, c) });
    setColumnWidth(sheet, c, op.column_width!);
  }
  const parts = [
    op.rows ? `rows ${op.rows.join(',')} height=${op.row_height}` : '',
    op.columns ? `columns ${colWidths.map((c) => c.column).join(',')} width=${op.column_width}` : '',
  ].filter(Boolean);
  return {
    items: [diffItem(ctx, op, name, null, null, { kind: 'dimension', value: parts.join('; ') })],
    inverse: [
      {
        op: 'restore_design_snapshot',
        sheet: name,
        design_snapshot: { row_heights: rowHeights, column_widths: colWidths },
      },
    ],
  };
};
