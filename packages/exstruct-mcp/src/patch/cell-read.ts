import { isoToSerial } from '../extract/cell-value.js';
import type { Scalar } from './cells.js';
import type { SheetEdit } from './sheet-edit.js';
import type { PatchValue } from './types.js';
import type { WorkbookEdit } from './workbook-edit.js';

/** What a cell holds now, as a PatchValue (null when empty). */
export function valueOf(sheet: SheetEdit, row: number, col: number): PatchValue | null {
  const formula = sheet.formulaOf(row, col);
  if (formula !== undefined) return { kind: 'formula', value: `=${formula}` };
  const value = sheet.peek(row, col)?.value ?? null;
  return value === null ? null : { kind: 'value', value };
}

/**
 * Extraction shows a date cell as ISO text (`2025-01-01`); in a cell formatted as a date or time that
 * text means the serial number behind it, so writing or comparing it round-trips. Elsewhere text stays text.
 */
export function asCellDate(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  row: number,
  col: number,
  value: Scalar | null,
): Scalar | null {
  // (A cheap look at the text first: most values are not dates, and the styles load only when needed.)
  if (typeof value !== 'string' || !/^\d\d[\d:]/.test(value)) return value;
  if (!edit.styles.dateKind(sheet.effectiveStyle(row, col))) return value;
  return isoToSerial(value, edit.date1904) ?? value;
}
