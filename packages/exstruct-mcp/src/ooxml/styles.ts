import { colorFromAttrs, resolveColor, type ColorRef } from './colors.js';
import { isMainNs } from './namespaces.js';
import { classifyNumberFormat, type DateKind } from './number-format.js';
import { parseXmlText } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

/** What extraction needs to know about one cell format (`cellXfs` entry, indexed by a cell's `s`). */
export interface CellStyle {
  numFmtId: number;
  /** The format code for custom formats (undefined for built-ins). */
  formatCode: string | undefined;
  dateKind: DateKind;
  /** Background fill as RRGGBB, undefined when the cell has no fill. */
  fill: string | undefined;
  /** True when any edge (top/bottom/left/right) has a border line. */
  bordered: boolean;
}

export interface Styles {
  cellStyles: CellStyle[];
}

interface FillDef {
  patternType: string | undefined;
  fg: ColorRef | undefined;
  bg: ColorRef | undefined;
}

const PLAIN: CellStyle = {
  numFmtId: 0,
  formatCode: undefined,
  dateKind: undefined,
  fill: undefined,
  bordered: false,
};

/**
 * Reads styles.xml into one resolved record per cell format: number-format kind (date/time), fill colour
 * (theme colours resolved through the theme palette) and whether the format draws a border.
 */
export async function readStyles(
  zip: ZipArchive,
  part: string | undefined,
  themeColors: readonly string[],
): Promise<Styles> {
  if (!part || !zip.has(part)) return { cellStyles: [] };
  const numFmts = new Map<number, string>();
  const fills: FillDef[] = [];
  const borders: boolean[] = [];
  const xfs: Array<{ numFmtId: number; fillId: number; borderId: number }> = [];
  // The top-level list being read: a <numFmt>, <fill> or <border> of a differential format (<dxfs>, used
  // by conditional formats and pivot tables) must not count among the cells' own.
  let section: 'numFmts' | 'fills' | 'borders' | 'cellXfs' | 'other' | undefined;
  let fill: FillDef | undefined;
  let border = false;
  let inBorder = false;
  let depth = 0;
  parseXmlText(await zip.readText(part), part, {
    open(name, attrs, tag) {
      // Extension vocabularies (x14:, x15: in extLst) reuse these local names.
      if (tag.ns !== '' && !isMainNs(tag.ns)) return;
      if (depth++ === 1) {
        section =
          name === 'numFmts' || name === 'fills' || name === 'borders' || name === 'cellXfs' ? name : 'other';
        return;
      }
      switch (name) {
        case 'numFmt':
          if (section === 'numFmts') numFmts.set(Number(attrs.numFmtId), attrs.formatCode ?? '');
          break;
        case 'fill':
          if (section === 'fills') fill = { patternType: undefined, fg: undefined, bg: undefined };
          break;
        case 'patternFill':
          if (fill) fill.patternType = attrs.patternType ?? 'none';
          break;
        case 'fgColor':
          if (fill) fill.fg = colorFromAttrs(attrs);
          break;
        case 'bgColor':
          if (fill) fill.bg = colorFromAttrs(attrs);
          break;
        case 'border':
          if (section === 'borders') {
            inBorder = true;
            border = false;
          }
          break;
        case 'left':
        case 'right':
        case 'top':
        case 'bottom':
        case 'start':
        case 'end':
          if (inBorder && attrs.style && attrs.style !== 'none') border = true;
          break;
        case 'xf':
          if (section === 'cellXfs') {
            xfs.push({
              numFmtId: Number(attrs.numFmtId ?? 0),
              fillId: Number(attrs.fillId ?? 0),
              borderId: Number(attrs.borderId ?? 0),
            });
          }
          break;
      }
    },
    close(name, ns) {
      if (ns !== '' && !isMainNs(ns)) return;
      if (--depth === 1) section = undefined;
      if (name === 'fill' && fill) {
        fills.push(fill);
        fill = undefined;
      } else if (name === 'border' && inBorder) {
        borders.push(border);
        inBorder = false;
      }
    },
  });
  const fillColors = fills.map((f) => resolveFill(f, themeColors));
  const cellStyles = xfs.map((xf): CellStyle => {
    const formatCode = numFmts.get(xf.numFmtId);
    return {
      numFmtId: xf.numFmtId,
      formatCode,
      dateKind: classifyNumberFormat(xf.numFmtId, formatCode),
      fill: fillColors[xf.fillId],
      bordered: borders[xf.borderId] ?? false,
    };
  });
  return { cellStyles };
}

function resolveFill(fill: FillDef, themeColors: readonly string[]): string | undefined {
  if (!fill.patternType || fill.patternType === 'none') return undefined;
  // For solid fills the visible colour is fgColor; other patterns also paint mostly with fgColor.
  const color = fill.fg ?? fill.bg;
  return color ? resolveColor(color, themeColors) : undefined;
}

export function styleAt(styles: Styles, index: number): CellStyle {
  return styles.cellStyles[index] ?? PLAIN;
}
