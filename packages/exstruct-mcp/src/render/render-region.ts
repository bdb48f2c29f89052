import { colIndexToAlpha, type CellRange } from '../ooxml/cell-ref.js';
import type { BorderEdge, CellFormat, CellFormats } from './cell-formats.js';
import { displayText, shorterGeneral, type DisplayText, type RawCell } from './cell-text.js';
import type { DrawnObject } from './drawing.js';
import { drawObjects, objectsNear } from './draw-objects.js';
import type { TextMeasurer, TextStyle } from './fonts/text-measure.js';
import type { SheetGrid } from './grid.js';
import { sheetIndex, type SheetIndex } from './sheet-index.js';
import type { SheetView } from './sheet-scan.js';
import { SvgWriter } from './svg-writer.js';

/** A worksheet as the renderer needs it (see sheet-source.ts). */
export interface SheetSource {
  name: string;
  /** Cells by `row * 16384 + col` (1-based row, 0-based column). */
  cells: Map<number, RawCell>;
  grid: SheetGrid;
  merges: CellRange[];
  view: SheetView;
  formats: CellFormats;
  sharedStrings: readonly string[];
  date1904: boolean;
  objects: DrawnObject[];
}

export interface RenderedRegion {
  svg: string;
  /** Size in pixels at 96 dpi. */
  width: number;
  height: number;
  /** Where the cell grid starts inside the image (after the row and column headings). */
  gridLeft: number;
  gridTop: number;
  /** Left edges of the region's columns and top edges of its rows, relative to the grid (plus the end). */
  colEdges: number[];
  rowEdges: number[];
}

export const key = (row: number, col: number) => row * 16384 + col;

const GRIDLINE = 'D9D9D9';
const HEADING_FILL = 'F3F3F3';
const HEADING_LINE = 'BFBFBF';
const HEADING_TEXT = '595959';
/** Space between a cell's edge and its text, in pixels (Excel leaves about 2–3 px). */
const PAD = 3;

/**
 * Draws a rectangle of a sheet as SVG the way Excel shows it on screen at 100 %: column and row
 * headings, gridlines (unless the sheet hides them), fills, borders, values formatted by their
 * number formats with their fonts and alignment (text overflowing into empty neighbours, wrapped
 * text, #### for numbers that do not fit), merged cells, and the drawing's objects.
 */
export function renderRegion(source: SheetSource, region: CellRange, measurer: TextMeasurer): RenderedRegion {
  const { grid } = source;
  const { start, end } = region;
  fitRowHeights(source, region, measurer);
  const colEdges = [0];
  for (let c = start.col; c <= end.col; c++) colEdges.push(colEdges.at(-1)! + grid.col(c));
  const rowEdges = [0];
  for (let r = start.row; r <= end.row; r++) rowEdges.push(rowEdges.at(-1)! + grid.row(r));
  const x = (col: number) => colEdges[col - start.col]!;
  const y = (row: number) => rowEdges[row - start.row]!;
  const gridWidth = colEdges.at(-1)!;
  const gridHeight = rowEdges.at(-1)!;

  const headingStyle: TextStyle = { bold: false, italic: false, size: 10 };
  const lastRowLabel = String(end.row);
  const gridLeft = Math.ceil(measurer.width(lastRowLabel, headingStyle) * (96 / 72)) + 12;
  const gridTop = grid.defaultRowPx;
  const svg = new SvgWriter();
  svg.add(`<g transform="translate(${gridLeft} ${gridTop})">`);

  const index = sheetIndex(source);
  const merged = mergesIn(source.merges, region);
  const mergedAt = new Map<number, CellRange>();
  for (const m of merged) mergedAt.set(key(m.start.row, m.start.col), m);
  const insideMerge = (r: number, c: number) => index.mergeAt(r, c) !== undefined;
  const formatOf = (cell: RawCell | undefined): CellFormat | undefined =>
    cell ? source.formats.formats[cell.style] : undefined;

  // Gridlines first: fills and merged cells paint over the ones they hide, as in Excel. Hidden rows
  // and columns share an edge with their neighbour: it is drawn once.
  if (source.view.showGridLines) {
    let d = '';
    for (const ex of distinct(colEdges)) d += `M${ex + 0.5} 0V${gridHeight}`;
    for (const ey of distinct(rowEdges)) d += `M0 ${ey + 0.5}H${gridWidth}`;
    svg.lines(d, GRIDLINE, 1);
  }

  // Fills of single cells, then merged ranges (white when unfilled, hiding their inner gridlines).
  for (const r of index.rowsIn(start.row, end.row)) {
    if (grid.row(r) === 0) continue;
    for (const c of index.colsIn(r, start.col, end.col)) {
      const k = key(r, c);
      if (insideMerge(r, c)) continue;
      const fill = formatOf(source.cells.get(k))?.fill;
      if (fill) svg.rect(x(c), y(r), grid.col(c) + 1, grid.row(r) + 1, fill);
    }
  }
  const box = (m: CellRange) => {
    const left = sheetX(m.start.col);
    const top = sheetY(m.start.row);
    return { left, top, width: sheetX(m.end.col + 1) - left, height: sheetY(m.end.row + 1) - top };
  };
  // Positions of columns/rows outside the region (merged ranges reaching past it), relative to it.
  function sheetX(col: number): number {
    if (col >= start.col && col <= end.col + 1) return colEdges[col - start.col]!;
    let px = 0;
    if (col < start.col) for (let c = col; c < start.col; c++) px -= grid.col(c);
    else for (let c = end.col + 1; c < col; c++) px += grid.col(c);
    return col < start.col ? px : gridWidth + px;
  }
  function sheetY(row: number): number {
    if (row >= start.row && row <= end.row + 1) return rowEdges[row - start.row]!;
    let px = 0;
    if (row < start.row) for (let r = row; r < start.row; r++) px -= grid.row(r);
    else for (let r = end.row + 1; r < row; r++) px += grid.row(r);
    return row < start.row ? px : gridHeight + px;
  }
  for (const m of merged) {
    const b = box(m);
    const fill = formatOf(source.cells.get(key(m.start.row, m.start.col)))?.fill;
    // Cut to the image (plus a pixel): a merged range may reach a million pixels past it.
    const paint = (left: number, top: number, right: number, bottom: number, color: string) => {
      const s = visiblePart(left, top, right, bottom, gridWidth + 2, gridHeight + 2, -1);
      if (s) svg.rect(s.left, s.top, s.right - s.left, s.bottom - s.top, color);
    };
    if (fill) paint(b.left, b.top, b.left + b.width + 1, b.top + b.height + 1, fill);
    else paint(b.left + 1, b.top + 1, b.left + b.width, b.top + b.height, 'FFFFFF');
  }

  drawBorders(source, region, svg, x, y, index);

  // Text: every cell with a value in the region, and the anchors of merged ranges reaching into it.
  const clipAll = svg.clip(0, 0, gridWidth + 1, gridHeight + 1);
  svg.add(`<g${clipAll}>`);
  const anchors = new Set<number>();
  for (const m of merged) anchors.add(key(m.start.row, m.start.col));
  for (const r of index.rowsIn(start.row, end.row)) {
    if (grid.row(r) === 0) continue;
    for (const c of index.colsIn(r, start.col, end.col)) {
      const k = key(r, c);
      if (insideMerge(r, c) && !mergedAt.has(k)) continue;
      if (grid.col(c) === 0 && !mergedAt.has(k)) continue;
      anchors.delete(k);
      drawCellText(r, c);
    }
  }
  for (const k of anchors) drawCellText(Math.floor(k / 16384), k % 16384);
  svg.add('</g>');

  function drawCellText(row: number, col: number): void {
    const cell = source.cells.get(key(row, col));
    if (!cell || cell.value === undefined) return;
    const format = formatOf(cell);
    const shown = displayText(cell, format, source.sharedStrings, source.date1904);
    if (shown.text === '') return;
    const m = mergedAt.get(key(row, col));
    const b = m
      ? box(m)
      : { left: sheetX(col), top: sheetY(row), width: grid.col(col), height: grid.row(row) };
    layoutCellText(shown, format, b, row, col, m !== undefined);
  }

  function layoutCellText(
    shown: DisplayText,
    format: CellFormat | undefined,
    b: { left: number; top: number; width: number; height: number },
    row: number,
    col: number,
    isMerged: boolean,
  ): void {
    const font = format?.font ?? source.formats.defaultFont;
    const style: TextStyle = { bold: font.bold, italic: font.italic, size: font.size };
    const color = shown.color ?? font.color ?? '000000';
    const px = (font.size * 96) / 72;
    const lineHeight = lineHeightPx(measurer, style);
    const indent = (format?.indent ?? 0) * 9;
    const inner = Math.max(0, b.width - 2 * PAD - indent);
    const widthOf = (s: string) => (measurer.width(s, style) * 96) / 72;
    let lines: string[];
    if (format?.wrap && !shown.numeric) lines = wrapText(shown.text, inner, widthOf);
    else lines = [shown.text.replace(/\r?\n/g, '')];
    if (shown.numeric && widthOf(lines[0]!) > b.width - 2 * PAD + 1) {
      let fitted: string | undefined;
      if (shown.number !== undefined)
        for (const candidate of shorterGeneral(shown.number)) {
          if (widthOf(candidate) <= b.width - 2 * PAD) {
            fitted = candidate;
            break;
          }
        }
      lines = [fitted ?? '#'.repeat(Math.max(1, Math.floor((b.width - 2) / Math.max(1, widthOf('#')))))];
    }
    let align = format?.horizontal ?? 'general';
    if (align === 'general') align = shown.align;
    if (align === 'centerContinuous' || align === 'distributed') align = 'center';
    if (align === 'fill' || align === 'justify') align = 'left';
    const vertical = format?.vertical ?? 'bottom';
    const blockHeight = lines.length * lineHeight;
    const ascent = ascentPx(measurer, style);
    let top: number;
    if (vertical === 'top') top = b.top + 1;
    else if (vertical === 'center' || vertical === 'distributed' || vertical === 'justify')
      top = b.top + (b.height - blockHeight) / 2;
    else top = b.top + b.height - blockHeight - 1;

    // How far the text may spread: wrapped, merged and numeric cells stay inside their box; other text
    // overflows into empty neighbours in the direction it is aligned.
    let clipLeft = b.left;
    let clipRight = b.left + b.width;
    const widest = Math.max(...lines.map(widthOf));
    const overflows = !format?.wrap && !isMerged && !shown.numeric && widest > inner;
    if (overflows) {
      const need = widest + 2 * PAD + indent;
      if (align === 'left') clipRight = spread(row, col, +1, b.left + need);
      else if (align === 'right') clipLeft = spread(row, col, -1, b.left + b.width - need);
      else {
        const extra = (need - b.width) / 2;
        clipLeft = spread(row, col, -1, b.left - extra);
        clipRight = spread(row, col, +1, b.left + b.width + extra);
      }
    }
    // Only what shows in the image is written: a merged range may reach far past it (A2:A301 drawn as
    // A1:C30), and resvg fails on clipped text far outside its canvas. Lines keep the places they have
    // in the whole box, so a label sits where Excel and LibreOffice put it (at the foot of A2:A301).
    const view = visiblePart(clipLeft, b.top, clipRight, b.top + b.height, gridWidth + 1, gridHeight + 1);
    if (!view) return;
    const clipped = !overflows || clipRight - clipLeft < widest + 2 * PAD || blockHeight > b.height;
    if (clipped)
      svg.add(`<g${svg.clip(view.left, view.top, view.right - view.left, view.bottom - view.top)}>`);
    lines.forEach((line, i) => {
      const w = widthOf(line);
      let lx: number;
      if (align === 'right') lx = b.left + b.width - PAD - indent - w;
      else if (align === 'center') lx = b.left + (b.width - w) / 2;
      else lx = b.left + PAD + indent;
      const lineTop = top + i * lineHeight;
      if (lineTop + lineHeight < view.top || lineTop > view.bottom || lx + w < view.left || lx > view.right)
        return;
      svg.text(measurer, line, lx, top + i * lineHeight + ascent, {
        ...style,
        color,
        underline: font.underline,
        strike: font.strike,
      });
    });
    if (clipped) svg.add('</g>');
    void px;
  }

  /** Extends an overflowing text over empty, unmerged neighbours until `target` is reached. */
  function spread(row: number, col: number, step: 1 | -1, target: number): number {
    let edge = step > 0 ? sheetX(col + 1) : sheetX(col);
    for (let c = col + step; c >= 0 && c <= 16383; c += step) {
      if (step > 0 ? edge >= target : edge <= target) break;
      const neighbour = source.cells.get(key(row, c));
      if ((neighbour && neighbour.value !== undefined && neighbour.value !== '') || insideMerge(row, c))
        break;
      edge = step > 0 ? sheetX(c + 1) : sheetX(c);
      if (c < start.col - 1 || c > end.col + 1) break;
    }
    return edge;
  }

  drawObjects(
    svg,
    objectsNear(source.objects, region),
    { x: sheetX, y: sheetY, width: gridWidth, height: gridHeight },
    measurer,
  );
  svg.add('</g>');
  drawHeadings(svg, region, colEdges, rowEdges, gridLeft, gridTop, measurer, headingStyle, source.grid);
  return {
    svg: svg.finish(gridLeft + gridWidth + 1, gridTop + gridHeight + 1),
    width: gridLeft + gridWidth + 1,
    height: gridTop + gridHeight + 1,
    gridLeft,
    gridTop,
    colEdges,
    rowEdges,
  };
}

/** The part of a rectangle (edges) inside `from`…`width` × `from`…`height`, or undefined when none is. */
function visiblePart(
  left: number,
  top: number,
  right: number,
  bottom: number,
  width: number,
  height: number,
  from = 0,
): { left: number; top: number; right: number; bottom: number } | undefined {
  const s = {
    left: Math.max(left, from),
    top: Math.max(top, from),
    right: Math.min(right, width),
    bottom: Math.min(bottom, height),
  };
  return s.right > s.left && s.bottom > s.top ? s : undefined;
}

/** The values of an ascending list, each once. */
function distinct(sorted: number[]): number[] {
  return sorted.filter((v, i) => i === 0 || v !== sorted[i - 1]);
}

function mergesIn(merges: CellRange[], region: CellRange): CellRange[] {
  return merges.filter(
    (m) =>
      m.start.row <= region.end.row &&
      m.end.row >= region.start.row &&
      m.start.col <= region.end.col &&
      m.end.col >= region.start.col,
  );
}

export function lineHeightPx(measurer: TextMeasurer, style: TextStyle): number {
  const face = measurer.latinFace(style);
  return Math.ceil(((style.size * 96) / 72) * ((face.winAscent + face.winDescent) / face.unitsPerEm));
}

function ascentPx(measurer: TextMeasurer, style: TextStyle): number {
  const face = measurer.latinFace(style);
  return ((style.size * 96) / 72) * (face.winAscent / face.unitsPerEm);
}

/** Breaks text into lines no wider than `width`: at spaces, and between any two CJK characters. */
export function wrapText(text: string, width: number, widthOf: (s: string) => number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    const tokens = paragraph.match(
      /[\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF00-\uFFEF]|[^\s\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF00-\uFFEF]+|\s+/g,
    ) ?? [''];
    let line = '';
    for (const token of tokens) {
      const next = line + token;
      if (line !== '' && widthOf(next.trimEnd()) > width) {
        out.push(line.trimEnd());
        line = /^\s+$/.test(token) ? '' : token;
        // A word wider than the cell is cut by characters.
        while (widthOf(line) > width && [...line].length > 1) {
          const chars = [...line];
          let cut = chars.length - 1;
          while (cut > 1 && widthOf(chars.slice(0, cut).join('')) > width) cut--;
          out.push(chars.slice(0, cut).join(''));
          line = chars.slice(cut).join('');
        }
      } else line = next;
    }
    out.push(line.trimEnd());
  }
  return out;
}

/** Rows whose height the sheet does not give are as tall as their tallest content, as Excel fits them. */
export function fitRowHeights(source: SheetSource, region: CellRange, measurer: TextMeasurer): void {
  const { grid } = source;
  const index = sheetIndex(source);
  // Only rows holding cells can grow: the others keep the default height.
  for (const r of index.rowsIn(region.start.row, region.end.row)) {
    if (grid.hasRowHeight(r)) continue;
    let need = grid.defaultRowPx;
    for (const c of index.colsIn(r, region.start.col, region.end.col)) {
      const cell = source.cells.get(key(r, c));
      // Excel never grows a row for a merged cell's text.
      if (!cell || cell.value === undefined || index.mergeAt(r, c)) continue;
      const format = source.formats.formats[cell.style];
      if (!format) continue;
      const style = { bold: format.font.bold, italic: format.font.italic, size: format.font.size };
      let lines = 1;
      if (format.wrap) {
        const shown = displayText(cell, format, source.sharedStrings, source.date1904);
        const inner = grid.col(c) - 2 * PAD - format.indent * 9;
        lines = wrapText(shown.text, inner, (s) => (measurer.width(s, style) * 96) / 72).length;
      }
      need = Math.max(need, lines * lineHeightPx(measurer, style) + 2);
    }
    grid.setRow(r, need);
  }
}

const BORDER_WIDTH: Record<string, number> = {
  thin: 1,
  hair: 1,
  dotted: 1,
  dashed: 1,
  dashDot: 1,
  dashDotDot: 1,
  medium: 2,
  mediumDashed: 2,
  mediumDashDot: 2,
  mediumDashDotDot: 2,
  slantDashDot: 2,
  thick: 3,
  double: 3,
};
const BORDER_DASH: Record<string, string> = {
  hair: '1 1',
  dotted: '1 2',
  dashed: '3 1',
  dashDot: '5 2 1 2',
  dashDotDot: '5 2 1 2 1 2',
  mediumDashed: '6 2',
  mediumDashDot: '6 2 2 2',
  mediumDashDotDot: '6 2 2 2 2 2',
  slantDashDot: '6 2 2 2',
};

/** Cell borders, grouped into one path per style and colour; edges inside merged ranges are not drawn. */
function drawBorders(
  source: SheetSource,
  region: CellRange,
  svg: SvgWriter,
  x: (col: number) => number,
  y: (row: number) => number,
  index: SheetIndex,
): void {
  const paths = new Map<string, string>();
  const add = (edge: BorderEdge, d: string) => {
    const id = `${edge.style}|${edge.color}`;
    paths.set(id, (paths.get(id) ?? '') + d);
  };
  const inMergeInterior = (m: CellRange, r: number, c: number, side: 'left' | 'right' | 'top' | 'bottom') => {
    if (side === 'left') return c > m.start.col;
    if (side === 'right') return c < m.end.col;
    if (side === 'top') return r > m.start.row;
    return r < m.end.row;
  };
  const { start, end } = region;
  for (const r of index.rowsIn(start.row, end.row)) {
    for (const c of index.colsIn(r, start.col, end.col)) {
      const cell = source.cells.get(key(r, c));
      if (!cell) continue;
      const format = source.formats.formats[cell.style];
      if (!format || !(format.left || format.right || format.top || format.bottom)) continue;
      const x0 = x(c);
      const x1 = x(c + 1);
      const y0 = y(r);
      const y1 = y(r + 1);
      const m = index.mergeAt(r, c);
      const edge = (
        e: BorderEdge | undefined,
        side: 'left' | 'right' | 'top' | 'bottom',
        d: () => string,
      ) => {
        if (e && !(m && inMergeInterior(m, r, c, side))) add(e, d());
      };
      const off = (e: BorderEdge | undefined) =>
        (BORDER_WIDTH[e?.style ?? 'thin'] ?? 1) % 2 === 1 ? 0.5 : 0;
      edge(format.left, 'left', () => `M${x0 + off(format.left)} ${y0}V${y1 + 1}`);
      edge(format.right, 'right', () => `M${x1 + off(format.right)} ${y0}V${y1 + 1}`);
      edge(format.top, 'top', () => `M${x0} ${y0 + off(format.top)}H${x1 + 1}`);
      edge(format.bottom, 'bottom', () => `M${x0} ${y1 + off(format.bottom)}H${x1 + 1}`);
    }
  }
  for (const [id, d] of paths) {
    const [style, color] = id.split('|') as [string, string];
    if (style === 'double') {
      // Two thin lines three pixels apart: the middle is painted white over a 3 px line.
      svg.lines(d, color, 3);
      svg.lines(d, 'FFFFFF', 1);
    } else svg.lines(d, color, BORDER_WIDTH[style] ?? 1, BORDER_DASH[style]);
  }
}

function drawHeadings(
  svg: SvgWriter,
  region: CellRange,
  colEdges: number[],
  rowEdges: number[],
  gridLeft: number,
  gridTop: number,
  measurer: TextMeasurer,
  style: TextStyle,
  grid: SheetGrid,
): void {
  const width = gridLeft + colEdges.at(-1)!;
  const height = gridTop + rowEdges.at(-1)!;
  svg.rect(0, 0, width + 1, gridTop, HEADING_FILL);
  svg.rect(0, 0, gridLeft, height + 1, HEADING_FILL);
  let d = `M0 ${gridTop - 0.5}H${width + 1}M${gridLeft - 0.5} 0V${height + 1}`;
  const px = (style.size * 96) / 72;
  const baseline = (top: number, h: number) => top + h / 2 + px * 0.35;
  const color = { ...style, color: HEADING_TEXT };
  for (let i = 0; i + 1 < colEdges.length; i++) {
    const left = gridLeft + colEdges[i]!;
    const w = colEdges[i + 1]! - colEdges[i]!;
    if (w === 0) continue;
    d += `M${left + w + 0.5} 0V${gridTop}`;
    if (w < 8) continue;
    const label = colIndexToAlpha(region.start.col + i);
    const lw = (measurer.width(label, style) * 96) / 72;
    svg.text(measurer, label, left + (w - lw) / 2, baseline(0, gridTop), color);
  }
  for (let i = 0; i + 1 < rowEdges.length; i++) {
    const top = gridTop + rowEdges[i]!;
    const h = rowEdges[i + 1]! - rowEdges[i]!;
    if (h === 0) continue;
    d += `M0 ${top + h + 0.5}H${gridLeft}`;
    if (h < 8) continue;
    const label = String(region.start.row + i);
    const lw = (measurer.width(label, style) * 96) / 72;
    svg.text(measurer, label, gridLeft - 5 - lw, baseline(top, h), color);
  }
  svg.lines(d, HEADING_LINE, 1);
  void grid;
}
