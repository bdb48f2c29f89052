import { isRelType, readRelationships } from './relationships.js';
import { attr, child, children, intAttr, parseXmlTree, path, type XmlElement } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

/** A cell corner of a two/one-cell anchor: 0-based column/row plus an offset in EMU. */
export interface Marker {
  col: number;
  colOff: number;
  row: number;
  rowOff: number;
}

/** Where the drawing anchors an object on the sheet. */
export interface Anchor {
  from?: Marker;
  to?: Marker;
  /** absoluteAnchor position / oneCellAnchor size, in EMU. */
  pos?: { x: number; y: number };
  ext?: { cx: number; cy: number };
}

/** An object's box in EMU in sheet coordinates (group transforms already applied). */
export interface EmuRect {
  x: number;
  y: number;
  cx: number;
  cy: number;
}

interface ItemBase {
  /** The drawing-local id (`cNvPr id`), which connectors reference. */
  drawingId: number;
  name: string;
  /** Alt text (`cNvPr descr`). */
  descr: string;
  anchor: Anchor;
  /** From the object's own transform; undefined or zero-sized means "use the anchor". */
  rect: EmuRect | undefined;
  /** Degrees clockwise. */
  rotation: number;
  flipH: boolean;
  flipV: boolean;
  hidden: boolean;
}

export interface ShapeItem extends ItemBase {
  kind: 'shape';
  text: string;
  /** Preset geometry (`rect`, `flowChartProcess`, `straightConnector1`, …). */
  preset: string | undefined;
  textBox: boolean;
  /** A connector (`cxnSp`) or a line-shaped preset. */
  connector: boolean;
  headEnd: string | undefined;
  tailEnd: string | undefined;
  startId: number | undefined;
  endId: number | undefined;
}

export interface PictureItem extends ItemBase {
  kind: 'picture';
}

export interface ChartItem extends ItemBase {
  kind: 'chart';
  chartPart: string | undefined;
}

export interface DiagramItem extends ItemBase {
  kind: 'diagram';
  dataPart: string | undefined;
  layoutPart: string | undefined;
}

export type DrawingItem = ShapeItem | PictureItem | ChartItem | DiagramItem;

const LINE_PRESETS = /^(line|straightConnector1|bentConnector[2-5]|curvedConnector[2-5])$/;

/** A 2-D affine map from a group's child coordinate space to sheet EMU. */
interface GroupTransform {
  sx: number;
  sy: number;
  tx: number;
  ty: number;
}

const IDENTITY: GroupTransform = { sx: 1, sy: 1, tx: 0, ty: 0 };

function num(element: XmlElement | undefined, name: string): number {
  return intAttr(element, name) ?? 0;
}

function readMarker(element: XmlElement | undefined): Marker | undefined {
  if (!element) return undefined;
  const value = (name: string) => Number(child(element, name)?.text.trim() ?? 0) || 0;
  return { col: value('col'), colOff: value('colOff'), row: value('row'), rowOff: value('rowOff') };
}

function readAnchor(anchor: XmlElement): Anchor {
  const result: Anchor = {};
  const from = readMarker(child(anchor, 'from'));
  const to = readMarker(child(anchor, 'to'));
  if (from) result.from = from;
  if (to) result.to = to;
  const pos = child(anchor, 'pos');
  if (pos) result.pos = { x: num(pos, 'x'), y: num(pos, 'y') };
  const ext = child(anchor, 'ext');
  if (ext) result.ext = { cx: num(ext, 'cx'), cy: num(ext, 'cy') };
  return result;
}

function readXfrm(xfrm: XmlElement | undefined, transform: GroupTransform) {
  if (!xfrm) return { rect: undefined, rotation: 0, flipH: false, flipV: false };
  const off = child(xfrm, 'off');
  const ext = child(xfrm, 'ext');
  const rect =
    off && ext
      ? {
          x: num(off, 'x') * transform.sx + transform.tx,
          y: num(off, 'y') * transform.sy + transform.ty,
          cx: num(ext, 'cx') * transform.sx,
          cy: num(ext, 'cy') * transform.sy,
        }
      : undefined;
  return {
    rect,
    rotation: num(xfrm, 'rot') / 60000,
    flipH: xfrm.attrs.flipH === '1' || xfrm.attrs.flipH === 'true',
    flipV: xfrm.attrs.flipV === '1' || xfrm.attrs.flipV === 'true',
  };
}

/** Text of a DrawingML text body: runs concatenated, paragraphs on their own lines. */
export function textOfBody(body: XmlElement | undefined): string {
  if (!body) return '';
  const paragraphs: string[] = [];
  for (const p of children(body, 'p')) {
    let line = '';
    for (const run of p.children) {
      if (run.name === 'r' || run.name === 'fld') line += child(run, 't')?.text ?? '';
      else if (run.name === 'br') line += '\n';
    }
    paragraphs.push(line);
  }
  return paragraphs.join('\n').trim();
}

function nonVisual(element: XmlElement, wrapper: string): XmlElement | undefined {
  return path(element, wrapper, 'cNvPr');
}

function base(
  element: XmlElement,
  wrapper: string,
  xfrmHolder: XmlElement | undefined,
  anchor: Anchor,
  transform: GroupTransform,
) {
  const cNvPr = nonVisual(element, wrapper);
  const geometry = readXfrm(child(xfrmHolder, 'xfrm'), transform);
  return {
    drawingId: intAttr(cNvPr, 'id') ?? 0,
    name: cNvPr?.attrs.name ?? '',
    descr: cNvPr?.attrs.descr ?? '',
    hidden: cNvPr?.attrs.hidden === '1' || cNvPr?.attrs.hidden === 'true',
    anchor,
    ...geometry,
  };
}

/** Reads one drawing part (`xl/drawings/drawingN.xml`) into a flat list in z-order; groups are flattened. */
export async function readDrawingPart(zip: ZipArchive, part: string): Promise<DrawingItem[]> {
  const root = parseXmlTree(await zip.readText(part), part);
  const rels = await readRelationships(zip, part);
  const items: DrawingItem[] = [];
  const target = (id: string | undefined, kind: string): string | undefined => {
    const rel = id ? rels.get(id) : undefined;
    return rel && !rel.external && isRelType(rel, kind) ? rel.target : undefined;
  };

  const visit = (element: XmlElement, anchor: Anchor, transform: GroupTransform): void => {
    switch (element.name) {
      case 'sp':
      case 'cxnSp': {
        const wrapper = element.name === 'sp' ? 'nvSpPr' : 'nvCxnSpPr';
        const spPr = child(element, 'spPr');
        const preset = child(spPr, 'prstGeom')?.attrs.prst;
        const props = path(element, wrapper, element.name === 'sp' ? 'cNvSpPr' : 'cNvCxnSpPr');
        const line = child(spPr, 'ln');
        items.push({
          kind: 'shape',
          ...base(element, wrapper, spPr, anchor, transform),
          text: textOfBody(child(element, 'txBody')),
          preset,
          textBox: props?.attrs.txBox === '1' || props?.attrs.txBox === 'true',
          connector: element.name === 'cxnSp' || (preset !== undefined && LINE_PRESETS.test(preset)),
          headEnd: child(line, 'headEnd')?.attrs.type,
          tailEnd: child(line, 'tailEnd')?.attrs.type,
          startId: intAttr(child(props, 'stCxn'), 'id'),
          endId: intAttr(child(props, 'endCxn'), 'id'),
        });
        return;
      }
      case 'pic':
        items.push({
          kind: 'picture',
          ...base(element, 'nvPicPr', child(element, 'spPr'), anchor, transform),
        });
        return;
      case 'graphicFrame': {
        const data = path(element, 'graphic', 'graphicData');
        const common = base(element, 'nvGraphicFramePr', element, anchor, transform);
        const chartRef = child(data, 'chart');
        const diagramRef = child(data, 'relIds');
        if (chartRef) {
          items.push({ kind: 'chart', ...common, chartPart: target(attr(chartRef.attrs, 'id'), 'chart') });
        } else if (diagramRef) {
          items.push({
            kind: 'diagram',
            ...common,
            dataPart: target(attr(diagramRef.attrs, 'dm'), 'diagramData'),
            layoutPart: target(attr(diagramRef.attrs, 'lo'), 'diagramLayout'),
          });
        }
        return;
      }
      case 'grpSp': {
        const xfrm = path(element, 'grpSpPr', 'xfrm');
        const inner = groupTransform(xfrm, transform);
        for (const member of element.children) visit(member, anchor, inner);
        return;
      }
      case 'AlternateContent': {
        // Markup compatibility: take the first Choice (what Office writes for current readers).
        const choice = child(element, 'Choice') ?? child(element, 'Fallback');
        for (const member of choice?.children ?? []) visit(member, anchor, transform);
        return;
      }
    }
  };

  for (const element of root.children) {
    if (element.name === 'AlternateContent') {
      const choice = child(element, 'Choice') ?? child(element, 'Fallback');
      for (const anchorElement of choice?.children ?? []) visitAnchor(anchorElement);
    } else {
      visitAnchor(element);
    }
  }

  function visitAnchor(element: XmlElement): void {
    if (!/^(twoCellAnchor|oneCellAnchor|absoluteAnchor)$/.test(element.name)) return;
    const anchor = readAnchor(element);
    for (const member of element.children) visit(member, anchor, IDENTITY);
  }
  return items;
}

/** Maps a group's child coordinates (chOff/chExt) onto its own box (off/ext), composed with the parent's. */
function groupTransform(xfrm: XmlElement | undefined, parent: GroupTransform): GroupTransform {
  if (!xfrm) return parent;
  const off = child(xfrm, 'off');
  const ext = child(xfrm, 'ext');
  const chOff = child(xfrm, 'chOff');
  const chExt = child(xfrm, 'chExt');
  const cx = num(ext, 'cx');
  const cy = num(ext, 'cy');
  const chCx = num(chExt, 'cx');
  const chCy = num(chExt, 'cy');
  const sx = chCx ? cx / chCx : 1;
  const sy = chCy ? cy / chCy : 1;
  const tx = num(off, 'x') - num(chOff, 'x') * sx;
  const ty = num(off, 'y') - num(chOff, 'y') * sy;
  return {
    sx: sx * parent.sx,
    sy: sy * parent.sy,
    tx: tx * parent.sx + parent.tx,
    ty: ty * parent.sy + parent.ty,
  };
}
