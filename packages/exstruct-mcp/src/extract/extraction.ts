import type { OutputFormat } from '@mcp-workbench/core/engine';
import { renderDocument } from '../output/render.js';
import { ByteSink } from './byte-sink.js';
import type { ExtractedSheet } from './extract-sheet.js';
import type { CellRow, PrintArea, SheetData, WorkbookData } from './model.js';

export interface SerializeOptions {
  /** Indented JSON (default compact, the fewest tokens). */
  pretty?: boolean;
  /** Indentation for pretty JSON, YAML and TOON (default 2). */
  indent?: number;
}

/** The payload of one file written by `sheets_dir`: the sheet plus where it came from. */
export interface SheetFilePayload {
  book_name: string;
  sheet_name: string;
  sheet: SheetData;
}

/** The payload of one file written by `print_areas_dir`: what lies inside one print area. */
export interface PrintAreaPayload {
  book_name: string;
  sheet_name: string;
  area: PrintArea;
  rows?: CellRow[];
  shapes?: SheetData['shapes'];
  charts?: SheetData['charts'];
  table_candidates?: string[];
}

/**
 * The result of an extraction. `workbook` is the plain ExStruct model; `serialize` writes it as JSON
 * (compact JSON straight from the columnar rows, without building the model), YAML or TOON (in the
 * table layout of `output/toon-layout.ts`).
 */
export class Extraction {
  private model: WorkbookData | undefined;

  constructor(
    readonly bookName: string,
    readonly sheets: readonly ExtractedSheet[],
    readonly meta: {
      alphaCol: boolean;
      sheetNames: string[];
      warnings: string[];
      /** The rows' compact JSON written while reading (see ExtractedSheet.rowsJson). */
      rowsJson?: ByteSink | undefined;
    },
  ) {}

  get warnings(): string[] {
    return this.meta.warnings;
  }

  get sheetNames(): string[] {
    return this.meta.sheetNames;
  }

  /** The sheet as plain model data (rows first, then the other fields in the model's order). */
  sheetData(sheet: ExtractedSheet): SheetData {
    const rows = sheet.rows?.toCellRows(this.meta.alphaCol) ?? [];
    return rows.length > 0 ? { rows, ...sheet.data } : { ...sheet.data };
  }

  get workbook(): WorkbookData {
    if (!this.model) {
      // fromEntries defines own properties, so a sheet named "__proto__" stays a sheet.
      const sheets = Object.fromEntries(this.sheets.map((sheet) => [sheet.name, this.sheetData(sheet)]));
      this.model = { book_name: this.bookName, sheets };
    }
    return this.model;
  }

  /**
   * Compact JSON of the workbook as UTF-8 chunks: the rows JSON written while reading is not copied
   * (views of its chunks), the rest is written here, rows of sheets without it from the columnar store.
   */
  jsonChunks(): Uint8Array[] {
    const out = new ByteSink();
    const chunks: Uint8Array[] = [];
    out.text(`{"book_name":${JSON.stringify(this.bookName)},"sheets":{`);
    this.sheets.forEach((sheet, index) => {
      out.text(`${index === 0 ? '' : ','}${JSON.stringify(sheet.name)}:{`);
      let hasField = false;
      // A sheet whose every value was removed (merged values dropped) writes no rows field.
      if (sheet.rows && sheet.rows.valueCount > 0) {
        out.text('"rows":');
        const written = sheet.rowsJson;
        if (written && this.meta.rowsJson) {
          chunks.push(...out.chunks());
          chunks.push(...this.meta.rowsJson.views(written.offset, written.offset + written.bytes));
        } else sheet.rows.writeJson((piece) => out.text(piece), this.meta.alphaCol);
        hasField = true;
      }
      writeFields(out, sheet.data, hasField);
      out.text('}');
    });
    out.text('}}');
    chunks.push(...out.chunks());
    return chunks;
  }

  /** Serialises the whole workbook as text. */
  serialize(format: OutputFormat, options: SerializeOptions = {}): string {
    if (format === 'json' && !options.pretty) return utf8.decode(joined(this.jsonChunks()));
    return renderDocument(this.workbook, format, options);
  }

  /**
   * Serialises the whole workbook as UTF-8 chunks, ready to write (compact JSON piece by piece, which
   * keeps memory low on million-cell sheets).
   */
  serializeToChunks(format: OutputFormat, options: SerializeOptions = {}): Uint8Array[] {
    if (format === 'json' && !options.pretty) return this.jsonChunks();
    return [encoder.encode(renderDocument(this.workbook, format, options))];
  }

  /** Serialises the whole workbook as one buffer of UTF-8. */
  serializeToBuffer(format: OutputFormat, options: SerializeOptions = {}): Buffer {
    const chunks = this.serializeToChunks(format, options);
    return chunks.length === 1
      ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength)
      : joined(chunks);
  }

  /** One payload per sheet, for `sheets_dir` (as the original's save_sheets). */
  sheetPayloads(): SheetFilePayload[] {
    return this.sheets.map((sheet) => ({
      book_name: this.bookName,
      sheet_name: sheet.name,
      sheet: this.sheetData(sheet),
    }));
  }

  /** One payload per print area, for `print_areas_dir`: rows, tables and drawings inside the area. */
  printAreaPayloads(): Array<{ sheet: string; index: number; payload: PrintAreaPayload }> {
    const out: Array<{ sheet: string; index: number; payload: PrintAreaPayload }> = [];
    for (const sheet of this.sheets) {
      const areas = sheet.data.print_areas ?? [];
      if (areas.length === 0) continue;
      const data = this.sheetData(sheet);
      areas.forEach((area, i) => {
        out.push({
          sheet: sheet.name,
          index: i + 1,
          payload: printAreaPayload(this.bookName, sheet.name, area, data),
        });
      });
    }
    return out;
  }
}

/** A sheet's fields other than rows, in the model's order, after `hasField` fields already written. */
function writeFields(out: ByteSink, data: ExtractedSheet['data'], hasField: boolean): void {
  for (const [key, value] of Object.entries(data)) {
    out.text(`${hasField ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(value)}`);
    hasField = true;
  }
}

/**
 * The compact JSON document written front to back into one sink while the sheets are read (see
 * extractWorkbook's `document`): the same bytes as `Extraction.jsonChunks`. Each sheet's rows field is
 * opened before the sheet is read, its rows' JSON follows as they are parsed, and once the sheet is
 * done the rows are kept, written again from the store (when the JSON written while reading was taken
 * back), or taken out with the field (no values).
 */
export class JsonDocument {
  private sheetCount = 0;
  private sheetAt = 0;
  private rowsAt = 0;

  constructor(
    readonly sink: ByteSink,
    bookName: string,
    private readonly alphaCol: boolean,
  ) {
    sink.text(`{"book_name":${JSON.stringify(bookName)},"sheets":{`);
  }

  /** Before the sheet is read: its key and the start of its rows field. */
  startSheet(name: string): void {
    this.sink.text(`${this.sheetCount++ === 0 ? '' : ','}${JSON.stringify(name)}:{`);
    this.sheetAt = this.sink.offset;
    this.sink.text('"rows":');
    this.rowsAt = this.sink.offset;
  }

  /** After the sheet is read (its fields final). */
  endSheet(sheet: ExtractedSheet): void {
    const out = this.sink;
    let hasField = false;
    if (sheet.rows && sheet.rows.valueCount > 0) {
      const written = sheet.rowsJson;
      const inPlace =
        written !== undefined &&
        written.offset === this.rowsAt &&
        written.offset + written.bytes === out.offset;
      if (!inPlace) {
        out.truncate(this.rowsAt);
        sheet.rows.writeJson((piece) => out.text(piece), this.alphaCol);
      }
      hasField = true;
    } else out.truncate(this.sheetAt);
    writeFields(out, sheet.data, hasField);
    out.text('}');
  }

  end(): void {
    this.sink.text('}}');
  }
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder();

function joined(chunks: Uint8Array[]): Buffer {
  return Buffer.concat(chunks);
}

/** Approximate cell size in points used to place a print area among shapes (as the original does). */
const COL_PT = 48;
const ROW_PT = 15;

function printAreaPayload(
  bookName: string,
  sheetName: string,
  area: PrintArea,
  sheet: SheetData,
): PrintAreaPayload {
  const payload: PrintAreaPayload = { book_name: bookName, sheet_name: sheetName, area };
  const rows: CellRow[] = [];
  for (const row of sheet.rows ?? []) {
    if (row.r < area.r1 || row.r > area.r2) continue;
    const c: CellRow['c'] = {};
    let links: CellRow['links'];
    for (const [key, value] of Object.entries(row.c)) {
      const col = columnIndex(key);
      if (col < area.c1 || col > area.c2) continue;
      c[key] = value;
      const link = row.links?.[key];
      if (link !== undefined) (links ??= {})[key] = link;
    }
    if (Object.keys(c).length > 0) rows.push(links ? { r: row.r, c, links } : { r: row.r, c });
  }
  if (rows.length > 0) payload.rows = rows;
  const box = {
    l: area.c1 * COL_PT,
    t: (area.r1 - 1) * ROW_PT,
    r: (area.c2 + 1) * COL_PT,
    b: area.r2 * ROW_PT,
  };
  const inside = (item: { l: number; t: number; w?: number; h?: number }) => {
    const right = item.l + (item.w ?? 0);
    const bottom = item.t + (item.h ?? 0);
    return item.l <= box.r && right >= box.l && item.t <= box.b && bottom >= box.t;
  };
  const shapes = (sheet.shapes ?? []).filter(inside);
  if (shapes.length > 0) payload.shapes = shapes;
  const charts = (sheet.charts ?? []).filter(inside);
  if (charts.length > 0) payload.charts = charts;
  const tables = (sheet.table_candidates ?? []).filter((a1) => {
    const m = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(a1);
    if (!m) return false;
    const r1 = Number(m[2]);
    const r2 = Number(m[4] ?? m[2]);
    const c1 = columnIndex(m[1]!);
    const c2 = columnIndex(m[3] ?? m[1]!);
    return r1 >= area.r1 && r2 <= area.r2 && c1 >= area.c1 && c2 <= area.c2;
  });
  if (tables.length > 0) payload.table_candidates = tables;
  return payload;
}

/** A column key, numeric ("12") or letters ("M"), as a 0-based index (-1 when neither). */
export function columnIndex(key: string): number {
  if (/^\d+$/.test(key)) return Number(key);
  if (!/^[A-Za-z]{1,3}$/.test(key)) return -1;
  let n = 0;
  for (const ch of key.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}
