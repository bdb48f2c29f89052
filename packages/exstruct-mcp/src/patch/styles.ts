import { ToolError } from '@mcp-workbench/core/engine';
import { classifyNumberFormat, type DateKind } from '../ooxml/number-format.js';
import {
  buildTag,
  childElements,
  decodeXmlText,
  findElement,
  parseAttrs,
  prefixOf,
  splice,
  type Located,
} from './xml.js';

export const DEFAULT_STYLES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<fonts count="1"><font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '<dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/>' +
  '</styleSheet>';

export type HorizontalAlign =
  'general' | 'left' | 'center' | 'right' | 'fill' | 'justify' | 'centerContinuous' | 'distributed';
export type VerticalAlign = 'top' | 'center' | 'bottom' | 'justify' | 'distributed';

/** One formatting change; every field is optional and leaves the rest of the cell's format alone. */
export interface StyleChange {
  bold?: boolean;
  fontSize?: number;
  /** AARRGGBB */
  fontColor?: string;
  /** AARRGGBB */
  fillColor?: string;
  gridBorder?: boolean;
  horizontal?: HorizontalAlign;
  vertical?: VerticalAlign;
  wrapText?: boolean;
  /** A built-in number format (14: a short date, 22: a date and time). */
  numFmtId?: number;
}

type Collection = 'fonts' | 'fills' | 'borders' | 'cellXfs';

const FONT_ORDER = [
  'b',
  'i',
  'strike',
  'condense',
  'extend',
  'outline',
  'shadow',
  'u',
  'vertAlign',
  'sz',
  'color',
  'name',
  'family',
  'charset',
  'scheme',
];

/**
 * The workbook's cell formats (styles.xml). Changing a cell's format appends a new font/fill/border
 * and cell format (`xf`) derived from the cell's current one; existing entries are never changed,
 * so every style index in the workbook (and in inverse ops) keeps meaning what it meant.
 */
export class StyleBook {
  private readonly lists: Record<Collection, string[]>;
  private readonly originalCounts: Record<Collection, number>;
  private readonly derived = new Map<string, number>();
  private readonly p: string;
  changed = false;

  /** `part`: where the styles are, named in errors (the workbook's relationship may name any part). */
  constructor(
    private readonly xml: string,
    part = 'styles.xml',
  ) {
    const root = findElement(xml, 'styleSheet');
    this.p = root ? prefixOf(root.qname) : '';
    const read = (name: Collection) => {
      const el = root && findElement(xml, name);
      if (!el)
        throw new ToolError(
          'UNSUPPORTED_FORMAT',
          root
            ? `The styles part "${part}" has no <${name}>; the workbook's styles cannot be edited.`
            : `The workbook's styles relationship names "${part}", which is not a stylesheet; its styles cannot be edited.`,
          { hint: 'Open and re-save the workbook in Excel, or check where it came from.', details: { part } },
        );
      return el.empty ? [] : childElements(xml, el).map((c) => xml.slice(c.start, c.end));
    };
    this.lists = {
      fonts: read('fonts'),
      fills: read('fills'),
      borders: read('borders'),
      cellXfs: read('cellXfs'),
    };
    this.originalCounts = {
      fonts: this.lists.fonts.length,
      fills: this.lists.fills.length,
      borders: this.lists.borders.length,
      cellXfs: this.lists.cellXfs.length,
    };
  }

  get xfCount(): number {
    return this.lists.cellXfs.length;
  }

  /** Whether cell format `xfIndex` shows its number as a date or a time of day (see number-format.ts). */
  dateKind(xfIndex: number): DateKind {
    const xf = parseAttrs(this.lists.cellXfs[xfIndex] ?? '<xf/>');
    const id = Number(xf.get('numFmtId') ?? 0);
    return classifyNumberFormat(id, this.customFormats().get(id));
  }

  private formatCodes: Map<number, string> | undefined;

  /** The workbook's own number formats (`<numFmts>`), by id. */
  private customFormats(): Map<number, string> {
    if (this.formatCodes) return this.formatCodes;
    this.formatCodes = new Map();
    const list = findElement(this.xml, 'numFmts');
    for (const el of list && !list.empty ? childElements(this.xml, list) : []) {
      const attrs = parseAttrs(this.xml.slice(el.start, el.end));
      const code = attrs.get('formatCode');
      if (code !== undefined) this.formatCodes.set(Number(attrs.get('numFmtId')), decodeXmlText(code, false));
    }
    return this.formatCodes;
  }

  /** Describes the parts of a format the ops can change (for diffs). */
  describe(xfIndex: number): {
    bold: boolean;
    fontSize: number | undefined;
    fontColor: string | undefined;
    fillColor: string | undefined;
  } {
    const xf = parseAttrs(this.lists.cellXfs[xfIndex] ?? '<xf/>');
    const font = this.lists.fonts[Number(xf.get('fontId') ?? 0)] ?? '';
    const fill = this.lists.fills[Number(xf.get('fillId') ?? 0)] ?? '';
    const bold = /<(?:\w+:)?b(?:\s+val="(?:1|true)")?\s*\/>/.test(font);
    const sz = /<(?:\w+:)?sz\s+val="([^"]+)"/.exec(font)?.[1];
    const color = /<(?:\w+:)?color\s+[^>]*rgb="([^"]+)"/.exec(font)?.[1];
    const fg = /patternType="solid"[\s\S]*?<(?:\w+:)?fgColor\s+[^>]*rgb="([^"]+)"/.exec(fill)?.[1];
    return { bold, fontSize: sz ? Number(sz) : undefined, fontColor: color, fillColor: fg };
  }

  /** The index of a format equal to `xfIndex` with `change` applied (appended once, then reused). */
  derive(xfIndex: number, change: StyleChange): number {
    const key = `${xfIndex}|${JSON.stringify(change)}`;
    const known = this.derived.get(key);
    if (known !== undefined) return known;
    const baseXf =
      this.lists.cellXfs[xfIndex] ??
      this.lists.cellXfs[0] ??
      `<${this.p}xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`;
    const loc = findElement(baseXf, 'xf')!;
    const attrs = parseAttrs(baseXf.slice(loc.start, loc.openEnd));
    const children = loc.empty
      ? []
      : childElements(baseXf, loc).map((c) => ({
          name: localName(c.qname),
          text: baseXf.slice(c.start, c.end),
          loc: c,
        }));
    if (change.bold !== undefined || change.fontSize !== undefined || change.fontColor !== undefined) {
      attrs.set(
        'fontId',
        String(this.add('fonts', this.changeFont(Number(attrs.get('fontId') ?? 0), change))),
      );
      attrs.set('applyFont', '1');
    }
    if (change.fillColor !== undefined) {
      const p = this.p;
      attrs.set(
        'fillId',
        String(
          this.add(
            'fills',
            `<${p}fill><${p}patternFill patternType="solid"><${p}fgColor rgb="${change.fillColor}"/><${p}bgColor indexed="64"/></${p}patternFill></${p}fill>`,
          ),
        ),
      );
      attrs.set('applyFill', '1');
    }
    if (change.gridBorder) {
      attrs.set('borderId', String(this.add('borders', this.gridBorder(Number(attrs.get('borderId') ?? 0)))));
      attrs.set('applyBorder', '1');
    }
    if (change.numFmtId !== undefined) {
      attrs.set('numFmtId', String(change.numFmtId));
      attrs.set('applyNumberFormat', '1');
    }
    let childXml = children.map((c) => c.text);
    if (change.horizontal !== undefined || change.vertical !== undefined || change.wrapText !== undefined) {
      const existing = children.find((c) => c.name === 'alignment');
      const align = existing ? parseAttrs(existing.text) : new Map<string, string>();
      if (change.horizontal !== undefined) align.set('horizontal', change.horizontal);
      if (change.vertical !== undefined) align.set('vertical', change.vertical);
      if (change.wrapText !== undefined) align.set('wrapText', change.wrapText ? '1' : '0');
      const rendered = buildTag(`${this.p}alignment`, align, true);
      childXml = existing
        ? children.map((c) => (c.name === 'alignment' ? rendered : c.text))
        : [rendered, ...children.map((c) => c.text)];
      attrs.set('applyAlignment', '1');
    }
    const qname = loc.qname;
    const xf = childXml.length
      ? `${buildTag(qname, attrs, false)}${childXml.join('')}</${qname}>`
      : buildTag(qname, attrs, true);
    const index = this.add('cellXfs', xf);
    this.derived.set(key, index);
    return index;
  }

  private changeFont(fontId: number, change: StyleChange): string {
    const base = this.lists.fonts[fontId] ?? this.lists.fonts[0] ?? `<${this.p}font/>`;
    const loc = findElement(base, 'font')!;
    const kids = new Map<string, string>();
    if (!loc.empty)
      for (const c of childElements(base, loc)) kids.set(localName(c.qname), base.slice(c.start, c.end));
    const p = this.p;
    if (change.bold !== undefined) {
      if (change.bold) kids.set('b', `<${p}b/>`);
      else kids.delete('b');
    }
    if (change.fontSize !== undefined) kids.set('sz', `<${p}sz val="${change.fontSize}"/>`);
    if (change.fontColor !== undefined) kids.set('color', `<${p}color rgb="${change.fontColor}"/>`);
    const ordered = [...kids.entries()].sort((a, b) => rank(a[0]) - rank(b[0])).map(([, text]) => text);
    const open = base.slice(loc.start, loc.openEnd).replace(/\/>$/, '>');
    return `${open}${ordered.join('')}</${loc.qname}>`;
  }

  private gridBorder(borderId: number): string {
    const p = this.p;
    const base = this.lists.borders[borderId] ?? '';
    const loc = base ? findElement(base, 'border') : undefined;
    const open = loc ? base.slice(loc.start, loc.openEnd).replace(/\/>$/, '>') : `<${p}border>`;
    const qname = loc?.qname ?? `${p}border`;
    const keep = (name: string) => {
      if (!loc || loc.empty) return '';
      const c = childElements(base, loc).find((k) => localName(k.qname) === name);
      return c ? base.slice(c.start, c.end) : '';
    };
    const side = (name: string) => `<${p}${name} style="thin"><${p}color rgb="FF000000"/></${p}${name}>`;
    return `${open}${side('left')}${side('right')}${side('top')}${side('bottom')}${keep('diagonal') || `<${p}diagonal/>`}${keep('vertical')}${keep('horizontal')}</${qname}>`;
  }

  private add(list: Collection, element: string): number {
    const items = this.lists[list];
    const found = items.indexOf(element);
    if (found !== -1) return found;
    items.push(element);
    this.changed = true;
    return items.length - 1;
  }

  /** styles.xml with the appended entries (the original text is otherwise unchanged). */
  render(): string {
    let xml = this.xml;
    const edits: { loc: Located; list: Collection }[] = (
      ['fonts', 'fills', 'borders', 'cellXfs'] as Collection[]
    )
      .map((list) => ({ loc: findElement(xml, list)!, list }))
      .filter(({ list }) => this.lists[list].length > this.originalCounts[list])
      .sort((a, b) => b.loc.start - a.loc.start);
    for (const { loc, list } of edits) {
      const added = this.lists[list].slice(this.originalCounts[list]).join('');
      const attrs = parseAttrs(xml.slice(loc.start, loc.openEnd));
      attrs.set('count', String(this.lists[list].length));
      const content = loc.empty ? added : xml.slice(loc.openEnd, loc.closeStart) + added;
      xml = splice(xml, loc.start, loc.end, `${buildTag(loc.qname, attrs, false)}${content}</${loc.qname}>`);
    }
    return xml;
  }
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon === -1 ? qname : qname.slice(colon + 1);
}

function rank(name: string): number {
  const i = FONT_ORDER.indexOf(name);
  return i === -1 ? FONT_ORDER.length : i;
}
