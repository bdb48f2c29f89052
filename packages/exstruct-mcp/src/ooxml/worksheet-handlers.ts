// The SAX handlers of a worksheet, free of other dependencies so worker threads can load them quickly.
import { isMainNs } from './namespaces.js';
import { unescapeOoxmlText } from './ooxml-text.js';
import { translateFormula } from './formula-translate.js';
import { attr, type SaxHandlers } from './sax.js';
import { columnOf } from './row-fragment-parser.js';
import { checkColumn, checkRow } from './columns.js';

/**
 * One cell as the sheet XML stores it. `type` is the `t` attribute (`s` shared string, `str` formula
 * string, `inlineStr`, `b`, `e`, `n`/undefined number, `d` ISO date); `value` is the raw `<v>` text (or the
 * inline string); `formula` is the formula text without `=`, shared formulas already expanded per cell.
 */
export type CellHandler = (
  row: number,
  col: number,
  type: string | undefined,
  style: number,
  value: string | undefined,
  formula: string | undefined,
) => void;

export interface ColumnDef {
  min: number;
  max: number;
  width: number | undefined;
  hidden: boolean;
}

export interface HyperlinkDef {
  ref: string;
  relId: string | undefined;
  location: string | undefined;
}

/** Everything in a worksheet part besides its cells. */
export interface WorksheetInfo {
  dimension: string | undefined;
  merges: string[];
  hyperlinks: HyperlinkDef[];
  columns: ColumnDef[];
  /** Explicit row heights in points (1-based row → height), hidden rows as 0. */
  rowHeights: Map<number, number>;
  defaultRowHeight: number | undefined;
  /** `<sheetFormatPr zeroHeight="1">`: rows are hidden unless they say otherwise (a height, hidden="0"). */
  zeroHeight: boolean;
  /** Under zeroHeight, rows shown at the default height (hidden="0" without a height of their own). */
  shownRows: number[];
  defaultColWidth: number | undefined;
  baseColWidth: number | undefined;
  drawingRelId: string | undefined;
  legacyDrawingRelId: string | undefined;
  tableRelIds: string[];
  /** `<row>` elements without an `r` attribute (numbered by position, so they cannot be parsed in pieces). */
  rowsWithoutRef: number;
}

export interface ScanOptions {
  /** Report formulas to the handler (expanding shared formulas costs a little; off when not needed). */
  formulas?: boolean;
}

interface SharedFormula {
  text: string;
  row: number;
  col: number;
}

export function emptyWorksheetInfo(): WorksheetInfo {
  return {
    dimension: undefined,
    merges: [],
    hyperlinks: [],
    columns: [],
    rowHeights: new Map(),
    defaultRowHeight: undefined,
    zeroHeight: false,
    shownRows: [],
    defaultColWidth: undefined,
    baseColWidth: undefined,
    drawingRelId: undefined,
    legacyDrawingRelId: undefined,
    tableRelIds: [],
    rowsWithoutRef: 0,
  };
}

/**
 * SAX handlers for a worksheet (or a fragment of its `<row>` elements): cells go to `onCell` as they are
 * read, everything else is recorded in `info`.
 */
export function worksheetHandlers(
  onCell: CellHandler,
  info: WorksheetInfo,
  options: ScanOptions = {},
): SaxHandlers {
  const wantFormulas = options.formulas === true;
  const shared = new Map<string, SharedFormula>();

  let rowNumber = 0;
  let nextCol = 0;
  // The cell being read.
  let inCell = false;
  let cellRow = 0;
  let cellCol = 0;
  let cellType: string | undefined;
  let cellStyle = 0;
  let value: string | undefined;
  let formula: string | undefined;
  let formulaAttrs: Record<string, string> | undefined;
  // What the current text belongs to: 1 = <v>, 2 = <f>, 3 = <t> of an inline string.
  let textTarget = 0;
  let phoneticDepth = 0;

  const startRow = (r: number, height: number | undefined, hidden: boolean, shown = false) => {
    if (r < 0) info.rowsWithoutRef++;
    rowNumber = checkRow(r < 0 ? rowNumber + 1 : r);
    nextCol = 0;
    if (hidden) info.rowHeights.set(rowNumber, 0);
    else if (height !== undefined) info.rowHeights.set(rowNumber, height);
    else if (shown && info.zeroHeight) info.shownRows.push(rowNumber);
  };

  const handlers: SaxHandlers = {
    open(name, attrs, tag) {
      // Elements of other vocabularies (extensions in extLst, markup-compatibility wrappers) may reuse
      // SpreadsheetML's local names; they are not cells. (No namespace at all is taken as SpreadsheetML.)
      if (tag.ns !== '' && !isMainNs(tag.ns)) return;
      switch (name) {
        case 'c': {
          const ref = attrs.r;
          cellCol = ref === undefined ? nextCol : columnOf(ref, 0, ref.length);
          if (cellCol < 0) cellCol = nextCol;
          checkColumn(cellCol);
          cellRow = rowNumber;
          nextCol = cellCol + 1;
          cellType = attrs.t;
          const s = attrs.s;
          cellStyle = s === undefined ? 0 : +s;
          value = undefined;
          formula = undefined;
          formulaAttrs = undefined;
          inCell = true;
          return;
        }
        case 'v':
          if (inCell) {
            textTarget = 1;
            value = '';
          }
          return;
        case 'f':
          if (inCell) {
            textTarget = 2;
            formula = '';
            formulaAttrs = attrs;
          }
          return;
        case 'is':
          if (inCell) value = '';
          return;
        case 't':
          if (inCell && phoneticDepth === 0) textTarget = 3;
          return;
        case 'rPh':
          phoneticDepth++;
          return;
        case 'row': {
          const hidden = attrs.hidden;
          startRow(
            attrs.r === undefined ? -1 : +attrs.r,
            attrs.ht === undefined ? undefined : +attrs.ht,
            hidden === '1' || hidden === 'true',
            hidden === '0' || hidden === 'false',
          );
          return;
        }
        case 'mergeCell':
          if (attrs.ref) info.merges.push(attrs.ref);
          return;
        case 'hyperlink':
          if (attrs.ref)
            info.hyperlinks.push({ ref: attrs.ref, relId: attr(attrs, 'id'), location: attrs.location });
          return;
        case 'col':
          info.columns.push({
            min: Number(attrs.min),
            max: Number(attrs.max),
            width: attrs.width === undefined ? undefined : Number(attrs.width),
            hidden: attrs.hidden === '1' || attrs.hidden === 'true',
          });
          return;
        case 'sheetFormatPr':
          if (attrs.defaultRowHeight !== undefined) info.defaultRowHeight = Number(attrs.defaultRowHeight);
          if (attrs.defaultColWidth !== undefined) info.defaultColWidth = Number(attrs.defaultColWidth);
          if (attrs.baseColWidth !== undefined) info.baseColWidth = Number(attrs.baseColWidth);
          info.zeroHeight = attrs.zeroHeight === '1' || attrs.zeroHeight === 'true';
          return;
        case 'dimension':
          info.dimension = attrs.ref;
          return;
        case 'drawing':
          info.drawingRelId = attr(attrs, 'id');
          return;
        case 'legacyDrawing':
          info.legacyDrawingRelId = attr(attrs, 'id');
          return;
        case 'tablePart': {
          const id = attr(attrs, 'id');
          if (id) info.tableRelIds.push(id);
          return;
        }
      }
    },
    text(text) {
      if (textTarget === 1) value += text;
      else if (textTarget === 2) formula += text;
      else if (textTarget === 3) value = (value ?? '') + text;
    },
    close(name, ns) {
      if (ns !== '' && !isMainNs(ns)) return;
      switch (name) {
        case 'c':
          if (inCell) {
            let f: string | undefined;
            if (wantFormulas && formulaAttrs)
              f = resolveFormula(formula ?? '', formulaAttrs, cellRow, cellCol, shared);
            if (cellType === 'inlineStr' && value !== undefined) value = unescapeOoxmlText(value);
            onCell(cellRow, cellCol, cellType, cellStyle, value, f);
            inCell = false;
          }
          return;
        case 'v':
        case 'f':
        case 't':
          textTarget = 0;
          return;
        case 'rPh':
          phoneticDepth--;
          return;
      }
    },
  };
  handlers.rowStart = startRow;
  // The shortcut means the same as the open/close events of a `<c>` holding at most <f> and <v>.
  handlers.cell = (col, type, style, text, formulaText) => {
    cellCol = checkColumn(col < 0 ? nextCol : col);
    nextCol = cellCol + 1;
    const f = wantFormulas && formulaText !== '' ? formulaText : undefined;
    onCell(rowNumber, cellCol, type, style, text, f);
  };
  return handlers;
}

/** The formula text of a cell; shared-formula children get the master's text moved to their position. */
function resolveFormula(
  text: string,
  attrs: Record<string, string>,
  row: number,
  col: number,
  shared: Map<string, SharedFormula>,
): string | undefined {
  if (attrs.t !== 'shared' || attrs.si === undefined) return text === '' ? undefined : text;
  if (text !== '') {
    shared.set(attrs.si, { text, row, col });
    return text;
  }
  const master = shared.get(attrs.si);
  if (!master) return undefined;
  return translateFormula(master.text, row - master.row, col - master.col);
}
