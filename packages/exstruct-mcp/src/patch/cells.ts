import { colIndexToAlpha } from '../ooxml/cell-ref.js';
import { checkColumn } from '../ooxml/columns.js';
import { columnOf } from '../ooxml/row-fragment-parser.js';
import { isMainNs } from '../ooxml/namespaces.js';
import { unescapeOoxmlText } from '../ooxml/ooxml-text.js';
import { ROOT_SCOPE, tokenizeXml, XmlError, type NsScope } from '../ooxml/xml-tokenizer.js';
import { beyondGrid } from './sheet-scanner.js';
import { buildTag, escapeXml, escapeXmlText } from './xml.js';

/** A cell value as the tools speak it (spec PatchValue.value; booleans are an extension). */
export type Scalar = string | number | boolean;

/** One cell of a row that was loaded for editing. */
export interface CellState {
  col: number;
  /** Cell attributes as written (r, s, t, cm, …), in order. */
  attrs: Map<string, string>;
  /** The value (null when empty). For a formula cell: its cached result, if any. */
  value: Scalar | null;
  /** Formula text without the leading `=` (master text for shared formulas). */
  formula: string | undefined;
  /** Attributes of `<f>` as written (t, ref, si, ca, …). */
  formulaAttrs: Map<string, string> | undefined;
  /** The original XML of the cell, while it is unchanged. */
  raw: string | undefined;
  /** The original inner XML (to keep `<v>` cached values when only the style changes). */
  rawInner: string | undefined;
  /** For a `t="s"` cell: its index in the shared-string table. */
  sharedIndex?: number;
  /** An inline string with formatting runs or phonetic guides (undo restores its text, not those). */
  richInline?: boolean;
  /** The `cm` a content written by an op needs (a dynamic-array formula's cell metadata block). */
  cellMeta?: number;
}

export interface RowState {
  row: number;
  attrs: Map<string, string>;
  cells: Map<number, CellState>;
  /** Children of `<row>` that are not cells (extLst), kept verbatim. */
  other: string;
  /** The row's original XML while nothing in it changed; undefined for new or changed rows. */
  raw: string | undefined;
  existed: boolean;
}

/**
 * Parses one `<row>` element (text) into cells with the package's XML tokenizer; `sharedString`
 * resolves `t="s"` indexes, `scope` holds the declarations in force where the row stands (the
 * worksheet's). Values are read as XML defines them (either quote, CDATA, entities, line ends).
 */
export function parseRow(
  xml: string,
  rowNumber: number,
  sharedString: (index: number) => string | undefined,
  scope: NsScope = ROOT_SCOPE,
): RowState {
  try {
    return readRow(xml, rowNumber, sharedString, scope);
  } catch (error) {
    // Not well-formed, or past the tokenizer's limits (elements nested 513 deep): the file, not us.
    if (error instanceof XmlError) throw beyondGrid(error);
    throw error;
  }
}

function readRow(
  xml: string,
  rowNumber: number,
  sharedString: (index: number) => string | undefined,
  scope: NsScope,
): RowState {
  const state: RowState = {
    row: rowNumber,
    attrs: new Map(),
    cells: new Map(),
    other: '',
    raw: xml,
    existed: true,
  };
  let nextCol = 0;
  let cell: CellState | undefined;
  let cellStart = 0;
  let innerStart = 0;
  let otherStart = -1;
  // What the text in hand belongs to, and the inline string being read.
  let target: 'v' | 'f' | 't' | undefined;
  let v: string | undefined;
  let inline: string | undefined;
  let phonetic = 0;
  tokenizeXml(
    xml,
    {
      open(tag) {
        const main = tag.ns === '' || isMainNs(tag.ns);
        if (tag.depth === 1) {
          if (main && tag.local === 'row') state.attrs = new Map(tag.attrs.map((a) => [a.qname, a.value]));
          return;
        }
        if (tag.depth === 2) {
          if (main && tag.local === 'c') {
            const attrs = new Map(tag.attrs.map((a) => [a.qname, a.value]));
            const ref = attrs.get('r');
            const col = cellColumn(ref, nextCol);
            cell = {
              col,
              attrs,
              value: null,
              formula: undefined,
              formulaAttrs: undefined,
              raw: undefined,
              rawInner: undefined,
            };
            cellStart = tag.start;
            innerStart = tag.end;
            v = undefined;
            inline = undefined;
          } else otherStart = tag.start;
          return;
        }
        if (!cell || !main) return;
        if (tag.depth === 3 && tag.local === 'f') {
          cell.formulaAttrs = new Map(tag.attrs.map((a) => [a.qname, a.value]));
          cell.formula = '';
          target = 'f';
        } else if (tag.depth === 3 && tag.local === 'v') {
          v = '';
          target = 'v';
        } else if (tag.depth === 3 && tag.local === 'is') {
          inline = '';
        } else if (tag.local === 'rPh') {
          phonetic++;
          if (inline !== undefined) cell.richInline = true; // a phonetic guide (ふりがな) an undo cannot restore
        } else if (tag.local === 'r' && inline !== undefined) {
          cell.richInline = true;
        } else if (tag.local === 't' && inline !== undefined && phonetic === 0) {
          target = 't';
        }
      },
      text(text) {
        if (target === 'f') cell!.formula += text;
        else if (target === 'v') v += text;
        else if (target === 't') inline += text;
      },
      close(tag) {
        if (tag.depth === 2 && cell) {
          cell.raw = xml.slice(cellStart, tag.end);
          cell.rawInner = tag.start > innerStart ? xml.slice(innerStart, tag.start) : '';
          finishCell(cell, v, inline, sharedString);
          state.cells.set(cell.col, cell);
          nextCol = cell.col + 1;
          cell = undefined;
        } else if (tag.depth === 2 && otherStart >= 0) {
          state.other += xml.slice(otherStart, tag.end);
          otherStart = -1;
        } else if (tag.local === 'rPh') phonetic--;
        else if (tag.local === 'f' || tag.local === 'v' || tag.local === 't') target = undefined;
      },
    },
    { scope },
  );
  return state;
}

/** The cell's value from what its `<v>` or inline string held, by its type. */
function finishCell(
  cell: CellState,
  vText: string | undefined,
  inline: string | undefined,
  sharedString: (index: number) => string | undefined,
): void {
  const type = cell.attrs.get('t') ?? 'n';
  // `<v/>` or `<v></v>` holds nothing, whatever the type (it is not shared string 0).
  const v = vText === undefined || vText.trim() === '' ? undefined : vText;
  switch (type) {
    case 's': {
      const index = v === undefined ? NaN : Number(v);
      if (Number.isInteger(index) && index >= 0) {
        cell.sharedIndex = index;
        cell.value = sharedString(index) ?? null;
      }
      break;
    }
    case 'inlineStr':
      cell.value = inline === undefined ? null : unescapeOoxmlText(inline);
      break;
    case 'b':
      cell.value = v === undefined ? null : v.trim() === '1' || v.trim() === 'true';
      break;
    case 'str':
    case 'e':
    case 'd':
      cell.value = vText ?? null;
      break;
    default:
      cell.value = v === undefined ? null : Number(unescapeOoxmlText(v));
  }
}

/** A new, empty cell (no content, default style). */
export function emptyCell(col: number, row: number): CellState {
  return {
    col,
    attrs: new Map([['r', `${colIndexToAlpha(col)}${row}`]]),
    value: null,
    formula: undefined,
    formulaAttrs: undefined,
    raw: undefined,
    rawInner: undefined,
  };
}

/** Serialises a cell; `p` is the namespace prefix the worksheet uses (`` or `x:`). */
export function serializeCell(cell: CellState, row: number, p: string): string {
  if (cell.raw !== undefined) return cell.raw;
  const attrs = new Map(cell.attrs);
  attrs.set('r', `${colIndexToAlpha(cell.col)}${row}`);
  // The order of attributes in a start tag carries no meaning; r first reads best.
  let inner: string;
  if (cell.rawInner !== undefined) {
    inner = cell.rawInner; // only the style changed: keep value, formula and cached result
  } else if (cell.formula !== undefined) {
    attrs.delete('t');
    const fAttrs = cell.formulaAttrs
      ? buildTag(`${p}f`, cell.formulaAttrs, false).slice(`<${p}f`.length, -1)
      : '';
    inner = `<${p}f${fAttrs}>${escapeXml(cell.formula)}</${p}f>`;
  } else if (cell.value === null) {
    attrs.delete('t');
    inner = '';
  } else if (typeof cell.value === 'number') {
    attrs.delete('t');
    inner = `<${p}v>${String(cell.value)}</${p}v>`;
  } else if (typeof cell.value === 'boolean') {
    attrs.set('t', 'b');
    inner = `<${p}v>${cell.value ? 1 : 0}</${p}v>`;
  } else {
    attrs.set('t', 'inlineStr');
    const space = /^\s|\s$|\n/.test(cell.value) ? ' xml:space="preserve"' : '';
    inner = `<${p}is><${p}t${space}>${escapeXmlText(cell.value)}</${p}t></${p}is>`;
  }
  for (const key of ['cm', 'vm']) if (cell.rawInner === undefined) attrs.delete(key);
  if (cell.cellMeta !== undefined) attrs.set('cm', String(cell.cellMeta));
  return inner ? `${buildTag(`${p}c`, attrs, false)}${inner}</${p}c>` : buildTag(`${p}c`, attrs, true);
}

export function serializeRow(state: RowState, p: string): string {
  if (state.raw !== undefined) return state.raw;
  const attrs = new Map(state.attrs);
  attrs.set('r', String(state.row));
  attrs.delete('spans'); // an optional hint; stale once cells move in or out
  const cells = [...state.cells.values()]
    .filter(
      (cell) =>
        !(
          cell.raw === undefined &&
          cell.rawInner === undefined &&
          cell.formula === undefined &&
          cell.value === null &&
          !cell.attrs.has('s')
        ),
    )
    .sort((a, b) => a.col - b.col);
  if (cells.length === 0 && !state.other) return buildTag(`${p}row`, attrs, true);
  return `${buildTag(`${p}row`, attrs, false)}${cells.map((c) => serializeCell(c, state.row, p)).join('')}${state.other}</${p}row>`;
}

/**
 * Changes the formula text of a cell in place, keeping its other XML (style, type, and the cached
 * result unless `dropCached`: a reference that became #REF! no longer has that result).
 */
export function replaceFormulaText(cell: CellState, formula: string, dropCached: boolean): void {
  if (cell.rawInner === undefined) {
    cell.formula = formula; // written by an earlier op: serialised from the model anyway
    cell.raw = undefined;
    return;
  }
  let inner = (cell.rawInner ?? '').replace(
    /(<(?:\w+:)?f\b[^>]*?)(?:\/>|>[\s\S]*?(<\/(?:\w+:)?f>))/,
    (_m, open: string, close: string | undefined) =>
      `${open}>${escapeXml(formula)}${close ?? `</${open.slice(1).split(/[\s>]/)[0]}>`}`,
  );
  if (dropCached) inner = inner.replace(/<((?:\w+:)?v)>[\s\S]*?<\/\1>/, '');
  cell.formula = formula;
  cell.rawInner = inner;
  cell.raw = undefined;
}

/** The column of a cell's `r` (its letters), or `next` without one; beyond XFD is CORRUPT_WORKBOOK. */
function cellColumn(ref: string | undefined, next: number): number {
  const col = ref === undefined ? -1 : columnOf(ref, 0, ref.length);
  try {
    return checkColumn(col < 0 ? next : col);
  } catch (error) {
    throw beyondGrid(error as Error);
  }
}
