// auto_fit_columns: column widths from the text the cells show, measured with the fonts and metrics the
// sheet images are drawn with (render/), so a fitted column and its image agree.
import { colIndexToAlpha } from '../../ooxml/cell-ref.js';
import { readCellFormats, type CellFormats } from '../../render/cell-formats.js';
import type { RawCell } from '../../render/cell-text.js';
import { FONT_HINT, missingCharacters } from '../../render/fonts/missing-warning.js';
import { TextMeasurer } from '../../render/fonts/text-measure.js';
import { maxDigitWidth, pixelsToWidth } from '../../render/grid.js';
import type { CellState } from '../cells.js';
import { diffItem, sheetOf, type OpHandler } from './op-handler.js';
import { columnIndex, columnWidth, setColumnWidth } from './sizes.js';

/** Pixels Excel adds to the widest text of a column when it fits it (padding on both sides + gridline). */
const PADDING_PX = 7;

let measurer: TextMeasurer | undefined;

/**
 * The renderer's cell text (number formats through numfmt), loaded by loadAutoFit before an
 * auto_fit_columns op runs: a patch without one does not load numfmt, whose start was ~18 of the edit
 * engine's ~75 ms load, which a first patch pays.
 */
let cellText: typeof import('../../render/cell-text.js') | undefined;

/** Loads what auto_fit_columns needs (see prepareOps in handlers.ts). */
export async function loadAutoFit(): Promise<void> {
  cellText ??= await import('../../render/cell-text.js');
}

export const autoFitColumns: OpHandler<'auto_fit_columns'> = (op, ctx) => {
  const { edit: sheet, name } = sheetOf(ctx.edit, op.sheet);
  const formats = readCellFormats(ctx.edit.styles.render(), []);
  const mdw = maxDigitWidth(formats.defaultFont);
  measurer ??= new TextMeasurer();
  // What this op measured without a font (the measurer is kept between ops, its set with it).
  measurer.missing.clear();
  // Text in a range merged across columns does not count (Excel's AutoFit skips it too).
  const spanning = sheet.merges.filter((m) => m.end.col > m.start.col);
  const widest = new Map<number, number>();
  for (const state of sheet.rows.values()) {
    for (const cell of state.cells.values()) {
      if (cell.value === null || cell.value === '') continue;
      if (
        spanning.some(
          (m) =>
            state.row >= m.start.row &&
            state.row <= m.end.row &&
            cell.col >= m.start.col &&
            cell.col <= m.end.col,
        )
      )
        continue;
      const px = textPixels(cell, formats, ctx.edit.date1904, measurer);
      widest.set(cell.col, Math.max(widest.get(cell.col) ?? 0, px));
    }
  }
  const targets = op.columns
    ? [...new Set(op.columns.map(columnIndex))]
    : [...widest.keys()].sort((a, b) => a - b);
  const before: { column: string; width: number | null }[] = [];
  const set: string[] = [];
  const empty: string[] = [];
  for (const col of targets) {
    const px = widest.get(col);
    if (px === undefined) {
      empty.push(colIndexToAlpha(col));
      continue;
    }
    let width = pixelsToWidth(Math.ceil(px) + PADDING_PX, mdw);
    if (op.min_width !== undefined) width = Math.max(width, op.min_width);
    if (op.max_width !== undefined) width = Math.min(width, op.max_width);
    width = Math.min(255, width);
    before.push({ column: colIndexToAlpha(col), width: columnWidth(sheet, col) });
    setColumnWidth(sheet, col, width);
    set.push(`${colIndexToAlpha(col)}=${width}`);
  }
  if (measurer.missing.size > 0)
    ctx.warnings.push(
      `auto_fit_columns on "${name}": no font has ${missingCharacters(measurer.missing)}, so their widths were guessed (full width for East Asian wide characters such as 𠮷 or 😀). ${FONT_HINT}`,
    );
  if (empty.length)
    ctx.warnings.push(
      `auto_fit_columns on "${name}": column(s) ${empty.join(', ')} hold no text, so their width was left as it was.`,
    );
  if (set.length === 0) return { items: [], inverse: [] };
  return {
    items: [diffItem(ctx, op, name, null, null, { kind: 'dimension', value: `widths ${set.join(', ')}` })],
    inverse: [{ op: 'restore_design_snapshot', sheet: name, design_snapshot: { column_widths: before } }],
  };
};

/** Width in 96-dpi pixels of the widest line a cell shows (its longest word when it wraps). */
function textPixels(cell: CellState, formats: CellFormats, date1904: boolean, measure: TextMeasurer): number {
  const style = Number(cell.attrs.get('s') ?? 0);
  const format = formats.formats[style];
  const raw: RawCell = {
    type: typeof cell.value === 'boolean' ? 'b' : typeof cell.value === 'number' ? 'n' : 'str',
    value: typeof cell.value === 'boolean' ? (cell.value ? '1' : '0') : String(cell.value),
    style,
  };
  // A number kept as text in a date cell (t="d") shows as its date.
  if (cell.attrs.get('t') === 'd') raw.type = 'd';
  if (cell.attrs.get('t') === 'e') raw.type = 'e';
  if (!cellText) throw new Error('auto_fit_columns ran before loadAutoFit.');
  const shown = cellText.displayText(raw, format, [], date1904).text;
  const font = format?.font ?? formats.defaultFont;
  const textStyle = { bold: font.bold, italic: font.italic, size: font.size };
  const widthOf = (s: string) => (measure.width(s, textStyle) * 96) / 72;
  const lines = format?.wrap ? shown.split(/\s+/) : shown.split(/\r?\n/);
  const indent = (format?.indent ?? 0) * 9;
  return Math.max(...lines.map(widthOf)) + indent;
}
