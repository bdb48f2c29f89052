import { colorFromAttrs, resolveColor, type ColorRef } from '../ooxml/colors.js';
import { isMainNs } from '../ooxml/namespaces.js';
import { parseXmlText } from '../ooxml/xml.js';

/** One edge of a cell border as drawn: Excel's line style name and RRGGBB colour. */
export interface BorderEdge {
  style: string;
  color: string;
}

export interface CellFont {
  name: string;
  size: number;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  strike: boolean;
  /** RRGGBB; undefined = automatic (black). */
  color: string | undefined;
}

/** Everything a cell format (`cellXfs` entry) says about how a cell looks. */
export interface CellFormat {
  numFmtId: number;
  /** The format code (built-in ids resolved by the caller). */
  formatCode: string | undefined;
  font: CellFont;
  /** Solid background RRGGBB, undefined when none. */
  fill: string | undefined;
  left: BorderEdge | undefined;
  right: BorderEdge | undefined;
  top: BorderEdge | undefined;
  bottom: BorderEdge | undefined;
  horizontal: string | undefined;
  vertical: string | undefined;
  wrap: boolean;
  indent: number;
  shrink: boolean;
}

export interface CellFormats {
  formats: CellFormat[];
  /** The workbook's default font (the Normal style's): column widths are counted in its digits. */
  defaultFont: CellFont;
}

const DEFAULT_FONT: CellFont = {
  name: 'Calibri',
  size: 11,
  bold: false,
  italic: false,
  underline: false,
  strike: false,
  color: undefined,
};

interface RawBorder {
  left?: { style: string; color?: ColorRef };
  right?: { style: string; color?: ColorRef };
  top?: { style: string; color?: ColorRef };
  bottom?: { style: string; color?: ColorRef };
}

/** Reads styles.xml into the look of every cell format, theme and indexed colours resolved. */
export function readCellFormats(xml: string | undefined, themeColors: readonly string[]): CellFormats {
  if (!xml) return { formats: [], defaultFont: DEFAULT_FONT };
  const numFmts = new Map<number, string>();
  const fonts: CellFont[] = [];
  const fills: (string | undefined)[] = [];
  const borders: RawBorder[] = [];
  const xfs: CellFormat[] = [];
  const rawXfs: { font: number; fill: number; border: number; numFmt: number; el: Record<string, string> }[] =
    [];
  let section = '';
  let depth = 0;
  let font: CellFont | undefined;
  let fill: { type: string | undefined; fg?: ColorRef; bg?: ColorRef } | undefined;
  let border: RawBorder | undefined;
  let edge: keyof RawBorder | undefined;
  let xf: (typeof rawXfs)[number] | undefined;
  const color = (ref: ColorRef | undefined) => (ref ? resolveColor(ref, themeColors) : undefined);
  parseXmlText(xml, 'styles.xml', {
    open(name, attrs, tag) {
      if (tag.ns !== '' && !isMainNs(tag.ns)) return;
      depth++;
      if (depth === 2) {
        section = name;
        return;
      }
      switch (name) {
        case 'numFmt':
          if (section === 'numFmts') numFmts.set(Number(attrs.numFmtId), attrs.formatCode ?? '');
          break;
        case 'font':
          if (section === 'fonts') font = { ...DEFAULT_FONT, name: '', size: 11 };
          break;
        case 'name':
          if (font) font.name = attrs.val ?? '';
          break;
        case 'sz':
          if (font) font.size = Number(attrs.val) || 11;
          break;
        case 'b':
          if (font) font.bold = attrs.val !== '0' && attrs.val !== 'false';
          break;
        case 'i':
          if (font) font.italic = attrs.val !== '0' && attrs.val !== 'false';
          break;
        case 'strike':
          if (font) font.strike = attrs.val !== '0' && attrs.val !== 'false';
          break;
        case 'u':
          if (font) font.underline = attrs.val !== 'none';
          break;
        case 'color':
          if (font) font.color = color(colorFromAttrs(attrs));
          else if (border && edge && border[edge]) border[edge]!.color = colorFromAttrs(attrs);
          break;
        case 'fill':
          if (section === 'fills') fill = { type: undefined };
          break;
        case 'patternFill':
          if (fill) fill.type = attrs.patternType ?? 'none';
          break;
        case 'fgColor':
          if (fill) fill.fg = colorFromAttrs(attrs);
          break;
        case 'bgColor':
          if (fill) fill.bg = colorFromAttrs(attrs);
          break;
        case 'gradientFill':
          if (fill) fill.type = 'gradient';
          break;
        case 'diagonal':
        case 'vertical':
        case 'horizontal':
          edge = undefined; // not drawn; their colour must not land on another edge
          break;
        case 'border':
          if (section === 'borders') border = {};
          break;
        case 'left':
        case 'right':
        case 'top':
        case 'bottom':
        case 'start':
        case 'end':
          if (border) {
            edge = name === 'start' ? 'left' : name === 'end' ? 'right' : name;
            if (attrs.style && attrs.style !== 'none') border[edge] = { style: attrs.style };
          }
          break;
        case 'xf':
          if (section === 'cellXfs')
            xf = {
              font: Number(attrs.fontId ?? 0),
              fill: Number(attrs.fillId ?? 0),
              border: Number(attrs.borderId ?? 0),
              numFmt: Number(attrs.numFmtId ?? 0),
              el: {},
            };
          break;
        case 'alignment':
          if (xf) xf.el = attrs;
          break;
      }
    },
    close(name, ns) {
      if (ns !== '' && !isMainNs(ns)) return;
      depth--;
      if (name === 'font' && font) {
        fonts.push(font);
        font = undefined;
      } else if (name === 'fill' && fill) {
        const visible = fill.type && fill.type !== 'none' && fill.type !== 'gradient';
        // A solid fill paints fgColor; other patterns paint mostly with it too.
        fills.push(visible ? (color(fill.fg) ?? color(fill.bg)) : undefined);
        fill = undefined;
      } else if (name === 'border' && border) {
        borders.push(border);
        border = undefined;
        edge = undefined;
      } else if (name === 'xf' && xf) {
        rawXfs.push(xf);
        xf = undefined;
      } else if (depth === 1) section = '';
    },
  });
  const edgeOf = (raw: { style: string; color?: ColorRef } | undefined): BorderEdge | undefined =>
    raw ? { style: raw.style, color: color(raw.color) ?? '000000' } : undefined;
  for (const raw of rawXfs) {
    const b = borders[raw.border] ?? {};
    const a = raw.el;
    xfs.push({
      numFmtId: raw.numFmt,
      formatCode: numFmts.get(raw.numFmt),
      font: fonts[raw.font] ?? fonts[0] ?? DEFAULT_FONT,
      fill: fills[raw.fill],
      left: edgeOf(b.left),
      right: edgeOf(b.right),
      top: edgeOf(b.top),
      bottom: edgeOf(b.bottom),
      horizontal: a.horizontal,
      vertical: a.vertical,
      wrap: a.wrapText === '1' || a.wrapText === 'true',
      indent: Number(a.indent ?? 0) || 0,
      shrink: a.shrinkToFit === '1' || a.shrinkToFit === 'true',
    });
  }
  return { formats: xfs, defaultFont: fonts[0] ?? DEFAULT_FONT };
}
