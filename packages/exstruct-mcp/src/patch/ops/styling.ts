// Cell formats: what a formatting op changes, and restyling a range with an undo snapshot.
import type { CellRange } from '../../ooxml/cell-ref.js';
import type { OpOf, PatchOp } from '../op-schemas.js';
import { addressOf, type SheetEdit } from '../sheet-edit.js';
import type { StyleChange } from '../styles.js';
import type { WorkbookEdit } from '../workbook-edit.js';

export type FormattingOp = OpOf<
  'set_bold' | 'set_font_size' | 'set_font_color' | 'set_fill_color' | 'set_alignment' | 'set_style'
>;

/** Sets a cell's format index (0 is the default format, written as no `s`). */
export function setStyle(sheet: SheetEdit, row: number, col: number, style: number): void {
  const cell = sheet.cell(row, col);
  if (cell.raw !== undefined && cell.rawInner === undefined) cell.rawInner = ''; // an empty <c/>
  cell.raw = undefined;
  if (style === 0) cell.attrs.delete('s');
  else cell.attrs.set('s', String(style));
}

/** Applies `change` on top of each cell's format; returns the op that puts the old formats back. */
export function restyle(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  name: string,
  range: CellRange,
  change: StyleChange,
): PatchOp[] {
  const before: { cell: string; style_id: number }[] = [];
  for (let r = range.start.row; r <= range.end.row; r++) {
    for (let c = range.start.col; c <= range.end.col; c++) {
      const current = sheet.effectiveStyle(r, c);
      before.push({ cell: addressOf(r, c), style_id: current });
      setStyle(sheet, r, c, edit.styles.derive(current, change));
    }
  }
  return [{ op: 'restore_design_snapshot', sheet: name, design_snapshot: { cell_styles: before } }];
}

/** The format attributes a formatting op sets (the others stay as each cell has them). */
export function styleChange(op: FormattingOp): StyleChange {
  const change: StyleChange = {};
  const o = op as Record<string, unknown>;
  if (typeof o.bold === 'boolean') change.bold = o.bold;
  if (typeof o.font_size === 'number') change.fontSize = o.font_size;
  if (typeof o.color === 'string') change.fontColor = o.color;
  if (typeof o.fill_color === 'string') change.fillColor = o.fill_color;
  if (typeof o.horizontal_align === 'string')
    change.horizontal = o.horizontal_align as StyleChange['horizontal'];
  if (typeof o.vertical_align === 'string') change.vertical = o.vertical_align as StyleChange['vertical'];
  if (typeof o.wrap_text === 'boolean') change.wrapText = o.wrap_text;
  return change;
}

/** `bold=true, fill=#FFD9E1F2`: how a diff entry names a format change. */
export function describeChange(change: StyleChange): string {
  const parts: string[] = [];
  if (change.bold !== undefined) parts.push(`bold=${change.bold}`);
  if (change.fontSize !== undefined) parts.push(`font_size=${change.fontSize}`);
  if (change.fontColor !== undefined) parts.push(`color=#${change.fontColor}`);
  if (change.fillColor !== undefined) parts.push(`fill=#${change.fillColor}`);
  if (change.horizontal !== undefined) parts.push(`horizontal=${change.horizontal}`);
  if (change.vertical !== undefined) parts.push(`vertical=${change.vertical}`);
  if (change.wrapText !== undefined) parts.push(`wrap_text=${change.wrapText}`);
  return parts.join(', ');
}
