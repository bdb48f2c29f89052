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
        else placeholder(svg, box, `Picture${object.text ? `: ${object.text}` : ''}`, measurer);
        break;
      case 'chart': {
        const chart = object.chart!;
        const lines = [`${chart.type} chart${chart.title ? `: ${chart.title}` : ''}`];
        if (chart.series.length) lines.push(`Series: ${chart.series.join(', ')}`);
        placeholder(svg, box, lines.join('\n'), measurer);
        break;
      }
      case 'shape':
        drawShape(svg, object, box, measurer);
        break;
    }
  }
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
  const origin = { x: at.x(0), y: at.y(1) };
  if (object.rect) {
    const r = object.rect;
    return {
      x: origin.x + r.x / EMU_PER_PX,
      y: origin.y + r.y / EMU_PER_PX,
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
  if (pos)
    return {
      x: origin.x + pos.x / EMU_PER_PX,
      y: origin.y + pos.y / EMU_PER_PX,
      w: (ext?.cx ?? 0) / EMU_PER_PX,
      h: (ext?.cy ?? 0) / EMU_PER_PX,
    };
  return undefined;
}

function drawShape(
  svg: SvgWriter,
  object: DrawnObject,
  box: { x: number; y: number; w: number; h: number },
  measurer: TextMeasurer,
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
    centredText(svg, object.text, box, measurer, color);
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
): void {
  svg.add(
    `<rect x="${n(box.x + 0.5)}" y="${n(box.y + 0.5)}" width="${n(box.w)}" height="${n(box.h)}" fill="#F7F9FC" stroke="#7F8FA9" stroke-width="1" stroke-dasharray="6 3"/>`,
  );
  centredText(svg, label, box, measurer, '44546A');
}

function centredText(
  svg: SvgWriter,
  text: string,
  box: { x: number; y: number; w: number; h: number },
  measurer: TextMeasurer,
  color: string,
): void {
  const style = { bold: false, italic: false, size: 11 };
  const widthOf = (s: string) => (measurer.width(s, style) * 96) / 72;
  const lines = wrapText(text, Math.max(10, box.w - 8), widthOf);
  const lh = lineHeightPx(measurer, style);
  const top = box.y + (box.h - lines.length * lh) / 2 + lh * 0.78;
  svg.add(`<g${svg.clip(box.x, box.y, box.w, box.h)}>`);
  lines.forEach((line, i) =>
    svg.text(measurer, line, box.x + (box.w - widthOf(line)) / 2, top + i * lh, { ...style, color }),
  );
  svg.add('</g>');
  void escapeXml;
}
