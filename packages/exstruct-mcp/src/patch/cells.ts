import { tryParseA1, colIndexToAlpha } from '../ooxml/cell-ref.js';
import { buildTag, decodeXmlText, escapeXml, escapeXmlText, parseAttrs, scanTags } from './xml.js';

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

/** Parses one `<row>` element (text) into cells; `sharedString` resolves `t="s"` indexes. */
export function parseRow(
  xml: string,
  rowNumber: number,
  sharedString: (index: number) => string | undefined,
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
  let depth = 0;
  let childStart = -1;
  let childTag = '';
  let childIsCell = false;
  const addCell = (startTag: string, inner: string, raw: string) => {
    const cell = parseCell(startTag, inner, nextCol, sharedString, raw);
    state.cells.set(cell.col, cell);
    nextCol = cell.col + 1;
  };
  for (const tag of scanTags(xml)) {
    if (depth === 0) {
      if (tag.name === 'row' && tag.kind !== 'close') {
        state.attrs = parseAttrs(xml.slice(tag.start, tag.end));
        if (tag.kind === 'empty') break;
        depth = 1;
      }
      continue;
    }
    if (depth === 1) {
      if (tag.kind === 'close') break; // </row>
      const text = xml.slice(tag.start, tag.end);
      if (tag.kind === 'empty') {
        if (tag.name === 'c') addCell(text, '', text);
        else state.other += text;
        continue;
      }
      childStart = tag.start;
      childTag = text;
      childIsCell = tag.name === 'c';
      depth = 2;
      continue;
    }
    if (tag.kind === 'open') depth++;
    else if (tag.kind === 'close' && --depth === 1) {
      if (childIsCell)
        addCell(childTag, xml.slice(childStart + childTag.length, tag.start), xml.slice(childStart, tag.end));
      else state.other += xml.slice(childStart, tag.end);
    }
  }
  return state;
}

function parseCell(
  startTag: string,
  inner: string,
  fallbackCol: number,
  sharedString: (index: number) => string | undefined,
  raw: string,
): CellState {
  const attrs = parseAttrs(startTag);
  const ref = attrs.get('r');
  const col = (ref ? tryParseA1(ref)?.col : undefined) ?? fallbackCol;
  const cell: CellState = {
    col,
    attrs,
    value: null,
    formula: undefined,
    formulaAttrs: undefined,
    raw,
    rawInner: inner,
  };
  if (!inner) return cell;
  const type = attrs.get('t') ?? 'n';
  const f = /<(?:\w+:)?f(\s[^>]*)?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?f>)/.exec(inner);
  if (f) {
    cell.formulaAttrs = parseAttrs(`<f${f[1] ?? ''}>`);
    cell.formula = f[2] === undefined ? '' : decodeXmlText(f[2], false);
  }
  const v = /<(?:\w+:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?v>/.exec(inner);
  const vText = v ? decodeXmlText(v[1]!, type === 'str' || type === 'e' ? false : true) : undefined;
  switch (type) {
    case 's':
      cell.value = vText === undefined ? null : (sharedString(Number(vText)) ?? null);
      break;
    case 'inlineStr':
      cell.value = inlineText(inner);
      break;
    case 'b':
      cell.value = vText === undefined ? null : vText.trim() === '1' || vText.trim() === 'true';
      break;
    case 'str':
    case 'e':
    case 'd':
      cell.value = vText ?? null;
      break;
    default:
      cell.value = vText === undefined || vText.trim() === '' ? null : Number(vText);
  }
  return cell;
}

/** The text of an inline or shared string item (`<is>`/`<si>`): all runs, without phonetic runs. */
export function inlineText(xml: string): string {
  const withoutPhonetic = xml.replace(/<(?:\w+:)?rPh\b[\s\S]*?<\/(?:\w+:)?rPh>/g, '');
  let text = '';
  const re = /<(?:\w+:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?t>|<(?:\w+:)?t(?:\s[^>]*)?\/>/g;
  for (let m = re.exec(withoutPhonetic); m; m = re.exec(withoutPhonetic)) text += decodeXmlText(m[1] ?? '');
  return text;
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
