import { z } from 'zod';
import { decodeCursor, encodeCursor, ToolError, utf8ByteLength } from '@mcp-workbench/core/engine';
import { columnIndex } from '../extract/extraction.js';
import type { CellRow } from '../extract/model.js';
import { renderDocument } from '../output/render.js';
import { selectSheet, type OutputFile, type SheetView } from './output-file.js';
import { fieldPieces, joinPieces, type FieldPiece } from './sheet-field-pieces.js';

export interface ChunkFilter {
  /** [start, end], 1-based inclusive. */
  rows?: [number, number] | undefined;
  /** [start, end], 1-based inclusive column numbers (A = 1); works for numeric and letter keys. */
  cols?: [number, number] | undefined;
}

export interface ChunkRequest {
  sheet?: string | undefined;
  maxBytes: number;
  filter?: ChunkFilter | undefined;
  cursor?: string | undefined;
}

export interface ChunkResult {
  /**
   * The whole output, or `{book_name, sheet_name, sheet: {rows, …}}` for one page: JSON text, or TOON
   * text (in the table layout of docs/toon.md) when the output file is TOON.
   */
  chunk: string;
  format: 'json' | 'toon';
  next_cursor?: string;
  warnings: string[];
}

const CursorSchema = z.object({
  v: z.literal(1),
  /** File fingerprint (path hash, size, mtime). */
  f: z.string(),
  s: z.string(),
  q: z.string(),
  /** Next row index within the filtered rows. */
  i: z.number().int().min(0),
  /** Next piece of the sheet's other fields, while they are sent in pieces before the rows. */
  p: z.number().int().min(0).optional(),
});

function firstIndexAtOrAfter(rows: CellRow[], r: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.r < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function restrictColumns(row: CellRow, first: number, last: number): CellRow | undefined {
  const c: CellRow['c'] = {};
  let links: CellRow['links'];
  let any = false;
  for (const [key, value] of Object.entries(row.c)) {
    const col = columnIndex(key) + 1;
    if (col < first || col > last) continue;
    c[key] = value;
    any = true;
    const link = row.links?.[key];
    if (link !== undefined) (links ??= {})[key] = link;
  }
  if (!any) return undefined;
  return links ? { r: row.r, c, links } : { r: row.r, c };
}

function tooLarge(output: OutputFile, maxBytes: number): ToolError {
  const names = [...output.sheets.keys()];
  const example = JSON.stringify(names[0] ?? 'Sheet1');
  return new ToolError(
    'OUTPUT_TOO_LARGE',
    `Output is too large (${output.bytes} bytes > max_bytes ${maxBytes}) to return whole. ` +
      `Retry with sheet=${example} (sheets: ${names.map((n) => JSON.stringify(n)).join(', ')}), ` +
      `or narrow it with filter={"rows":[1,200],"cols":[1,10]}, or raise max_bytes.`,
    {
      hint: 'Pass `sheet` to page through one sheet with next_cursor; add `filter` to read only some rows/columns.',
      details: { bytes: output.bytes, max_bytes: maxBytes, sheet_names: names },
    },
  );
}

/**
 * Reads an extraction output in pieces that fit `maxBytes`. Without sheet, filter and cursor the whole
 * file comes back when it fits. Otherwise one sheet is paged: the first page carries the sheet's other
 * fields (shapes, merged cells, …) and rows; later pages carry rows only. Each row is serialised once,
 * so a page costs the rows it returns.
 */
export function readJsonChunk(output: OutputFile, request: ChunkRequest): ChunkResult {
  const warnings: string[] = [];
  let sheetName = request.sheet;
  const format = output.chunkFormat;
  if (sheetName === undefined && request.filter === undefined && request.cursor === undefined) {
    const whole = wholeText(output, request.maxBytes);
    if (whole !== undefined && utf8ByteLength(whole) <= request.maxBytes)
      return { chunk: whole, format, warnings };
    if (output.sheets.size !== 1) throw tooLarge(output, request.maxBytes);
    sheetName = [...output.sheets.keys()][0]!;
    warnings.push(
      `The output exceeds max_bytes; paging its only sheet "${sheetName}" (use next_cursor for more).`,
    );
  }

  let cursor: z.infer<typeof CursorSchema> | undefined;
  if (request.cursor !== undefined) {
    cursor = decodeCursor(request.cursor, CursorSchema);
    if (sheetName === undefined) sheetName = cursor.s;
  }
  const sheet = selectSheet(output, sheetName);
  const filter = normaliseFilter(request.filter, warnings);
  const filterKey = JSON.stringify(filter);
  if (cursor) checkCursor(cursor, output, sheet, filterKey);

  const rows = sheet.rows;
  const from = filter.rows ? firstIndexAtOrAfter(rows, filter.rows[0]) : 0;
  const to = filter.rows ? firstIndexAtOrAfter(rows, filter.rows[1] + 1) : rows.length;
  const start = from + (cursor?.i ?? 0);
  if (start > to) {
    throw new ToolError('CURSOR_MISMATCH', 'The cursor points past the last row of this sheet/filter.', {
      hint: 'Omit cursor to start from the first row again.',
    });
  }

  // Only a call without cursor starts a sheet: later pages never repeat the sheet's other fields.
  const firstPage = cursor === undefined;
  const { rows: _rows, ...rest } = sheet.data;
  const restJson = firstPage ? JSON.stringify(rest) : '{}';
  const prefix = `{"book_name":${JSON.stringify(output.bookName ?? null)},"sheet_name":${JSON.stringify(sheet.name)},"sheet":{"rows":[`;
  const suffix = `]${restJson === '{}' ? '' : `,${restJson.slice(1, -1)}`}}}`;
  let used = utf8ByteLength(prefix) + utf8ByteLength(suffix);
  // Decided on the JSON page, as the rows are, so a TOON output pages as its JSON twin does; unless the
  // TOON layout of the fields alone is the larger (a formulas_map takes a line per formula).
  const restTooLarge =
    firstPage &&
    restJson !== '{}' &&
    (used > request.maxBytes ||
      (format === 'toon' && utf8ByteLength(toonPage(output, sheet, [], rest)) > request.maxBytes));
  if (cursor?.p !== undefined || restTooLarge) {
    const pages = { filterKey, rowsLeft: start < to };
    return fieldsPage(output, sheet, rest, cursor?.p ?? 0, request.maxBytes, pages, warnings);
  }
  const pieces: string[] = [];
  let index = start;
  const pageRows: CellRow[] = [];
  const pageIndexes: number[] = [];
  for (; index < to; index++) {
    const row = filter.cols ? restrictColumns(rows[index]!, filter.cols[0], filter.cols[1]) : rows[index]!;
    if (!row) continue;
    const json = JSON.stringify(row);
    const cost = utf8ByteLength(json) + (pieces.length > 0 ? 1 : 0);
    if (used + cost > request.maxBytes) {
      if (pieces.length === 0) {
        warnings.push(
          'max_bytes too small; returning a single row chunk. Raise max_bytes or narrow filter.cols.',
        );
        pieces.push(json);
        pageRows.push(row);
        pageIndexes.push(index);
        index++;
      }
      break;
    }
    pieces.push(json);
    pageRows.push(row);
    pageIndexes.push(index);
    used += cost;
  }
  let chunk: string;
  if (format === 'toon') {
    // The same rows as the JSON page (TOON is the smaller of the two), unless the layout's nulls make a
    // page larger than max_bytes: then fewer rows, the rest on the next page.
    chunk = toonPage(output, sheet, pageRows, firstPage ? rest : {});
    let bytes = utf8ByteLength(chunk);
    while (bytes > request.maxBytes && pageRows.length > 1) {
      pageRows.length = Math.max(1, Math.floor((pageRows.length * request.maxBytes) / bytes) - 1);
      index = pageIndexes[pageRows.length - 1]! + 1;
      chunk = toonPage(output, sheet, pageRows, firstPage ? rest : {});
      bytes = utf8ByteLength(chunk);
    }
  } else chunk = `${prefix}${pieces.join(',')}${suffix}`;
  if (index < to)
    return { chunk, format, next_cursor: makeCursor(output, sheet, filterKey, index - from), warnings };
  return { chunk, format, warnings };
}

/** One page of a sheet as TOON: the same fields as a JSON page, in the table layout. */
function toonPage(output: OutputFile, sheet: SheetView, rows: CellRow[], rest: object): string {
  return renderDocument(
    { book_name: output.bookName ?? null, sheet_name: sheet.name, sheet: { rows, ...rest } },
    'toon',
  );
}

/**
 * The whole output as the chunk format's text: a JSON file's own text; TOON rendered again from the
 * model (not when the file is far larger than max_bytes: it would not fit anyway).
 */
function wholeText(output: OutputFile, maxBytes: number): string | undefined {
  if (output.jsonText !== undefined && output.chunkFormat === 'json') return output.jsonText;
  if (output.chunkFormat === 'json') return JSON.stringify(wholeOutput(output));
  if (output.bytes > maxBytes * 4) return undefined;
  return renderDocument(wholeOutput(output), 'toon');
}

function makeCursor(
  output: OutputFile,
  sheet: SheetView,
  filterKey: string,
  offset: number,
  piece?: number,
): string {
  const at = { v: 1, f: output.fingerprint, s: sheet.name, q: filterKey, i: offset };
  return encodeCursor(piece === undefined ? at : { ...at, p: piece });
}

/** A sheet's pieces, kept while its output is (the chunk reader asks for them once per page). */
const piecesOf = new WeakMap<object, FieldPiece[]>();

/**
 * A page of the sheet's other fields, when they do not fit one chunk with the rows: they come first, as
 * many pieces as fit `maxBytes` (at least one), then the rows from their first. A field cut across pages
 * joins as joinPieces says.
 */
function fieldsPage(
  output: OutputFile,
  sheet: SheetView,
  rest: Record<string, unknown>,
  from: number,
  maxBytes: number,
  pages: { filterKey: string; rowsLeft: boolean },
  warnings: string[],
): ChunkResult {
  let all = piecesOf.get(sheet.data);
  if (!all) piecesOf.set(sheet.data, (all = fieldPieces(rest, maxBytes)));
  const format = output.chunkFormat;
  let count = 0;
  for (let bytes = 200; from + count < all.length; count++) {
    bytes += all[from + count]!.bytes;
    if (count > 0 && bytes > maxBytes) break;
  }
  const render = () => {
    const fields = joinPieces(all.slice(from, from + count));
    return format === 'toon'
      ? toonPage(output, sheet, [], fields)
      : JSON.stringify({
          book_name: output.bookName ?? null,
          sheet_name: sheet.name,
          sheet: { rows: [], ...fields },
        });
  };
  let chunk = render();
  let bytes = utf8ByteLength(chunk);
  while (bytes > maxBytes && count > 1) {
    count = Math.max(1, Math.floor((count * maxBytes) / bytes) - 1);
    chunk = render();
    bytes = utf8ByteLength(chunk);
  }
  const shown = [...new Set(all.slice(from, from + count).map((piece) => piece.field))].join(', ');
  warnings.push(
    `The sheet's fields besides its rows exceed max_bytes, so they come first, in pieces (this chunk: ${shown}; ` +
      `pieces ${from + 1}–${from + count} of ${all.length}), and the rows after them. Join a field's pieces: lists ` +
      'follow on, maps take the new keys, and a key that comes again continues its list.',
  );
  if (bytes > maxBytes)
    warnings.push('max_bytes too small for one piece; it is sent whole. Raise max_bytes.');
  const next = from + count;
  const cursor =
    next < all.length
      ? makeCursor(output, sheet, pages.filterKey, 0, next)
      : pages.rowsLeft
        ? makeCursor(output, sheet, pages.filterKey, 0)
        : undefined;
  return cursor ? { chunk, format, next_cursor: cursor, warnings } : { chunk, format, warnings };
}

function checkCursor(
  cursor: z.infer<typeof CursorSchema>,
  output: OutputFile,
  sheet: SheetView,
  filterKey: string,
) {
  const [pathHash] = cursor.f.split(':');
  if (pathHash !== output.pathHash) {
    throw new ToolError('CURSOR_MISMATCH', 'The cursor was issued for another output file.', {
      hint: 'Use a cursor only with the out_path that returned it, or omit cursor to start over.',
    });
  }
  if (cursor.f !== output.fingerprint) {
    throw new ToolError('CURSOR_MISMATCH', 'The output file changed since the cursor was issued.', {
      hint: 'Omit cursor to read the new file from its first row.',
    });
  }
  if (cursor.s !== sheet.name || cursor.q !== filterKey) {
    throw new ToolError(
      'CURSOR_MISMATCH',
      `The cursor was issued for sheet "${cursor.s}" with another filter.`,
      {
        hint: 'Repeat the same sheet and filter as the call that returned the cursor, or omit cursor.',
      },
    );
  }
}

function normaliseFilter(filter: ChunkFilter | undefined, warnings: string[]): ChunkFilter {
  const out: ChunkFilter = {};
  if (filter?.rows) {
    if (filter.rows[0] > filter.rows[1]) warnings.push('Row filter ignored because start > end.');
    else out.rows = filter.rows;
  }
  if (filter?.cols) {
    if (filter.cols[0] > filter.cols[1]) warnings.push('Column filter ignored because start > end.');
    else out.cols = filter.cols;
  }
  return out;
}

function wholeOutput(output: OutputFile): object {
  const sheets = Object.fromEntries([...output.sheets].map(([name, view]) => [name, view.data]));
  return output.bookName === undefined ? { sheets } : { book_name: output.bookName, sheets };
}
