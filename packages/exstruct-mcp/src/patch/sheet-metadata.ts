// The workbook's cell metadata part (xl/metadata.xml): a dynamic-array formula cell points at its
// XLDAPR block with `cm`. Found or extended in place, as Excel and XlsxWriter write it.
import { ToolError } from '@mcp-workbench/core/engine';
import { corrupt } from '../ooxml/xml.js';
import { prefixOf, parseTree, splice, walk, type Located } from './xml.js';

export const SHEET_METADATA_CONTENT_TYPE =
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheetMetadata+xml';
const XDA_NS = 'http://schemas.microsoft.com/office/spreadsheetml/2017/dynamicarray';
/** The ext that holds a future-metadata block's dynamic-array properties. */
const XDA_EXT_URI = '{bdbb8cdc-fa1e-496e-a857-3c3f30c029c3}';
const XLDAPR = 'XLDAPR';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/**
 * The metadata part as the patch leaves it. `part` is where it is (undefined: the workbook has none,
 * and one is added); `cellIndex()` finds or adds the XLDAPR cell-metadata block on first use.
 */
export class SheetMetadata {
  private text: string | undefined;
  private index: number | undefined;

  constructor(
    readonly part: string | undefined,
    /** The part's text; undefined when there is none, or it was not read (`unread`). */
    private readonly original: string | undefined,
    /** The SpreadsheetML namespace of a new part (Transitional or Strict, as the workbook). */
    private readonly mainNs: string,
    private readonly unread = false,
  ) {}

  /** The 1-based `cm` of the block that marks a cell as a dynamic-array formula. */
  cellIndex(): number {
    if (this.index === undefined) {
      // Never a fresh part over one that exists: the cells pointing into it would point elsewhere.
      if (this.unread) throw new ToolError('INTERNAL', `The metadata part "${this.part}" was not loaded.`);
      const base = this.original ?? `${XML_DECL}<metadata xmlns="${this.mainNs}" xmlns:xda="${XDA_NS}"/>`;
      let found: { xml: string; index: number };
      try {
        found = withDynamicArrayBlock(base);
      } catch (error) {
        throw corrupt(this.part ?? 'metadata.xml', error); // a part that is not a metadata part
      }
      const { xml, index } = found;
      this.text = xml;
      this.index = index;
    }
    return this.index;
  }

  /** The part's new text when a dynamic-array formula was written and the part changed (or is new). */
  changed(): string | undefined {
    return this.text !== undefined && this.text !== this.original ? this.text : undefined;
  }
}

/**
 * The index of the XLDAPR cell-metadata block in a metadata part, adding what is missing (the
 * metadata type, the future-metadata block, the cell-metadata block) after what is there, so the
 * indexes other cells use stay as they are.
 */
export function withDynamicArrayBlock(original: string): { xml: string; index: number } {
  let xml = original;
  const root = () => {
    const node = parseTree(xml).find((n) => n.local === 'metadata');
    if (!node) throw new Error('The metadata part has no <metadata> root.');
    if (!node.empty) return node;
    xml = expand(xml, node);
    return parseTree(xml).find((n) => n.local === 'metadata')!;
  };
  const p = prefixOf(root().qname);

  // 1. The metadata type (its 1-based position is what a cell block's `t` names).
  const types = child(root(), 'metadataTypes');
  const typeAt = (types?.children ?? []).filter((n) => n.local === 'metadataType');
  let type = typeAt.findIndex((n) => n.attrs.get('name') === XLDAPR) + 1;
  if (type === 0) {
    const entry = `<${p}metadataType name="${XLDAPR}" minSupportedVersion="120000" copy="1" pasteAll="1" pasteValues="1" merge="1" splitFirst="1" rowColShift="1" clearFormats="1" clearComments="1" assign="1" coerce="1" cellMeta="1"/>`;
    if (types) xml = append(xml, types, entry, typeAt.length + 1);
    else
      xml = splice(
        xml,
        root().openEnd,
        root().openEnd,
        `<${p}metadataTypes count="1">${entry}</${p}metadataTypes>`,
      );
    type = typeAt.length + 1;
  }

  // 2. The future-metadata block that says "dynamic, not collapsed" (0-based: a cell block's `v`).
  const future = root().children.find((n) => n.local === 'futureMetadata' && n.attrs.get('name') === XLDAPR);
  const blocks = (future?.children ?? []).filter((n) => n.local === 'bk');
  let value = blocks.findIndex(isDynamicBlock);
  if (value === -1) {
    const declared = root().scope.get('xda') === XDA_NS ? '' : ` xmlns:xda="${XDA_NS}"`;
    const block = `<${p}bk><${p}extLst><${p}ext uri="${XDA_EXT_URI}"><xda:dynamicArrayProperties${declared} fDynamic="1" fCollapsed="0"/></${p}ext></${p}extLst></${p}bk>`;
    if (future) xml = append(xml, future, block, blocks.length + 1);
    else {
      const at = before(root(), ['cellMetadata', 'valueMetadata', 'extLst']);
      xml = splice(
        xml,
        at,
        at,
        `<${p}futureMetadata name="${XLDAPR}" count="1">${block}</${p}futureMetadata>`,
      );
    }
    value = blocks.length;
  }

  // 3. The cell-metadata block pointing at both; its 1-based position is the cells' `cm`.
  const cells = child(root(), 'cellMetadata');
  const cellBlocks = (cells?.children ?? []).filter((n) => n.local === 'bk');
  const found = cellBlocks.findIndex((bk) => {
    const records = bk.children.filter((n) => n.local === 'rc');
    return (
      records.length === 1 &&
      Number(records[0]!.attrs.get('t')) === type &&
      Number(records[0]!.attrs.get('v')) === value
    );
  });
  if (found >= 0) return { xml, index: found + 1 };
  const block = `<${p}bk><${p}rc t="${type}" v="${value}"/></${p}bk>`;
  if (cells) xml = append(xml, cells, block, cellBlocks.length + 1);
  else {
    const at = before(root(), ['valueMetadata', 'extLst']);
    xml = splice(xml, at, at, `<${p}cellMetadata count="1">${block}</${p}cellMetadata>`);
  }
  return { xml, index: cellBlocks.length + 1 };
}

function child(parent: Located, local: string): Located | undefined {
  return parent.children.find((n) => n.local === local);
}

/** Whether a future-metadata block holds dynamic-array properties fDynamic=1, fCollapsed=0. */
function isDynamicBlock(bk: Located): boolean {
  const props = [...walk(bk.children)].find((n) => n.local === 'dynamicArrayProperties' && n.ns === XDA_NS);
  return truthy(props?.attrs.get('fDynamic')) && !truthy(props?.attrs.get('fCollapsed'));
}

function truthy(flag: string | undefined): boolean {
  return flag === '1' || flag === 'true';
}

/** Where a new child goes: before the first of these children (schema order), else at the end. */
function before(parent: Located, locals: string[]): number {
  return parent.children.find((n) => locals.includes(n.local))?.start ?? parent.closeStart;
}

/** Appends a child to an element and sets its `count` attribute. */
function append(xml: string, parent: Located, entry: string, count: number): string {
  if (parent.empty) {
    const opened = expand(xml, parent);
    return append(opened, reparse(opened, parent), entry, count);
  }
  const withChild = splice(xml, parent.closeStart, parent.closeStart, entry);
  const tag = withChild.slice(parent.start, parent.openEnd);
  const counted = /\scount\s*=\s*(?:"[^"]*"|'[^']*')/.test(tag)
    ? tag.replace(/(\scount\s*=\s*)(?:"[^"]*"|'[^']*')/, `$1"${count}"`)
    : `${tag.slice(0, -1)} count="${count}">`;
  return splice(withChild, parent.start, parent.openEnd, counted);
}

/** `<x/>` → `<x></x>`, so children can go in. */
function expand(xml: string, node: Located): string {
  const tag = xml.slice(node.start, node.end).replace(/\s*\/>$/, '>');
  return splice(xml, node.start, node.end, `${tag}</${node.qname}>`);
}

/** The element that starts where `node` did, in the re-parsed text. */
function reparse(xml: string, node: Located): Located {
  for (const n of walk(parseTree(xml))) if (n.start === node.start) return n;
  throw new Error(`<${node.qname}> vanished`);
}
