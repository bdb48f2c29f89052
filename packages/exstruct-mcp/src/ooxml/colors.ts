import { attr, children, parseXmlTree, type XmlElement } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

/** A colour as written in styles.xml (`<fgColor rgb|theme+tint|indexed|auto/>`). */
export interface ColorRef {
  rgb?: string;
  theme?: number;
  tint?: number;
  indexed?: number;
  auto?: boolean;
}

/** Excel's default 64-entry indexed palette (indexes 0–63), as RRGGBB. */
const INDEXED_PALETTE = [
  '000000', 'FFFFFF', 'FF0000', '00FF00', '0000FF', 'FFFF00', 'FF00FF', '00FFFF',
  '000000', 'FFFFFF', 'FF0000', '00FF00', '0000FF', 'FFFF00', 'FF00FF', '00FFFF',
  '800000', '008000', '000080', '808000', '800080', '008080', 'C0C0C0', '808080',
  '9999FF', '993366', 'FFFFCC', 'CCFFFF', '660066', 'FF8080', '0066CC', 'CCCCFF',
  '000080', 'FF00FF', 'FFFF00', '00FFFF', '800080', '800000', '008080', '0000FF',
  '00CCFF', 'CCFFFF', 'CCFFCC', 'FFFF99', '99CCFF', 'FF99CC', 'CC99FF', 'FFCC99',
  '3366FF', '33CCCC', '99CC00', 'FFCC00', 'FF9900', 'FF6600', '666699', '969696',
  '003366', '339966', '003300', '333300', '993300', '993366', '333399', '333333',
]; // prettier-ignore

/** The Office default theme, used when a workbook has no theme part. */
const DEFAULT_THEME = [
  'FFFFFF', '000000', 'E7E6E6', '44546A', '4472C4', 'ED7D31',
  'A5A5A5', 'FFC000', '5B9BD5', '70AD47', '0563C1', '954F72',
]; // prettier-ignore

export function colorFromAttrs(attrs: Record<string, string>): ColorRef {
  const color: ColorRef = {};
  if (attrs.rgb) color.rgb = attrs.rgb;
  if (attrs.theme !== undefined) color.theme = Number(attrs.theme);
  if (attrs.tint !== undefined) color.tint = Number(attrs.tint);
  if (attrs.indexed !== undefined) color.indexed = Number(attrs.indexed);
  if (attrs.auto === '1' || attrs.auto === 'true') color.auto = true;
  return color;
}

/**
 * Reads the theme's colour scheme in the order styles.xml indexes it: lt1, dk1, lt2, dk2, accent1–6,
 * hlink, folHlink (Excel swaps the first two pairs relative to the XML order).
 */
export async function readThemeColors(zip: ZipArchive, part: string | undefined): Promise<string[]> {
  if (!part || !zip.has(part)) return DEFAULT_THEME;
  const theme = parseXmlTree(await zip.readText(part), part);
  const scheme = findFirst(theme, 'clrScheme');
  if (!scheme) return DEFAULT_THEME;
  const pick = (name: string, fallback: string): string => {
    const slot = children(scheme, name)[0]?.children[0];
    if (!slot) return fallback;
    return (attr(slot.attrs, 'lastClr') ?? attr(slot.attrs, 'val') ?? fallback).toUpperCase();
  };
  const order = [
    'lt1',
    'dk1',
    'lt2',
    'dk2',
    'accent1',
    'accent2',
    'accent3',
    'accent4',
    'accent5',
    'accent6',
    'hlink',
    'folHlink',
  ];
  return order.map((name, i) => pick(name, DEFAULT_THEME[i]!));
}

function findFirst(element: XmlElement, name: string): XmlElement | undefined {
  for (const c of element.children) {
    if (c.name === name) return c;
    const found = findFirst(c, name);
    if (found) return found;
  }
  return undefined;
}

/** Resolves a colour to RRGGBB (theme colours with their tint applied); undefined for `auto`/unknown. */
export function resolveColor(color: ColorRef, themeColors: readonly string[]): string | undefined {
  let base: string | undefined;
  if (color.rgb) {
    base = color.rgb.length === 8 ? color.rgb.slice(2) : color.rgb;
  } else if (color.theme !== undefined) {
    base = themeColors[color.theme];
  } else if (color.indexed !== undefined) {
    base = INDEXED_PALETTE[color.indexed];
  }
  if (!base || !/^[0-9A-Fa-f]{6}$/.test(base)) return undefined;
  base = base.toUpperCase();
  return color.tint ? applyTint(base, color.tint) : base;
}

/** Excel's tint: lighten (tint > 0) or darken (tint < 0) the luminance in HLS space. */
export function applyTint(hex: string, tint: number): string {
  const [h, l, s] = rgbToHls(
    parseInt(hex.slice(0, 2), 16),
    parseInt(hex.slice(2, 4), 16),
    parseInt(hex.slice(4, 6), 16),
  );
  const lum = tint < 0 ? l * (1 + tint) : l * (1 - tint) + tint;
  return hlsToRgb(h, lum, s)
    .map((v) =>
      Math.round(Math.min(1, Math.max(0, v)) * 255)
        .toString(16)
        .padStart(2, '0')
        .toUpperCase(),
    )
    .join('');
}

function rgbToHls(r255: number, g255: number, b255: number): [number, number, number] {
  const r = r255 / 255;
  const g = g255 / 255;
  const b = b255 / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, l, 0];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === r) h = (g - b) / d + (g < b ? 6 : 0);
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return [h / 6, l, s];
}

function hueToRgb(p: number, q: number, t: number): number {
  if (t < 0) t += 1;
  if (t > 1) t -= 1;
  if (t < 1 / 6) return p + (q - p) * 6 * t;
  if (t < 1 / 2) return q;
  if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
  return p;
}

function hlsToRgb(h: number, l: number, s: number): [number, number, number] {
  if (s === 0) return [l, l, l];
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  return [hueToRgb(p, q, h + 1 / 3), hueToRgb(p, q, h), hueToRgb(p, q, h - 1 / 3)];
}
