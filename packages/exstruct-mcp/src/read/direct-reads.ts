import { ToolError } from '@mcp-workbench/core/engine';
import { formatA1, formatRange, parseA1, parseRange, type CellRange } from '../ooxml/cell-ref.js';
import { columnIndex } from '../extract/extraction.js';
import type { CellValue } from '../extract/cell-value.js';
import type { SheetView } from './output-file.js';

export interface CellItem {
  cell: string;
  value: CellValue | null;
  formula?: string;
}

const NO_FORMULAS =
  "formulas_map is not in this output for this sheet: either the sheet has no formulas, or it was extracted in light or standard mode (re-run exstruct_extract with mode='verbose' to read formulas).";

/**
 * An A1 range, or whole columns (`A:C`) or rows (`2:5`) as far as the sheet's cells go (Excel's own
 * forms; the sheet's full 1,048,576 rows would pass any max_cells).
 */
function readBounds(sheet: SheetView, range: string): CellRange {
  const text = range.trim().replace(/\$/g, '');
  const columns = /^([A-Za-z]{1,3}):([A-Za-z]{1,3})$/.exec(text);
  if (columns) {
    const lastRow = sheet.rows.at(-1)?.r ?? 1;
    return parseRange(`${columns[1]}1:${columns[2]}${lastRow}`);
  }
  const rows = /^(\d+):(\d+)$/.exec(text);
  if (rows) {
    let lastCol = 0;
    for (const row of sheet.rows)
      for (const key of Object.keys(row.c)) lastCol = Math.max(lastCol, columnIndex(key));
    return parseRange(`A${rows[1]}:${formatA1({ row: 1, col: lastCol }).replace(/\d+$/, '')}${rows[2]}`);
  }
  return parseRange(range);
}

/** Cells of an A1 range, row by row (`include_empty` adds the blank ones with value null). */
export function readRange(
  sheet: SheetView,
  range: string,
  options: { includeFormulas: boolean; includeEmpty: boolean; maxCells: number },
): { range: string; cells: CellItem[]; warnings: string[] } {
  const parsed = readBounds(sheet, range);
  const { start, end } = parsed;
  const count = (end.row - start.row + 1) * (end.col - start.col + 1);
  const normalised = formatRange(parsed);
  if (count > options.maxCells) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `Requested range exceeds max_cells: range=${normalised}, cells=${count}, max_cells=${options.maxCells}.`,
      {
        hint: 'Read a smaller range, or raise max_cells (up to 100000).',
        details: { cells: count, max_cells: options.maxCells },
      },
    );
  }
  const warnings: string[] = [];
  if (options.includeFormulas && !sheet.hasFormulas) warnings.push(NO_FORMULAS);
  const cells: CellItem[] = [];
  for (let row = start.row; row <= end.row; row++) {
    for (let col = start.col; col <= end.col; col++) {
      const value = sheet.valueAt(row, col);
      const formula = options.includeFormulas ? sheet.formulaAt(row, col) : undefined;
      if (!options.includeEmpty && value === undefined && formula === undefined) continue;
      const item: CellItem = { cell: formatA1({ row, col }), value: value ?? null };
      if (formula !== undefined) item.formula = formula;
      cells.push(item);
    }
  }
  return { range: normalised, cells, warnings };
}

/** Specific cells by A1 address; addresses with neither value nor formula are also listed in `missing_cells`. */
export function readCells(
  sheet: SheetView,
  addresses: string[],
  options: { includeFormulas: boolean },
): { cells: CellItem[]; missing_cells: string[]; warnings: string[] } {
  const warnings: string[] = [];
  if (options.includeFormulas && !sheet.hasFormulas) warnings.push(NO_FORMULAS);
  const cells: CellItem[] = [];
  const missing: string[] = [];
  for (const address of addresses) {
    const at = parseA1(address);
    const cell = formatA1(at);
    const value = sheet.valueAt(at.row, at.col);
    const formula = options.includeFormulas ? sheet.formulaAt(at.row, at.col) : undefined;
    if (value === undefined && formula === undefined) missing.push(cell);
    const item: CellItem = { cell, value: value ?? null };
    if (formula !== undefined) item.formula = formula;
    cells.push(item);
  }
  return { cells, missing_cells: missing, warnings };
}

export interface FormulaItem {
  cell: string;
  formula: string;
  value?: CellValue | null;
}

/** Every formula of the sheet (or of a range) with, on request, its cached value. */
export function readFormulas(
  sheet: SheetView,
  range: string | undefined,
  options: { includeValues: boolean },
): { range?: string; formulas: FormulaItem[]; warnings: string[] } {
  const bounds = range === undefined ? undefined : readBounds(sheet, range);
  const result: { range?: string; formulas: FormulaItem[]; warnings: string[] } = {
    formulas: [],
    warnings: [],
  };
  if (bounds) result.range = formatRange(bounds);
  if (!sheet.hasFormulas) {
    result.warnings.push(NO_FORMULAS);
    return result;
  }
  for (const { row, col, formula } of sheet.formulaCells()) {
    if (
      bounds &&
      (row < bounds.start.row || row > bounds.end.row || col < bounds.start.col || col > bounds.end.col)
    ) {
      continue;
    }
    const item: FormulaItem = { cell: formatA1({ row, col }), formula };
    if (options.includeValues) item.value = sheet.valueAt(row, col) ?? null;
    result.formulas.push(item);
  }
  return result;
}
