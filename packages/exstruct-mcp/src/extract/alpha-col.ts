import { colIndexToAlpha, alphaToColIndex, formatRange } from '../ooxml/cell-ref.js';
import type { CellRow, SheetData, WorkbookData } from './model.js';

/** 0 → "A", 25 → "Z", 26 → "AA", 701 → "ZZ", 702 → "AAA" (spec 13.4). */
export const col_index_to_alpha = colIndexToAlpha;
/** "A" → 0, "aa" → 26, "XFD" → 16383. */
export const alpha_to_col_index = alphaToColIndex;

const letterCache: string[] = [];
function letters(index: number): string {
  return (letterCache[index] ??= colIndexToAlpha(index));
}

function rekey<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key in map) out[letters(+key)] = map[key]!;
  return out;
}

/** A row with its `c` and `links` keys as column letters (spec 13.4 convert_row_keys_to_alpha). */
export function convertRowKeysToAlpha(row: CellRow): CellRow {
  const out: CellRow = { r: row.r, c: rekey(row.c) };
  if (row.links) out.links = rekey(row.links);
  return out;
}

/**
 * A sheet with letter column keys and, instead of merged_cells, `merged_ranges` as A1 ranges
 * (spec 13.9). Other fields keep their integer indexes (spec 13.2).
 */
export function convertSheetKeysToAlpha(sheet: SheetData): SheetData {
  const out: SheetData = {};
  for (const key of Object.keys(sheet) as Array<keyof SheetData>) {
    if (key === 'rows') out.rows = sheet.rows!.map(convertRowKeysToAlpha);
    else if (key === 'merged_cells') {
      const ranges = sheet.merged_cells!.items.map(([r1, c1, r2, c2]) =>
        formatRange({ start: { row: r1, col: c1 }, end: { row: r2, col: c2 } }),
      );
      if (ranges.length > 0) out.merged_ranges = ranges;
    } else {
      (out as Record<string, unknown>)[key] = sheet[key];
    }
  }
  return out;
}

export function convertWorkbookKeysToAlpha(workbook: WorkbookData): WorkbookData {
  const sheets = Object.fromEntries(
    Object.entries(workbook.sheets).map(([name, sheet]) => [name, convertSheetKeysToAlpha(sheet)]),
  );
  return { book_name: workbook.book_name, sheets };
}
