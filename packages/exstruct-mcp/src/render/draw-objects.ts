import type { CellRange } from '../ooxml/cell-ref.js';
import type { Marker } from '../ooxml/drawing-part.js';
import { EMU_PER_PX, type DrawnObject } from './drawing.js';
import type { TextMeasurer } from './fonts/text-measure.js';
import { wrapText, lineHeightPx } from './render-region.js';
import { escapeXml, n, type SvgWriter } from './svg-writer.js';

/** Where columns and rows of the sheet lie in the image (pixels, relative to the region's corner). */
export interface Placement {
  x(col: number): number;
  y(row: number): number;
  width: number;
  height: number;
}

const DEFAULT_SHAPE_FILL = '4472C4';
const DEFAULT_SHAPE_LINE = '2F528F';

/** Draws shapes, connectors, pictures and chart frames over the cells, in the drawing's order. */
export function drawObjects(
  svg: SvgWriter,
  objects: DrawnObject[],
  at: Placement,
  measurer: TextMeasurer,
): void {
  for (const object of objects) {
    const box = boxOf(object, at);
    if (!box || box.x > at.width || box.y > at.height || box.x + box.w < 0 || box.y + box.h < 0) continue;
    switch (object.kind) {
      case 'line':
        drawLine(svg, object, box);
        break;
      case 'picture':
        if (object.image)
          svg.add(
            `<image x="${n(box.x)}" y="${n(box.y)}" width="${n(box.w)}" height="${n(box.h)}" preserveAspectRatio="none" xlink:href="${object.image}"/>`,
          );
        else placeholder(svg, box, `Picture${object.text ? `: ${object.text}` : ''}`, measurer, at);
        break;
      case 'chart': {
        const chart = object.chart!;
        const lines = [`${chart.type} chart${chart.title ? `: ${chart.title}` : ''}`];
        if (chart.series.length) lines.push(`Series: ${chart.series.join(', ')}`);
        placeholder(svg, box, lines.join('\n'), measurer, at);
        break;
      }
      case 'shape':
        drawShape(svg, object, box, measurer, at);
        break;
    }
  }
}

/**
 * The objects whose anchor may reach into `region` (group members carry their group's anchor). The
 * others are left out before any position is found: placing a far row walks every row between.
 */
export function objectsNear(objects: DrawnObject[], region: CellRange): DrawnObject[] {
  return objects.filter(({ anchor: { from, to } }) => {
    if (!from) return true;
    // Markers count rows from 0, columns from 0.
    if (from.row + 1 > region.end.row || from.col > region.end.col) return false;
    return !to || (to.row + 1 >= region.start.row && to.col >= region.start.col);
  });
}

function markerX(m: Marker, at: Placement): number {
  return at.x(m.col) + m.colOff / EMU_PER_PX;
}
function markerY(m: Marker, at: Placement): number {
  return at.y(m.row + 1) + m.rowOff / EMU_PER_PX; // markers count rows from 0
}

/** The object's box: its own transform inside groups, else its anchor on the grid. */
function boxOf(
  object: DrawnObject,
  at: Placement,
): { x: number; y: number; w: number; h: number } | undefined {
  // The sheet's corner, found only when needed (from a page far down it walks every row above).
  const origin = () => ({ x: at.x(0), y: at.y(1) });
  if (object.rect) {
    const { x, y } = origin();
    const r = object.rect;
    return {
      x: x + r.x / EMU_PER_PX,
      y: y + r.y / EMU_PER_PX,
      w: r.cx / EMU_PER_PX,
      h: r.cy / EMU_PER_PX,
    };
  }
  const { from, to, pos, ext } = object.anchor;
  if (from) {
    const x = markerX(from, at);
    const y = markerY(from, at);
    if (to) return { x, y, w: markerX(to, at) - x, h: markerY(to, at) - y };
    return { x, y, w: (ext?.cx ?? 0) / EMU_PER_PX, h: (ext?.cy ?? 0) / EMU_PER_PX };
  }
  if (pos) {
    const { x, y } = origin();
    return {
      x: x + pos.x / EMU_PER_PX,
      y: y + pos.y / EMU_PER_PX,
      w: (ext?.cx ?? 0) / EMU_PER_PX,
      h: (ext?.cy ?? 0) / EMU_PER_PX,
    };
  }
  return undefined;
}

function drawShape(
  svg: SvgWriter,
  object: DrawnObject,
  box: { x: number; y: number; w: number; h: number },
  measurer: TextMeasurer,
  at: Placement,
): void {
  const fill = object.fill === null ? 'none' : `#${object.fill ?? DEFAULT_SHAPE_FILL}`;
  const line = object.line === null ? 'none' : `#${object.line ?? DEFAULT_SHAPE_LINE}`;
  const paint = `fill="${fill}" stroke="${line}" stroke-width="${n(object.lineWidthPx)}"`;
  const { x, y, w, h } = box;
  const preset = object.preset ?? 'rect';
  if (preset === 'ellipse' || preset === 'flowChartConnector')
    svg.add(
      `<ellipse cx="${n(x + w / 2)}" cy="${n(y + h / 2)}" rx="${n(w / 2)}" ry="${n(h / 2)}" ${paint}/>`,
    );
  else if (/roundRect|flowChartAlternateProcess|flowChartTerminator/.test(preset))
    svg.add(
      `<rect x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" rx="${n(Math.min(w, h) / (preset === 'flowChartTerminator' ? 2 : 6))}" ${paint}/>`,
    );
  else if (preset === 'flowChartDecision' || preset === 'diamond')
    svg.add(
      `<path d="M${n(x + w / 2)} ${n(y)}L${n(x + w)} ${n(y + h / 2)}L${n(x + w / 2)} ${n(y + h)}L${n(x)} ${n(y + h / 2)}Z" ${paint}/>`,
    );
  else if (preset === 'triangle')
    svg.add(`<path d="M${n(x + w / 2)} ${n(y)}L${n(x + w)} ${n(y + h)}L${n(x)} ${n(y + h)}Z" ${paint}/>`);
  else svg.add(`<rect x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" ${paint}/>`);
  if (object.text) {
    const color =
      object.textColor ?? (object.fill === null || object.fill === undefined ? '000000' : 'FFFFFF');
    centredText(svg, object.text, box, measurer, color, at);
  }
}

function drawLine(
  svg: SvgWriter,
  object: DrawnObject,
  box: { x: number; y: number; w: number; h: number },
): void {
  const x1 = object.flipH ? box.x + box.w : box.x;
  const x2 = object.flipH ? box.x : box.x + box.w;
  const y1 = object.flipV ? box.y + box.h : box.y;
  const y2 = object.flipV ? box.y : box.y + box.h;
  const color = object.line === null ? 'none' : (object.line ?? '000000');
  const width = Math.max(1, object.lineWidthPx);
  svg.add(
    `<path d="M${n(x1)} ${n(y1)}L${n(x2)} ${n(y2)}" stroke="#${color}" stroke-width="${n(width)}" fill="none"/>`,
  );
  const head = (fromX: number, fromY: number, toX: number, toY: number) => {
    const angle = Math.atan2(toY - fromY, toX - fromX);
    const size = 4 + 2 * width;
    const p = (a: number) => `${n(toX - size * Math.cos(angle + a))} ${n(toY - size * Math.sin(angle + a))}`;
    svg.add(`<path d="M${n(toX)} ${n(toY)}L${p(0.45)}L${p(-0.45)}Z" fill="#${color}"/>`);
  };
  if (object.tailEnd && object.tailEnd !== 'none') head(x1, y1, x2, y2);
  if (object.headEnd && object.headEnd !== 'none') head(x2, y2, x1, y1);
}

/** A frame with a label, for what is not drawn itself (charts; pictures whose image is unreadable). */
function placeholder(
  svg: SvgWriter,
  box: { x: number; y: number; w: number; h: number },
  label: string,
  measurer: TextMeasurer,
  at: Placement,
): void {
  svg.add(
    `<rect x="${n(box.x + 0.5)}" y="${n(box.y + 0.5)}" width="${n(box.w)}" height="${n(box.h)}" fill="#F7F9FC" stroke="#7F8FA9" stroke-width="1" stroke-dasharray="6 3"/>`,
  );
  centredText(svg, label, box, measurer, '44546A', at);
}

function centredText(
  svg: SvgWriter,
  text: string,
  box: { x: number; y: number; w: number; h: number },
  measurer: TextMeasurer,
  color: string,
  at: Placement,
): void {
  const style = { bold: false, italic: false, size: 11 };
  const widthOf = (s: string) => (measurer.width(s, style) * 96) / 72;
  const lines = wrapText(text, Math.max(10, box.w - 8), widthOf);
  const lh = lineHeightPx(measurer, style);
  const top = box.y + (box.h - lines.length * lh) / 2 + lh * 0.78;
  // Only the lines inside the image are written, clipped to it: an object may reach far past the page,
  // and resvg fails on clipped text far outside its canvas.
  const left = Math.max(box.x, 0);
  const right = Math.min(box.x + box.w, at.width + 1);
  const upper = Math.max(box.y, 0);
  const lower = Math.min(box.y + box.h, at.height + 1);
  if (right <= left || lower <= upper) return;
  svg.add(`<g${svg.clip(left, upper, right - left, lower - upper)}>`);
  lines.forEach((line, i) => {
    const baseline = top + i * lh;
    const width = widthOf(line);
    const x = box.x + (box.w - width) / 2;
    if (baseline + lh < upper || baseline - lh > lower || x + width < left || x > right) return;
    svg.text(measurer, line, x, baseline, { ...style, color });
  });
  svg.add('</g>');
  void escapeXml;
}
