import { formatRange, parseRange, type CellRange } from '../ooxml/cell-ref.js';
import { buildTag, childElements, findElement, parseAttrs, splice } from './xml.js';

/** A `<col>` span of the `<cols>` element: columns min..max (1-based, inclusive) and their attributes. */
export interface ColSpan {
  min: number;
  max: number;
  attrs: Map<string, string>;
}

export function parseCols(head: string): ColSpan[] {
  const cols = findElement(head, 'cols');
  if (!cols || cols.empty) return [];
  return childElements(head, cols).map((el) => {
    const attrs = parseAttrs(head.slice(el.start, el.openEnd));
    return { min: Number(attrs.get('min')), max: Number(attrs.get('max')), attrs };
  });
}

/** Sets (or clears, with null) an attribute set on single columns, splitting spans as needed. */
export function setColumnAttrs(
  spans: ColSpan[],
  col1: number,
  change: (attrs: Map<string, string>) => void,
): ColSpan[] {
  const out: ColSpan[] = [];
  let covered = false;
  for (const span of spans) {
    if (col1 < span.min || col1 > span.max) {
      out.push(span);
      continue;
    }
    covered = true;
    if (span.min < col1) out.push({ min: span.min, max: col1 - 1, attrs: new Map(span.attrs) });
    const attrs = new Map(span.attrs);
    change(attrs);
    out.push({ min: col1, max: col1, attrs });
    if (span.max > col1) out.push({ min: col1 + 1, max: span.max, attrs: new Map(span.attrs) });
  }
  if (!covered) {
    const attrs = new Map<string, string>();
    change(attrs);
    out.push({ min: col1, max: col1, attrs });
  }
  return out.sort((a, b) => a.min - b.min);
}

/** A span whose only attributes are min/max carries nothing and is dropped. */
export function renderCols(spans: ColSpan[], p: string): string {
  const kept = spans.filter((s) => [...s.attrs.keys()].some((k) => k !== 'min' && k !== 'max'));
  if (kept.length === 0) return '';
  return `<${p}cols>${kept
    .map((s) => {
      const attrs = new Map<string, string>([
        ['min', String(s.min)],
        ['max', String(s.max)],
      ]);
      for (const [k, v] of s.attrs) if (k !== 'min' && k !== 'max') attrs.set(k, v);
      return buildTag(`${p}col`, attrs, true);
    })
    .join('')}</${p}cols>`;
}

/** Replaces (or inserts, right before `<sheetData>`) the `<cols>` element of a head. */
export function replaceCols(head: string, rendered: string): string {
  const cols = findElement(head, 'cols');
  if (cols) return splice(head, cols.start, cols.end, rendered);
  const data = head.lastIndexOf('<', head.length - 1);
  const at = head.slice(0, data).search(/<(?:\w+:)?sheetData[\s>/]/);
  // A sheet without rows (`<sheetData/>`) has a head that stops before it: the last tag is then
  // sheetFormatPr (or another element cols must follow), so the cols go at the end.
  const insertAt = at !== -1 ? at : /^<(?:\w+:)?sheetData[\s>]/.test(head.slice(data)) ? data : head.length;
  return splice(head, insertAt, insertAt, rendered);
}

export function parseMerges(tail: string): CellRange[] {
  const merge = findElement(tail, 'mergeCells');
  if (!merge || merge.empty) return [];
  return childElements(tail, merge)
    .map((el) => parseAttrs(tail.slice(el.start, el.openEnd)).get('ref'))
    .filter((ref): ref is string => Boolean(ref))
    .map((ref) => parseRange(ref));
}

/** Elements that must come after `<mergeCells>` in a worksheet (CT_Worksheet order). */
const AFTER_MERGE = [
  'phoneticPr',
  'conditionalFormatting',
  'dataValidations',
  'hyperlinks',
  'printOptions',
  'pageMargins',
  'pageSetup',
  'headerFooter',
  'rowBreaks',
  'colBreaks',
  'customProperties',
  'cellWatches',
  'ignoredErrors',
  'smartTags',
  'drawing',
  'legacyDrawing',
  'legacyDrawingHF',
  'drawingHF',
  'picture',
  'oleObjects',
  'controls',
  'webPublishItems',
  'tableParts',
  'extLst',
];

/** Writes the merge list into a tail (which starts with `</sheetData>`). */
export function replaceMerges(tail: string, merges: CellRange[], p: string): string {
  const rendered =
    merges.length === 0
      ? ''
      : `<${p}mergeCells count="${merges.length}">${merges
          .map((m) => `<${p}mergeCell ref="${formatRange(m)}"/>`)
          .join('')}</${p}mergeCells>`;
  const existing = findElement(tail, 'mergeCells');
  if (existing) return splice(tail, existing.start, existing.end, rendered);
  if (!rendered) return tail;
  let insertAt = -1;
  for (const name of AFTER_MERGE) {
    const el = findElement(tail, name);
    if (el && (insertAt === -1 || el.start < insertAt)) insertAt = el.start;
  }
  if (insertAt === -1) insertAt = tail.lastIndexOf('</');
  return splice(tail, insertAt, insertAt, rendered);
}

/** Updates `<dimension ref>` in a head so it covers `used`. */
export function updateDimension(head: string, used: CellRange | undefined): string {
  if (!used) return head;
  const dim = findElement(head, 'dimension');
  if (!dim) return head;
  const attrs = parseAttrs(head.slice(dim.start, dim.openEnd));
  let merged = used;
  const ref = attrs.get('ref');
  if (ref) {
    try {
      const current = parseRange(ref);
      merged = {
        start: {
          row: Math.min(current.start.row, used.start.row),
          col: Math.min(current.start.col, used.start.col),
        },
        end: { row: Math.max(current.end.row, used.end.row), col: Math.max(current.end.col, used.end.col) },
      };
    } catch {
      /* an unusual ref: replace it */
    }
  }
  const next = formatRange(merged);
  if (next === ref) return head;
  attrs.set('ref', next);
  return splice(head, dim.start, dim.end, buildTag(dim.qname, attrs, true));
}

export function rangesOverlap(a: CellRange, b: CellRange): boolean {
  return !(
    a.end.col < b.start.col ||
    b.end.col < a.start.col ||
    a.end.row < b.start.row ||
    b.end.row < a.start.row
  );
}

export function rangeContains(r: CellRange, row: number, col: number): boolean {
  return row >= r.start.row && row <= r.end.row && col >= r.start.col && col <= r.end.col;
}
