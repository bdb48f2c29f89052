import { readChartPart } from '../ooxml/chart-part.js';
import { applyTint } from '../ooxml/colors.js';
import { readDrawingPart, textOfBody, type Anchor, type DrawingItem } from '../ooxml/drawing-part.js';
import { isRelType, readRelationships } from '../ooxml/relationships.js';
import { attr, child, descendants, parseXmlTree, path, type XmlElement } from '../ooxml/xml.js';
import type { ZipArchive } from '../ooxml/zip-archive.js';

/** EMU per pixel at 96 dpi. */
export const EMU_PER_PX = 9525;

/** An object of a sheet's drawing, ready to draw: where it sits and how it looks. */
export interface DrawnObject {
  kind: 'shape' | 'line' | 'picture' | 'chart';
  /** Its anchor (positions follow the grid), or `rect` in EMU from the sheet's corner (group members). */
  anchor: Anchor;
  rect: { x: number; y: number; cx: number; cy: number } | undefined;
  preset: string | undefined;
  /** RRGGBB, or null for none; undefined for the kind's default. */
  fill: string | null | undefined;
  line: string | null | undefined;
  lineWidthPx: number;
  text: string;
  textColor: string | undefined;
  flipH: boolean;
  flipV: boolean;
  headEnd: string | undefined;
  tailEnd: string | undefined;
  /** A picture's bytes as a data URL (PNG, JPEG, GIF). */
  image: string | undefined;
  /** A chart's type, title and series names (drawn as a framed placeholder). */
  chart: { type: string; title: string | undefined; series: string[] } | undefined;
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
};
const SCHEME_INDEX: Record<string, number> = {
  lt1: 0, bg1: 0, dk1: 1, tx1: 1, lt2: 2, bg2: 2, dk2: 3, tx2: 3,
  accent1: 4, accent2: 5, accent3: 6, accent4: 7, accent5: 8, accent6: 9, hlink: 10, folHlink: 11,
}; // prettier-ignore

/** Reads a sheet's drawing part into objects to draw (hidden ones left out); `warn` hears what was skipped. */
export async function readDrawnObjects(
  zip: ZipArchive,
  drawingPart: string,
  themeColors: readonly string[],
  warn: (message: string) => void,
): Promise<DrawnObject[]> {
  const items = await readDrawingPart(zip, drawingPart);
  const looks = readLooks(parseXmlTree(await zip.readText(drawingPart), drawingPart), themeColors);
  const rels = await readRelationships(zip, drawingPart);
  const perAnchor = new Map<Anchor, number>();
  for (const item of items) perAnchor.set(item.anchor, (perAnchor.get(item.anchor) ?? 0) + 1);
  const out: DrawnObject[] = [];
  for (const item of items) {
    if (item.hidden) continue;
    const look = looks.get(item.drawingId);
    const grouped = (perAnchor.get(item.anchor) ?? 0) > 1 && item.rect !== undefined;
    const base = {
      anchor: item.anchor,
      rect: grouped ? item.rect : undefined,
      preset: undefined as string | undefined,
      fill: look?.fill,
      line: look?.line,
      lineWidthPx: look?.lineWidthPx ?? 1,
      text: '',
      textColor: look?.textColor,
      flipH: item.flipH,
      flipV: item.flipV,
      headEnd: undefined as string | undefined,
      tailEnd: undefined as string | undefined,
      image: undefined as string | undefined,
      chart: undefined as DrawnObject['chart'],
    };
    try {
      out.push(await objectOf(zip, item, base, look?.embed, rels));
    } catch (error) {
      warn(`A ${item.kind} ("${item.name}") was not drawn: ${(error as Error).message}`);
    }
  }
  return out;
}

async function objectOf(
  zip: ZipArchive,
  item: DrawingItem,
  base: Omit<DrawnObject, 'kind'>,
  embed: string | undefined,
  rels: Awaited<ReturnType<typeof readRelationships>>,
): Promise<DrawnObject> {
  switch (item.kind) {
    case 'shape':
      return item.connector
        ? {
            ...base,
            kind: 'line',
            preset: item.preset,
            headEnd: item.headEnd,
            tailEnd: item.tailEnd,
            text: item.text,
          }
        : {
            ...base,
            kind: 'shape',
            preset: item.preset ?? (item.textBox ? 'rect' : 'rect'),
            text: item.text,
          };
    case 'picture': {
      const rel = embed ? rels.get(embed) : undefined;
      let image: string | undefined;
      if (rel && !rel.external && isRelType(rel, 'image') && zip.has(rel.target)) {
        const ext = rel.target.split('.').pop()!.toLowerCase();
        const mime = IMAGE_TYPES[ext];
        if (mime) image = `data:${mime};base64,${(await zip.readBuffer(rel.target)).toString('base64')}`;
      }
      return { ...base, kind: 'picture', image, text: item.descr };
    }
    case 'chart': {
      const info =
        item.chartPart && zip.has(item.chartPart) ? await readChartPart(zip, item.chartPart) : undefined;
      return {
        ...base,
        kind: 'chart',
        chart: {
          type: info?.chartType ?? 'Chart',
          title: info?.title,
          series: info?.series.map((s) => s.name).filter(Boolean) ?? [],
        },
      };
    }
    case 'diagram':
      return { ...base, kind: 'shape', preset: 'rect', fill: base.fill ?? null, text: 'SmartArt' };
  }
}

interface Look {
  fill: string | null | undefined;
  line: string | null | undefined;
  lineWidthPx: number | undefined;
  textColor: string | undefined;
  embed: string | undefined;
}

/** Fill, line and text colours of every object by its drawing id (`cNvPr id`). */
function readLooks(root: XmlElement, theme: readonly string[]): Map<number, Look> {
  const looks = new Map<number, Look>();
  const visit = (element: XmlElement) => {
    for (const el of element.children) {
      if (el.name === 'sp' || el.name === 'cxnSp' || el.name === 'pic') {
        const nv = el.children.find((c) => c.name.startsWith('nv'));
        const id = Number(child(nv, 'cNvPr')?.attrs.id ?? NaN);
        if (!Number.isNaN(id)) looks.set(id, lookOf(el, theme));
      } else visit(el);
    }
  };
  visit(root);
  return looks;
}

function lookOf(el: XmlElement, theme: readonly string[]): Look {
  const spPr = child(el, 'spPr');
  const style = child(el, 'style');
  const ln = child(spPr, 'ln');
  const paint = (holder: XmlElement | undefined, ref: XmlElement | undefined): string | null | undefined => {
    if (child(holder, 'noFill')) return null;
    const solid = child(holder, 'solidFill') ?? child(holder, 'gradFill');
    const color = solid
      ? colorOf(solid.name === 'gradFill' ? descendants(solid, 'gs')[0] : solid, theme)
      : undefined;
    if (color) return color;
    return ref && attr(ref.attrs, 'idx') !== '0' ? colorOf(ref, theme) : undefined;
  };
  const width = ln?.attrs.w ? Number(ln.attrs.w) / 9525 : undefined;
  const run = descendants(child(el, 'txBody'), 'rPr')[0] ?? descendants(child(el, 'txBody'), 'defRPr')[0];
  return {
    fill: paint(spPr, child(style, 'fillRef')),
    line: paint(ln, child(style, 'lnRef')),
    lineWidthPx: width,
    textColor: colorOf(child(run, 'solidFill'), theme) ?? colorOf(child(style, 'fontRef'), theme),
    embed:
      path(el, 'blipFill', 'blip')?.attrs['r:embed'] ?? attrByLocal(path(el, 'blipFill', 'blip'), 'embed'),
  };
}

function attrByLocal(el: XmlElement | undefined, local: string): string | undefined {
  return el ? attr(el.attrs, local) : undefined;
}

/** The colour inside a fill-like element: srgbClr, schemeClr or sysClr, with lumMod/lumOff/tint/shade. */
function colorOf(holder: XmlElement | undefined, theme: readonly string[]): string | undefined {
  if (!holder) return undefined;
  const el = holder.children.find((c) => /^(srgbClr|schemeClr|sysClr|prstClr)$/.test(c.name));
  if (!el) return undefined;
  let base: string | undefined;
  if (el.name === 'srgbClr') base = el.attrs.val;
  else if (el.name === 'sysClr') base = el.attrs.lastClr ?? (el.attrs.val === 'window' ? 'FFFFFF' : '000000');
  else if (el.name === 'schemeClr') base = theme[SCHEME_INDEX[el.attrs.val ?? ''] ?? 4];
  else base = el.attrs.val === 'black' ? '000000' : el.attrs.val === 'white' ? 'FFFFFF' : undefined;
  if (!base || !/^[0-9A-Fa-f]{6}$/.test(base)) return undefined;
  let color = base.toUpperCase();
  const mod = child(el, 'lumMod');
  const off = child(el, 'lumOff');
  if (mod && !off) color = applyTint(color, Number(mod.attrs.val) / 100000 - 1);
  else if (off) color = applyTint(color, Number(off.attrs.val) / 100000);
  const shade = child(el, 'shade');
  if (shade) color = applyTint(color, Number(shade.attrs.val) / 100000 - 1);
  const tint = child(el, 'tint');
  if (tint) color = applyTint(color, 1 - Number(tint.attrs.val) / 100000);
  return color;
}

export { textOfBody };
