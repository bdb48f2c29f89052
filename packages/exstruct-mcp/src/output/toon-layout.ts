import { alphaToColIndex, colIndexToAlpha, tryParseA1 } from '../ooxml/cell-ref.js';
import type { CellValue } from '../extract/cell-value.js';
import { MERGED_SCHEMA, type CellRow } from '../extract/model.js';

/*
 * The TOON layout: how an ExStruct document (a workbook output, a sheets_dir or print_areas_dir file, a
 * read_json_chunk page) is written in TOON. The JSON model keeps its spec'd shape; TOON gets the same
 * information in tables, because TOON only saves tokens on arrays of objects with one set of keys, and
 * the model's rows, merges and cell maps are sparse maps it would otherwise write one indented line per
 * key. Documented in docs/toon.md; `fromToonLayout` gives back exactly the JSON model.
 *
 * Per sheet (and at the root of a print-area file):
 * - rows          → rows[N]{cell,v1,…,vk}: one line holds up to k cells of one row, the first at `cell`
 *                   (A1), the next ones in the columns to its right; null = no cell there. k is chosen
 *                   per table (1–16) for the fewest tokens: wide for dense tables, 1 for sparse forms.
 * - rows[].links  → links[N]{cell,url}, next to rows.
 * - merged_cells  → merged_cells[N]{from,to,v} (A1 corners, value; null when rows hold that same value at
 *                   `from`, as they do unless merged values are left out of rows).
 * - formulas_map  → formulas_map[N]{from,to,formula}; colors_map → colors_map[N]{from,to,color}: the cells
 *                   of one key as rectangles, expanded row by row in the model's order.
 * - shapes, comments (objects with differing keys) → one table over all their keys; null = key absent.
 * The root says `alpha_col: true` when the model's column keys are letters ("A") rather than numbers ("0").
 */

/** Most cells one line of the rows table holds. */
const MAX_WIDTH = 16;
/** o200k tokens of one more table line (newline, indentation, A1 address) and of one `null`. */
const LINE_COST = 4;
const NULL_COST = 1;

type Dict = Record<string, unknown>;

const isDict = (value: unknown): value is Dict =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Sets an own property, whatever the key ("__proto__" is a valid sheet name and formula text). */
function put(target: Dict, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Fields written as one table over the union of their objects' keys. */
const UNION_TABLES = new Set(['shapes', 'comments']);
const MAP_TABLES: Record<string, string> = { formulas_map: 'formula', colors_map: 'color' };

/** Thrown by `fromToonLayout` for a document that does not follow the layout. */
export class ToonLayoutError extends Error {}

function columnOf(key: string): number {
  return /^\d+$/.test(key) ? Number(key) : alphaToColIndex(key);
}

const a1 = (row: number, col: number) => `${colIndexToAlpha(col)}${row}`;

// ---------------------------------------------------------------------------------------------------
// Model → layout

/** The TOON layout of an ExStruct document (workbook output, sheet file, print-area file or chunk page). */
export function toToonLayout(doc: Dict): Dict {
  const out: Dict = {};
  const letters = usesLetterKeys(doc);
  const rootCells = cellLookup(doc.rows);
  if (letters && !('book_name' in doc)) out.alpha_col = true;
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'sheets' && isDict(value)) {
      const sheets: Dict = {};
      for (const [name, sheet] of Object.entries(value)) {
        put(sheets, name, isDict(sheet) ? sheetToToon(sheet) : sheet);
      }
      out.sheets = sheets;
    } else if (key === 'sheet' && isDict(value)) out.sheet = sheetToToon(value);
    else for (const [name, field] of fieldToToon(key, value, rootCells)) put(out, name, field);
    if (key === 'book_name' && letters) out.alpha_col = true;
  }
  return out;
}

function sheetToToon(sheet: Dict): Dict {
  const out: Dict = {};
  const cells = cellLookup(sheet.rows);
  for (const [key, value] of Object.entries(sheet)) {
    for (const [name, field] of fieldToToon(key, value, cells)) put(out, name, field);
  }
  return out;
}

type CellLookup = (row: number, col: number) => unknown;

/** The value of a cell in the rows of the same document (undefined when there is none). */
function cellLookup(rows: unknown): CellLookup {
  let index: Map<string, unknown> | undefined;
  return (row, col) => {
    if (!index) {
      index = new Map();
      if (Array.isArray(rows)) {
        for (const line of rows) {
          if (!isCellRow(line)) continue;
          for (const [key, value] of Object.entries(line.c)) index.set(`${line.r}:${columnOf(key)}`, value);
        }
      }
    }
    return index.get(`${row}:${col}`);
  };
}

/** A model field as the layout's field(s): rows bring their links table along. */
function fieldToToon(key: string, value: unknown, cells: CellLookup): Array<[string, unknown]> {
  if (key === 'rows' && Array.isArray(value) && value.every(isCellRow)) return rowsToToon(value);
  if (key === 'merged_cells' && isMergedCells(value)) {
    // A merged value that rows already hold at the range's first cell is not written twice.
    const items = value.items.map(([r1, c1, r2, c2, v]) => ({
      from: a1(r1, c1),
      to: a1(r2, c2),
      v: cells(r1, c1) === v ? null : v,
    }));
    return [['merged_cells', items]];
  }
  if (Object.hasOwn(MAP_TABLES, key) && isCellMap(value))
    return [[key, mapToRectangles(value, MAP_TABLES[key]!)]];
  if (UNION_TABLES.has(key) && Array.isArray(value) && value.every(isFlatObject)) {
    return [[key, unionTable(value)]];
  }
  return [[key, value]];
}

function isCellRow(value: unknown): value is CellRow {
  return isDict(value) && typeof value.r === 'number' && isDict(value.c);
}

function isMergedCells(value: unknown): value is { items: Array<[number, number, number, number, string]> } {
  return (
    isDict(value) &&
    Array.isArray(value.schema) &&
    value.schema.join() === MERGED_SCHEMA.join() &&
    Array.isArray(value.items) &&
    value.items.every((item) => Array.isArray(item) && item.length === 5)
  );
}

function isCellMap(value: unknown): value is Record<string, Array<[number, number]>> {
  return (
    isDict(value) &&
    Object.values(value).every(
      (cells) =>
        Array.isArray(cells) &&
        cells.length > 0 &&
        cells.every((cell) => Array.isArray(cell) && cell.length === 2),
    )
  );
}

function isFlatObject(value: unknown): value is Dict {
  return isDict(value) && Object.values(value).every((v) => v === null || typeof v !== 'object');
}

function usesLetterKeys(doc: Dict): boolean {
  const sheets: unknown[] = [];
  if (isDict(doc.sheets)) sheets.push(...Object.values(doc.sheets));
  if (isDict(doc.sheet)) sheets.push(doc.sheet);
  sheets.push(doc);
  for (const sheet of sheets) {
    if (!isDict(sheet) || !Array.isArray(sheet.rows)) continue;
    for (const row of sheet.rows) {
      if (!isCellRow(row)) continue;
      for (const key in row.c) return !/^\d+$/.test(key);
    }
  }
  return false;
}

/** One row's cells as (column, value) pairs, left to right. */
function cellsOf(row: CellRow): Array<[number, CellValue]> {
  return Object.entries(row.c)
    .map(([key, value]): [number, CellValue] => [columnOf(key), value])
    .sort((a, b) => a[0] - b[0]);
}

/** How many lines a row takes when one line holds `width` columns from its first cell on. */
function linesFor(cols: number[], width: number): number {
  let lines = 0;
  let start = -Infinity;
  for (const col of cols) {
    if (col - start < width) continue;
    lines++;
    start = col;
  }
  return lines;
}

/** The line width with the fewest tokens: a line costs LINE_COST, each empty place in it NULL_COST. */
function bestWidth(rows: number[][], cells: number): number {
  let best = 1;
  let bestCost = Infinity;
  for (let width = 1; width <= MAX_WIDTH; width++) {
    let lines = 0;
    for (const cols of rows) lines += linesFor(cols, width);
    const cost = lines * LINE_COST + (lines * width - cells) * NULL_COST + width * 2;
    if (cost < bestCost) {
      best = width;
      bestCost = cost;
    }
  }
  return best;
}

function rowsToToon(rows: CellRow[]): Array<[string, unknown]> {
  const cellRows = rows.map(cellsOf);
  const cellCount = cellRows.reduce((n, cells) => n + cells.length, 0);
  const width = bestWidth(
    cellRows.map((cells) => cells.map(([col]) => col)),
    cellCount,
  );
  const names = Array.from({ length: width }, (_, i) => `v${i + 1}`);
  const table: Dict[] = [];
  const links: Dict[] = [];
  rows.forEach((row, index) => {
    let line: Dict | undefined;
    let start = -Infinity;
    for (const [col, value] of cellRows[index]!) {
      if (col - start >= width) {
        start = col;
        line = { cell: a1(row.r, col) };
        for (const name of names) line[name] = null;
        table.push(line);
      }
      line![names[col - start]!] = value;
    }
    for (const [key, url] of Object.entries(row.links ?? {}))
      links.push({ cell: a1(row.r, columnOf(key)), url });
  });
  return links.length > 0
    ? [
        ['rows', table],
        ['links', links],
      ]
    : [['rows', table]];
}

/** A cell map's cells as rectangles, each expanding row by row into a run of the original list. */
function mapToRectangles(map: Record<string, Array<[number, number]>>, name: string): Dict[] {
  const out: Dict[] = [];
  for (const [key, cells] of Object.entries(map)) {
    const runs: Array<{ r1: number; c1: number; r2: number; c2: number }> = [];
    for (const [row, col] of cells) {
      const last = runs.at(-1);
      if (last && last.r1 === row && last.c2 + 1 === col) last.c2 = col;
      else runs.push({ r1: row, c1: col, r2: row, c2: col });
    }
    const rects: typeof runs = [];
    for (const run of runs) {
      const last = rects.at(-1);
      if (last && last.c1 === run.c1 && last.c2 === run.c2 && last.r2 + 1 === run.r1) last.r2 = run.r1;
      else rects.push({ ...run });
    }
    for (const rect of rects) {
      const line: Dict = { from: a1(rect.r1, rect.c1), to: a1(rect.r2, rect.c2) };
      put(line, name, key);
      out.push(line);
    }
  }
  return out;
}

function unionTable(items: Dict[]): Dict[] {
  // `kind` first: a line that starts with a word costs a token less than one that starts with a number.
  const keys = [...new Set(['kind', ...items.flatMap((item) => Object.keys(item))])].filter((key) =>
    items.some((item) => key in item),
  );
  return items.map((item) => Object.fromEntries(keys.map((key) => [key, item[key] ?? null])));
}

// ---------------------------------------------------------------------------------------------------
// Layout → model

/** Options of `fromToonLayout`. */
export interface FromToonOptions {
  /**
   * Most cells the rectangles of formulas_map / colors_map may expand to (a rectangle of a few bytes can
   * name billions of cells). The loader passes the text's length: no more cells than a JSON file of
   * that size could list.
   */
  maxMapCells?: number;
}

/**
 * The JSON model of a TOON document written in the layout. A document in the plain model (TOON written
 * before the layout, or by another tool) comes back as it is.
 */
export function fromToonLayout(doc: unknown, options: FromToonOptions = {}): unknown {
  if (!isDict(doc)) return doc;
  const sheetName = typeof doc.sheet_name === 'string' ? doc.sheet_name : undefined;
  const context: Context = {
    letters: doc.alpha_col === true,
    mapCellsLeft: options.maxMapCells ?? Number.MAX_SAFE_INTEGER,
  };
  const root: Dict = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'alpha_col' && typeof value === 'boolean') continue;
    if (key === 'sheets' && isDict(value)) {
      const sheets: Dict = {};
      for (const [name, sheet] of Object.entries(value)) {
        put(sheets, name, isDict(sheet) ? sheetFromToon(sheet, context, name) : sheet);
      }
      root.sheets = sheets;
    } else if (key === 'sheet' && isDict(value)) {
      root.sheet = sheetFromToon(value, context, sheetName ?? 'sheet');
    } else put(root, key, value);
  }
  // A print-area file carries rows, shapes, … at its root.
  return sheetFromToon(root, context, sheetName ?? '(root)');
}

interface Context {
  letters: boolean;
  mapCellsLeft: number;
}

function sheetFromToon(sheet: Dict, context: Context, where: string): Dict {
  const out: Dict = {};
  const links = Array.isArray(sheet.links) ? sheet.links : undefined;
  const tabled = Array.isArray(sheet.rows) && sheet.rows.every((line) => isDict(line) && 'cell' in line);
  const rows = tabled ? rowsFromToon(sheet.rows as Dict[], links ?? [], context.letters, where) : undefined;
  const cells = cellLookup(rows ?? sheet.rows);
  for (const [key, value] of Object.entries(sheet)) {
    if (key === 'links' && links) continue;
    if (key === 'rows' && rows) out.rows = rows;
    else if (key === 'merged_cells' && Array.isArray(value)) {
      out.merged_cells = {
        schema: [...MERGED_SCHEMA],
        items: value.map((item) => {
          const { from, to } = corners(item, where, 'merged_cells');
          let v = (item as Dict).v;
          // null: the value is the one rows hold at the range's first cell.
          if (v === null) v = cells(from.row, from.col);
          if (typeof v !== 'string')
            fail(where, `merged_cells has no value for ${String((item as Dict).from)}`);
          return [from.row, from.col, to.row, to.col, v];
        }),
      };
    } else if (Object.hasOwn(MAP_TABLES, key) && Array.isArray(value)) {
      put(out, key, mapFromRectangles(value, MAP_TABLES[key]!, context, where, key));
    } else if (UNION_TABLES.has(key) && Array.isArray(value)) {
      const items = value.map((item: unknown) =>
        isDict(item) ? Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null)) : item,
      );
      put(out, key, items);
    } else put(out, key, value);
  }
  return out;
}

function fail(where: string, what: string): never {
  throw new ToonLayoutError(`sheet "${where}": ${what}`);
}

function address(value: unknown, where: string, field: string): { row: number; col: number } {
  const parsed = typeof value === 'string' ? tryParseA1(value) : undefined;
  if (!parsed) fail(where, `${field} holds ${JSON.stringify(value)}, not an A1 cell address`);
  return parsed;
}

function corners(item: unknown, where: string, field: string) {
  if (!isDict(item)) fail(where, `${field} holds an entry that is not a table row`);
  return { from: address(item.from, where, field), to: address(item.to, where, field) };
}

function rowsFromToon(lines: Dict[], links: unknown[], letters: boolean, where: string): CellRow[] {
  const key = (col: number) => (letters ? colIndexToAlpha(col) : String(col));
  const rows = new Map<number, CellRow>();
  for (const line of lines) {
    const { row, col } = address(line.cell, where, 'rows');
    let target = rows.get(row);
    if (!target) rows.set(row, (target = { r: row, c: {} }));
    for (const [name, value] of Object.entries(line)) {
      if (name === 'cell' || value === null) continue;
      const offset = /^v([1-9]\d*)$/.exec(name);
      if (!offset) fail(where, `rows has a column "${name}" (expected cell, v1, v2, …)`);
      if (typeof value === 'object')
        fail(where, `rows holds a value that is not text, a number or a boolean`);
      target.c[key(col + Number(offset[1]) - 1)] = value as CellValue;
    }
  }
  for (const link of links) {
    if (!isDict(link) || typeof link.url !== 'string') fail(where, 'links holds an entry without url');
    const { row, col } = address(link.cell, where, 'links');
    const target = rows.get(row);
    if (!target || !(key(col) in target.c))
      fail(where, `links names ${String(link.cell)}, a cell without value`);
    (target.links ??= {})[key(col)] = link.url;
  }
  return [...rows.values()];
}

function mapFromRectangles(items: unknown[], name: string, context: Context, where: string, field: string) {
  const map = new Map<string, Array<[number, number]>>();
  for (const item of items) {
    const { from, to } = corners(item, where, field);
    const value = (item as Dict)[name];
    if (typeof value !== 'string') fail(where, `${field} holds an entry without ${name}`);
    const size = (to.row - from.row + 1) * (to.col - from.col + 1);
    if (to.row < from.row || to.col < from.col)
      fail(where, `${field} has a rectangle whose "to" is before its "from"`);
    if (size > context.mapCellsLeft)
      fail(where, `${field} names more cells than a document of this size can hold`);
    context.mapCellsLeft -= size;
    let cells = map.get(value);
    if (!cells) map.set(value, (cells = []));
    for (let row = from.row; row <= to.row; row++) {
      for (let col = from.col; col <= to.col; col++) cells.push([row, col]);
    }
  }
  return Object.fromEntries(map);
}
