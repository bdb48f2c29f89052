import type { ChartInfo } from '../ooxml/chart-part.js';
import type { DiagramInfo, DiagramNode } from '../ooxml/diagram-part.js';
import type { ChartItem, DrawingItem, ShapeItem } from '../ooxml/drawing-part.js';
import type { AnyShape, Arrow, ArrowDirection, Chart, Shape, SmartArt, SmartArtNode } from './model.js';
import type { ModeFeatures } from './modes.js';
import type { SheetGeometry } from './sheet-geometry.js';

/** DrawingML line-end types → Office MsoArrowheadStyle numbers (what the original extractor reports). */
const ARROWHEAD_STYLE: Record<string, number> = {
  none: 1,
  triangle: 2,
  arrow: 3,
  stealth: 4,
  diamond: 5,
  oval: 6,
};

/** Preset geometry names whose Office AutoShapeType name differs from a capitalised preset. */
const SHAPE_TYPE_NAMES: Record<string, string> = {
  rect: 'Rectangle',
  roundRect: 'RoundedRectangle',
  ellipse: 'Oval',
  triangle: 'IsoscelesTriangle',
  rtTriangle: 'RightTriangle',
  plus: 'Cross',
  star5: '5pointStar',
  star4: '4pointStar',
  wedgeRectCallout: 'RectangularCallout',
  wedgeRoundRectCallout: 'RoundedRectangularCallout',
  wedgeEllipseCallout: 'OvalCallout',
  straightConnector1: 'StraightConnector1',
};

export function shapeTypeName(preset: string | undefined, textBox: boolean): string | undefined {
  if (!preset) return textBox ? 'TextBox' : undefined;
  const label =
    SHAPE_TYPE_NAMES[preset] ??
    preset.replace(/^flowChart/, 'Flowchart').replace(/^./, (c) => c.toUpperCase());
  return `${textBox ? 'TextBox' : 'AutoShape'}-${label}`;
}

const COMPASS: ArrowDirection[] = ['E', 'NE', 'N', 'NW', 'W', 'SW', 'S', 'SE'];

/**
 * Compass heading of a line from its start to its end on the sheet (screen y grows downward, so a line
 * drawn down the sheet is `S`). Flips swap the ends; rotation turns the line clockwise.
 */
export function lineDirection(
  width: number,
  height: number,
  flipH: boolean,
  flipV: boolean,
  rotation: number,
): ArrowDirection | undefined {
  let dx = flipH ? -width : width;
  let dy = flipV ? -height : height;
  if (dx === 0 && dy === 0) return undefined;
  if (rotation % 360 !== 0) {
    const rad = (rotation * Math.PI) / 180;
    [dx, dy] = [dx * Math.cos(rad) - dy * Math.sin(rad), dx * Math.sin(rad) + dy * Math.cos(rad)];
  }
  const degrees = ((Math.atan2(-dy, dx) * 180) / Math.PI + 360) % 360;
  return COMPASS[Math.floor(((degrees + 22.5) % 360) / 45)];
}

export interface DrawingResources {
  charts: Map<string, ChartInfo>;
  diagrams: Map<string, DiagramInfo>;
}

function toSmartArtNodes(nodes: DiagramNode[]): SmartArtNode[] {
  return nodes.map((node) => {
    const out: SmartArtNode = { text: node.text };
    if (node.kids.length > 0) out.kids = toSmartArtNodes(node.kids);
    return out;
  });
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Turns a drawing's objects into the ExStruct shapes and charts. Every shape-like object gets a sequential
 * id in z-order (stable across modes); connectors refer to those ids through their glue points. Standard
 * mode keeps shapes with text, connectors, SmartArt, pictures with alt text and any shape a connector is
 * glued to; verbose keeps everything and adds sizes.
 */
export function buildShapesAndCharts(
  items: DrawingItem[],
  geometry: SheetGeometry,
  features: ModeFeatures,
  resources: DrawingResources,
): { shapes: AnyShape[]; charts: Chart[] } {
  const idByDrawingId = new Map<number, number>();
  let nextId = 0;
  for (const item of items) {
    if (item.kind === 'chart' || (item.kind === 'shape' && item.connector)) continue;
    idByDrawingId.set(item.drawingId, ++nextId);
  }
  const glued = new Set<number>();
  for (const item of items) {
    if (item.kind === 'shape' && item.connector) {
      if (item.startId !== undefined) glued.add(item.startId);
      if (item.endId !== undefined) glued.add(item.endId);
    }
  }

  const shapes: AnyShape[] = [];
  const charts: Chart[] = [];
  for (const item of items) {
    if (item.hidden && !features.allShapes) continue;
    const box = geometry.box(item.rect, item.anchor);
    // Key order follows the original model: id, text, l, t, (w, h), then the kind-specific fields.
    const head = (id: number | undefined, text: string | undefined) => ({
      ...(id !== undefined ? { id } : {}),
      ...(text ? { text } : {}),
      l: box.l,
      t: box.t,
      ...(features.sizes ? { w: box.w, h: box.h } : {}),
    });
    const id = idByDrawingId.get(item.drawingId);
    switch (item.kind) {
      case 'chart': {
        const info = item.chartPart ? resources.charts.get(item.chartPart) : undefined;
        if (info) charts.push(chartOf(item, info, box, features.sizes));
        break;
      }
      case 'diagram': {
        const info = item.dataPart ? resources.diagrams.get(item.dataPart) : undefined;
        if (!info) break;
        const smartArt: SmartArt = {
          ...head(id, undefined),
          kind: 'smartart',
          layout: info.layout,
          nodes: toSmartArtNodes(info.nodes),
        };
        shapes.push(smartArt);
        break;
      }
      case 'picture': {
        const alt = item.descr.trim();
        if (!features.allShapes && alt === '' && !glued.has(item.drawingId)) break;
        shapes.push({ ...head(id, alt), kind: 'shape', type: 'Picture', name: item.name });
        break;
      }
      case 'shape': {
        if (item.connector) {
          shapes.push({ ...head(undefined, item.text), ...arrowFields(item, idByDrawingId, box) });
          break;
        }
        if (!features.allShapes && item.text === '' && !glued.has(item.drawingId)) break;
        const shape: Shape = { ...head(id, item.text), kind: 'shape' };
        const type = shapeTypeName(item.preset, item.textBox);
        if (type) shape.type = type;
        if (item.rotation) shape.rotation = round1(item.rotation);
        shapes.push(shape);
        break;
      }
    }
  }
  return { shapes, charts };
}

function arrowFields(
  item: ShapeItem,
  idByDrawingId: Map<number, number>,
  box: { w: number; h: number },
): Omit<Arrow, 'l' | 't'> {
  const begin = item.startId === undefined ? undefined : idByDrawingId.get(item.startId);
  const end = item.endId === undefined ? undefined : idByDrawingId.get(item.endId);
  const width = item.rect ? item.rect.cx : box.w;
  const height = item.rect ? item.rect.cy : box.h;
  const direction = lineDirection(width, height, item.flipH, item.flipV, item.rotation);
  return {
    ...(item.rotation ? { rotation: round1(item.rotation) } : {}),
    kind: 'arrow',
    begin_arrow_style: ARROWHEAD_STYLE[item.headEnd ?? 'none'] ?? 1,
    end_arrow_style: ARROWHEAD_STYLE[item.tailEnd ?? 'none'] ?? 1,
    ...(begin !== undefined ? { begin_id: begin } : {}),
    ...(end !== undefined ? { end_id: end } : {}),
    ...(direction ? { direction } : {}),
  };
}

function chartOf(
  item: ChartItem,
  info: ChartInfo,
  box: { l: number; t: number; w: number; h: number },
  sizes: boolean,
): Chart {
  return {
    name: item.name,
    chart_type: info.chartType,
    ...(info.title ? { title: info.title } : {}),
    ...(info.xAxisTitle ? { x_axis_title: info.xAxisTitle } : {}),
    ...(info.yAxisTitle ? { y_axis_title: info.yAxisTitle } : {}),
    ...(info.yAxisRange ? { y_axis_range: info.yAxisRange } : {}),
    series: info.series.map((s) => ({
      name: s.name,
      ...(s.nameRange ? { name_range: s.nameRange } : {}),
      ...(s.xRange ? { x_range: s.xRange } : {}),
      ...(s.yRange ? { y_range: s.yRange } : {}),
    })),
    l: box.l,
    t: box.t,
    ...(sizes ? { w: box.w, h: box.h } : {}),
  };
}
