// Row heights and column widths as the sheet stores them (`<row ht>`, `<col width>` spans).
import { alphaToColIndex } from '../../ooxml/cell-ref.js';
import type { SheetEdit } from '../sheet-edit.js';
import { setColumnAttrs } from '../sheet-parts.js';

/** A column given as letters ("B") or a 1-based number → 0-based index. */
export function columnIndex(column: string | number): number {
  return typeof column === 'number' ? column - 1 : alphaToColIndex(column);
}

export function rowHeight(sheet: SheetEdit, row: number): number | null {
  const attrs = sheet.rows.get(row)?.attrs;
  return attrs?.has('ht') ? Number(attrs.get('ht')) : null;
}

export function setRowHeight(sheet: SheetEdit, row: number, height: number | null): void {
  const state = sheet.row(row);
  state.raw = undefined;
  if (height === null) {
    state.attrs.delete('ht');
    state.attrs.delete('customHeight');
  } else {
    state.attrs.set('ht', String(height));
    state.attrs.set('customHeight', '1');
  }
}

export function columnWidth(sheet: SheetEdit, col: number): number | null {
  const span = sheet.cols.find((s) => col + 1 >= s.min && col + 1 <= s.max);
  return span?.attrs.has('width') ? Number(span.attrs.get('width')) : null;
}

export function setColumnWidth(sheet: SheetEdit, col: number, width: number | null): void {
  sheet.cols = setColumnAttrs(sheet.cols, col + 1, (attrs) => {
    if (width === null) {
      attrs.delete('width');
      attrs.delete('customWidth');
    } else {
      attrs.set('width', String(width));
      attrs.set('customWidth', '1');
    }
  });
}
