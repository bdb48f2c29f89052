import type { WorksheetInfo } from '../ooxml/worksheet-reader.js';
import type { CellFont } from './cell-formats.js';

/**
 * Width in pixels (at 96 dpi, Excel's screen unit) of the widest digit of the workbook's default font:
 * Excel counts column widths in it. Calibri 11 → 7 px; the Japanese Gothic faces (MS PGothic, Meiryo,
 * Yu Gothic) draw half-width digits on their pixel em → 8 px at 11 pt.
 */
export function maxDigitWidth(font: CellFont): number {
  const em = (font.size * 96) / 72;
  if (/gothic|ゴシック|meiryo|メイリオ|mincho|明朝|yu |游/i.test(font.name))
    return Math.ceil(Math.round(em) / 2);
  // Calibri's digits are 1038/2048 em (Arial's 1139/2048): Excel rounds the pixel width.
  const ratio = /arial|helvetica|liberation sans/i.test(font.name) ? 1139 / 2048 : 1038 / 2048;
  return Math.max(1, Math.round(em * ratio));
}

/** Column width in characters → pixels, by Excel's rule (truncate((256·w + ⌊128/mdw⌋)/256 · mdw)). */
export function widthToPixels(width: number, mdw: number): number {
  return Math.trunc(((256 * width + Math.trunc(128 / mdw)) / 256) * mdw);
}

/** Pixels → the smallest column width (two decimals) that `widthToPixels` turns into at least them. */
export function pixelsToWidth(px: number, mdw: number): number {
  return Math.ceil((px / mdw) * 100) / 100;
}

/** Row heights and column widths of a worksheet in pixels at 96 dpi, hidden ones 0. */
export class SheetGrid {
  readonly mdw: number;
  readonly defaultColPx: number;
  readonly defaultRowPx: number;
  private readonly colPx = new Map<number, number>();
  private readonly rowPx = new Map<number, number>();
  /** Rows hidden unless listed (`zeroHeight`): the rows the sheet shows without a height of their own. */
  private readonly shownRows: Set<number> | undefined;

  constructor(info: WorksheetInfo, defaultFont: CellFont) {
    this.mdw = maxDigitWidth(defaultFont);
    // Without defaultColWidth Excel draws baseColWidth digits plus 5 px, rounded up to a multiple of 8.
    this.defaultColPx =
      info.defaultColWidth !== undefined
        ? widthToPixels(info.defaultColWidth, this.mdw)
        : Math.ceil(((info.baseColWidth ?? 8) * this.mdw + 5) / 8) * 8;
    this.defaultRowPx = pointsToPixels(info.defaultRowHeight ?? defaultRowHeight(defaultFont));
    for (const col of info.columns) {
      const px = col.hidden
        ? 0
        : col.width === undefined
          ? this.defaultColPx
          : widthToPixels(col.width, this.mdw);
      for (let c = Math.max(1, col.min); c <= col.max && c <= 16384; c++) this.colPx.set(c - 1, px);
    }
    for (const [row, pt] of info.rowHeights) this.rowPx.set(row, pointsToPixels(pt));
    if (info.zeroHeight) this.shownRows = new Set(info.shownRows);
  }

  /** Whether a row without a height of its own is hidden (`<sheetFormatPr zeroHeight="1">`). */
  private hiddenByDefault(row: number): boolean {
    return this.shownRows !== undefined && !this.shownRows.has(row);
  }

  /** Width of a 0-based column. */
  col(col: number): number {
    return this.colPx.get(col) ?? this.defaultColPx;
  }

  /** Height of a 1-based row. */
  row(row: number): number {
    return this.rowPx.get(row) ?? (this.hiddenByDefault(row) ? 0 : this.defaultRowPx);
  }

  /** Whether the row's height was given (else Excel fits it to its content). */
  hasRowHeight(row: number): boolean {
    // A row hidden by default is never fitted to its text.
    return this.rowPx.has(row) || this.hiddenByDefault(row);
  }

  setRow(row: number, px: number): void {
    this.rowPx.set(row, px);
  }
}

/** Excel's row height for a font when the sheet does not say: Calibri 11 → 15 pt, MS PGothic 11 → 13.5 pt. */
export function defaultRowHeight(font: CellFont): number {
  const japanese = /gothic|ゴシック|mincho|明朝/i.test(font.name) && !/yu |游/i.test(font.name);
  return Math.round(((japanese ? 13.5 : 15) * font.size) / 11 / 0.75) * 0.75;
}

export function pointsToPixels(pt: number): number {
  return Math.round((pt * 96) / 72);
}
