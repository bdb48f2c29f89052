import type { CellRange } from '../ooxml/cell-ref.js';

/** Most pixels one image may have at the asked dpi (a range or a page of a whole sheet alike). */
export const MAX_IMAGE_PIXELS = 24_000_000;
/** Longest side of an image in pixels: what image viewers and decoders reliably open (and 2^15 − 1). */
export const MAX_IMAGE_SIDE = 32_767;
/** A whole sheet is cut into pages of about this size (96-dpi pixels), at rows and columns. */
const PAGE = { width: 1600, height: 2000 };
/** Room the row and column headings take around the cells (96-dpi pixels, generous). */
const HEADINGS = { width: 64, height: 24 };

export interface Pages {
  /** How many images the area makes (known before any is listed: it may be millions). */
  count: number;
  /** The pages, column strip by column strip. */
  list(): CellRange[];
}

/**
 * Cuts an area into pages at rows and columns so that no image passes the pixel budget at `dpi`: a
 * range is one image unless it passes 24 megapixels (or the longest side); a whole sheet (`explicit`
 * false) is cut at its manual page breaks and into screen-sized pages, smaller at high dpi. A row or
 * column larger than a page is a page of its own (cells are never cut).
 */
export function paginate(
  grid: { col(c: number): number; row(r: number): number },
  area: CellRange,
  view: { rowBreaks: number[]; colBreaks: number[] },
  explicit: boolean,
  dpi: number,
): Pages {
  const scale = dpi / 96;
  const budget = MAX_IMAGE_PIXELS / (scale * scale);
  const side = MAX_IMAGE_SIDE / scale;
  let limit: { width: number; height: number };
  if (explicit) {
    let width = 0;
    for (let c = area.start.col; c <= area.end.col; c++) width += grid.col(c);
    let height = 0;
    for (let r = area.start.row; r <= area.end.row; r++) height += grid.row(r);
    // As wide as the budget allows for the whole height, but no wider than a square page when tall.
    const w = Math.min(
      width,
      side - HEADINGS.width,
      Math.max(Math.sqrt(budget), budget / (height + HEADINGS.height)) - HEADINGS.width,
    );
    const h = Math.min(side, budget / (w + HEADINGS.width)) - HEADINGS.height;
    limit = { width: Math.max(1, w), height: Math.max(1, h) };
  } else {
    const full = (PAGE.width + HEADINGS.width) * (PAGE.height + HEADINGS.height);
    const shrink = Math.min(1, Math.sqrt(budget / full));
    limit = { width: PAGE.width * shrink, height: PAGE.height * shrink };
  }
  const cut = (from: number, to: number, size: (i: number) => number, max: number, breaks: Set<number>) => {
    const spans: [number, number][] = [];
    let begin = from;
    let sum = 0;
    for (let i = from; i <= to; i++) {
      const s = size(i);
      if (i > begin && (sum + s > max || (!explicit && breaks.has(i - 1)))) {
        spans.push([begin, i - 1]);
        begin = i;
        sum = 0;
      }
      sum += s;
    }
    spans.push([begin, to]);
    return spans;
  };
  const rows = cut(area.start.row, area.end.row, (r) => grid.row(r), limit.height, new Set(view.rowBreaks));
  // Column breaks count columns from 1 (a break after column B is id 2): shift to 0-based.
  const cols = cut(
    area.start.col,
    area.end.col,
    (c) => grid.col(c),
    limit.width,
    new Set(view.colBreaks.map((b) => b - 1)),
  );
  return {
    count: rows.length * cols.length,
    list() {
      const pages: CellRange[] = [];
      for (const [c1, c2] of cols)
        for (const [r1, r2] of rows) pages.push({ start: { row: r1, col: c1 }, end: { row: r2, col: c2 } });
      return pages;
    },
  };
}
