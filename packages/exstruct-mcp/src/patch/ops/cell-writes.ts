// Writing values and formulas into cells, with the guards every cell op shares: merged ranges, table
// headers and array formulas can only change as a whole.
import { formatRange, type CellRange } from '../../ooxml/cell-ref.js';
import { asCellDate } from '../cell-read.js';
import type { CellState, Scalar } from '../cells.js';
import { isDynamicArrayFormula } from '../dynamic-array.js';
import { prepareFormula } from '../formula.js';
import { addressOf, type SheetEdit } from '../sheet-edit.js';
import { rangeContains, rangesOverlap } from '../sheet-parts.js';
import { PatchOpError, type PatchValue } from '../types.js';
import type { WorkbookEdit } from '../workbook-edit.js';
import { escapeXml } from '../xml.js';

/** How a value is stored when it is not inferred: text as is, an error value, an ISO date cell. */
export type ValueType = 'text' | 'error' | 'date';

export function writeValue(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  row: number,
  col: number,
  value: Scalar | null,
  autoFormula: boolean,
  opName: string,
  type?: ValueType,
): PatchValue | null {
  if (type === undefined && typeof value === 'string' && value.startsWith('=')) {
    if (!autoFormula) {
      throw new PatchOpError(
        `${opName} got "${value.slice(0, 40)}", which starts with "=". Use set_formula for formulas, or pass auto_formula=true to write such values as formulas.`,
        addressOf(row, col),
      );
    }
    return writeFormula(edit, sheet, row, col, value);
  }
  if (typeof value === 'string' && value.length > 32767) {
    throw new PatchOpError(
      `The text for ${addressOf(row, col)} is ${value.length} characters; Excel cells hold at most 32767.`,
      addressOf(row, col),
    );
  }
  guardWritable(sheet, row, col);
  const had = sheet.peek(row, col);
  if (had?.formula !== undefined) edit.formulasChanged = true;
  sheet.detachShared(row, col);
  const cell = sheet.cell(row, col);
  resetContent(cell);
  const stored = type ? value : asCellDate(edit, sheet, row, col, value);
  cell.value = stored;
  if (type === 'error' || type === 'date') {
    // An error value is a t="e" cell, an ISO date a t="d" cell; their inner XML is written as is.
    cell.attrs.set('t', type === 'error' ? 'e' : 'd');
    cell.rawInner = `<${sheet.prefix}v>${escapeXml(String(value))}</${sheet.prefix}v>`;
    for (const key of ['cm', 'vm']) cell.attrs.delete(key);
  }
  edit.contentChanged = true;
  return stored === null ? null : { kind: 'value', value: stored };
}

export function writeFormula(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  row: number,
  col: number,
  formula: string,
  array?: CellRange,
): PatchValue {
  if (array) guardArray(sheet, row, col, array);
  else guardWritable(sheet, row, col);
  sheet.detachShared(row, col);
  const cell = sheet.cell(row, col);
  resetContent(cell);
  cell.formula = prepareFormula(formula.slice(1));
  if (array) {
    // The other cells keep their values: the array's cached results until Excel recalculates.
    cell.formulaAttrs = new Map([
      ['t', 'array'],
      ['ref', formatRange(array)],
    ]);
    if (!sheet.arrays.some((a) => formatRange(a) === formatRange(array))) sheet.arrays.push(array);
  }
  if (isDynamicArrayFormula(cell.formula)) {
    // Stored as Excel stores a spilling formula: an array formula over its cell, marked dynamic by cell
    // metadata. A plain <f> opens in Excel as a legacy formula, `=@UNIQUE(…)` with one value.
    cell.formulaAttrs ??= new Map([
      ['t', 'array'],
      ['ref', addressOf(row, col)],
    ]);
    cell.cellMeta = edit.sheetMetadata.cellIndex();
  }
  edit.formulasChanged = true;
  edit.contentChanged = true;
  return { kind: 'formula', value: formula };
}

/** Empties a cell's content (value, formula), keeping its format. */
export function clearContent(edit: WorkbookEdit, sheet: SheetEdit, row: number, col: number): void {
  const had = sheet.peek(row, col);
  if (had?.formula !== undefined) edit.formulasChanged = true;
  sheet.detachShared(row, col);
  const cell = sheet.cell(row, col);
  resetContent(cell);
  edit.contentChanged = true;
}

export function rangeInside(inner: CellRange, outer: CellRange): boolean {
  return (
    rangeContains(outer, inner.start.row, inner.start.col) &&
    rangeContains(outer, inner.end.row, inner.end.col)
  );
}

function resetContent(cell: CellState): void {
  cell.raw = undefined;
  cell.rawInner = undefined;
  cell.formula = undefined;
  cell.formulaAttrs = undefined;
  cell.value = null;
  cell.cellMeta = undefined;
  cell.attrs.delete('t');
}

function guardWritable(sheet: SheetEdit, row: number, col: number): void {
  const address = addressOf(row, col);
  const merged = sheet.merges.find(
    (m) => rangeContains(m, row, col) && !(m.start.row === row && m.start.col === col),
  );
  if (merged) {
    throw new PatchOpError(
      `${address} is inside the merged range ${formatRange(merged)}; only its top-left cell ${addressOf(merged.start.row, merged.start.col)} holds a value. Write there, or unmerge first.`,
      address,
    );
  }
  const header = sheet.tableHeaders.find((t) => rangeContains(t.range, row, col));
  if (header) {
    throw new PatchOpError(
      `${address} is a header cell of the table "${header.name}"; its text is also the table's column name, which this tool does not rename. Rename the column in Excel, or write below the header.`,
      address,
    );
  }
  const array = sheet.arrayAt(row, col);
  if (array) {
    throw new PatchOpError(
      `${address} is part of the array formula ${formatRange(array)}, which can only change as a whole. Clear or rewrite the whole array in Excel.`,
      address,
    );
  }
}

/** An array formula may replace one over the same range; it may not overlap anything else. */
function guardArray(sheet: SheetEdit, row: number, col: number, range: CellRange): void {
  const where = formatRange(range);
  const address = addressOf(row, col);
  const merged = sheet.merges.find((m) => rangesOverlap(m, range));
  if (merged)
    throw new PatchOpError(
      `The array formula range ${where} overlaps the merged range ${formatRange(merged)}; Excel allows no array formulas in merged cells.`,
      address,
    );
  const header = sheet.tableHeaders.find((t) => rangesOverlap(t.range, range));
  if (header) throw new PatchOpError(`${where} overlaps the header of the table "${header.name}".`, address);
  const other = sheet.arrays.find((a) => rangesOverlap(a, range) && formatRange(a) !== where);
  if (other)
    throw new PatchOpError(
      `${where} overlaps the array formula ${formatRange(other)}, which can only change as a whole.`,
      address,
    );
  for (let r = range.start.row; r <= range.end.row; r++) {
    for (const c of sheet.rows.get(r)?.cells.keys() ?? []) {
      if ((r === row && c === col) || c < range.start.col || c > range.end.col) continue;
      if (sheet.formulaOf(r, c) !== undefined)
        throw new PatchOpError(
          `${addressOf(r, c)} holds a formula; the other cells of an array formula (${where}) must not. Clear it first.`,
          addressOf(r, c),
        );
    }
  }
}
