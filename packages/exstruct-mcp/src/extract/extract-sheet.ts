import { formatA1, parseRange } from '../ooxml/cell-ref.js';
import { readChartPart, type ChartInfo } from '../ooxml/chart-part.js';
import { readCommentsPart } from '../ooxml/comments-part.js';
import { readDiagramPart, type DiagramInfo } from '../ooxml/diagram-part.js';
import { readDrawingPart } from '../ooxml/drawing-part.js';
import { findRel, isRelType, readRelationships, type Relationship } from '../ooxml/relationships.js';
import { readTablePart } from '../ooxml/table-part.js';
import type { SheetEntry } from '../ooxml/workbook-part.js';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { scanWorksheet, type WorksheetInfo } from '../ooxml/worksheet-reader.js';
import { createCellSink, workbookSinkConfig } from './cell-sink.js';
import type { CellValue } from './cell-value.js';
import { MERGED_SCHEMA, type MergedCells, type SheetData } from './model.js';
import { scanInBatches, type BatchOptions } from './batch-scan.js';
import type { ByteSink } from './byte-sink.js';
import { scanFast } from './fast-scan.js';
import type { ParallelOptions } from './parallel-rows.js';
import { Kind, releaseRows, RowStore, SegmentBuilder, WorkbookValues, type RowSegment } from './row-store.js';
import type { ModeFeatures } from './modes.js';
import { printAreasOf } from './print-areas.js';
import { buildShapesAndCharts } from './shapes.js';
import { SheetGeometry } from './sheet-geometry.js';
import { detectTableCandidates, pairsStream } from './table-candidates.js';

export interface SheetOptions {
  features: ModeFeatures;
  /**
   * Read rows with the fast byte parser where it can (light and standard modes; default true), and
   * write their compact JSON to `json` as they are read.
   */
  fastRows?: boolean;
  json?: { sink: ByteSink; alpha: boolean } | undefined;
  /** Keep the value of a merged range in `rows` (default true, as the original's default). */
  mergedValuesInRows: boolean;
  /** Row-batch parsing of big sheets (light/standard modes); false to always parse in one pass. */
  batches?: BatchOptions | false;
  /**
   * A small sheet's rows read by the fast parser are lent the thread's spare columns instead of copied
   * out of them: the caller gives them back with releaseRows (row-store.ts) once it no longer reads them.
   */
  lendRows?: boolean;
  warn: (message: string) => void;
}

/** One extracted sheet: its rows in the columnar store, every other field as model data. */
export interface ExtractedSheet {
  name: string;
  rows: RowStore | undefined;
  data: Omit<SheetData, 'rows'>;
  /**
   * How the rows were parsed: by the fast byte parser, or by the tokenizer in one pass or in row
   * batches by this thread and `workers` more.
   */
  parsedWith: { fast: boolean; batches: boolean; workers: number };
  /** Where the compact JSON of `rows` lies in the extraction's JSON sink (see SheetOptions.json). */
  rowsJson?: { offset: number; bytes: number } | undefined;
}

const valuesByReader = new WeakMap<WorkbookReader, Promise<WorkbookValues>>();

/** The workbook's value texts, shared by all its sheets. */
function workbookValues(reader: WorkbookReader): Promise<WorkbookValues> {
  let values = valuesByReader.get(reader);
  if (!values) {
    values = reader.sharedStrings().then((strings) => new WorkbookValues(strings, reader.workbook.date1904));
    valuesByReader.set(reader, values);
  }
  return values;
}

/** Fill colour the original leaves out by default: plain white is the sheet's own background. */
const DEFAULT_BACKGROUND = 'FFFFFF';

/** Extracts one sheet into the ExStruct model (numeric column keys; alpha keys are applied later). */
export async function extractSheet(
  reader: WorkbookReader,
  entry: SheetEntry,
  sheetIndex: number,
  options: SheetOptions,
): Promise<ExtractedSheet> {
  const { features } = options;
  const data: Omit<SheetData, 'rows'> = {};
  if (!entry.part || !reader.zip.has(entry.part)) {
    options.warn(`Sheet "${entry.name}" has no worksheet part; it was left empty.`);
    return {
      name: entry.name,
      rows: undefined,
      data,
      parsedWith: { fast: false, batches: false, workers: 0 },
    };
  }
  const [values, styles] = await Promise.all([workbookValues(reader), reader.styles()]);
  const config = await workbookSinkConfig(reader);

  const formulas: Record<string, Array<[number, number]>> = {};
  const colors: Record<string, Array<[number, number]>> = {};
  let scan: { segments: RowSegment[]; borders: Int32Array; info: WorksheetInfo };
  // Verbose mode resolves shared formulas and fills in sheet order, so it keeps the one-pass parser.
  const plainRows = !features.formulasMap && !features.colorsMap;
  const fast =
    plainRows && options.fastRows !== false
      ? await scanFast(
          reader,
          entry.part,
          config,
          values,
          options.json,
          options.lendRows === true,
          parallelOptions(options.batches),
        )
      : undefined;
  const batched =
    plainRows && !fast ? await scanInBatches(reader, entry.part, config, options.batches ?? {}) : undefined;
  if (fast) {
    scan = fast;
  } else if (batched) {
    scan = batched;
  } else {
    const sink = createCellSink(config);
    const cellStyles = styles.cellStyles;
    const info = await scanWorksheet(
      reader.zip,
      entry.part,
      (r, col, type, s, raw, formula) => {
        sink.onCell(r, col, type, s, raw, formula);
        if (features.colorsMap) {
          const fill = cellStyles[s]?.fill;
          if (fill && fill !== DEFAULT_BACKGROUND) (colors[fill] ??= []).push([r, col]);
        }
        if (features.formulasMap && formula !== undefined) (formulas[`=${formula}`] ??= []).push([r, col]);
      },
      { formulas: features.formulasMap },
    );
    const { segment, borders } = sink.finish();
    scan = { segments: [segment], borders, info };
  }
  const { info } = scan;
  const sorted = sortedSegments(scan.segments);
  // Rows put in order were copied: the columns lent to them as read (SheetOptions.lendRows) go back.
  if (sorted !== scan.segments) releaseRows(scan.segments);
  const rows = new RowStore(sorted, values);
  const rels = await readRelationships(reader.zip, entry.part);
  const merged = mergedCells(info.merges, rows);
  // Tables are detected on every value, merged ones included, before merged values may leave rows.
  const excelTables = await readExcelTables(reader, info, rels);
  const tableCandidates = detectTableCandidates(rows.valueCells, pairsStream(scan.borders), excelTables);
  if (!options.mergedValuesInRows) dropMergedValues(info.merges, rows);
  if (features.hyperlinks) attachHyperlinks(info, rels, rows);

  let drawing: Pick<SheetData, 'shapes' | 'charts'> = {};
  if (features.drawings) drawing = await readDrawing(reader, info, rels, features, options.warn);

  if (drawing.shapes?.length) data.shapes = drawing.shapes;
  if (drawing.charts?.length) data.charts = drawing.charts;
  if (tableCandidates.length > 0) data.table_candidates = tableCandidates;
  const printAreas = printAreasOf(reader.workbook.definedNames, sheetIndex);
  if (printAreas.length > 0) data.print_areas = printAreas;
  if (features.drawings) {
    const comments = await readComments(reader, rels);
    if (comments.length > 0) data.comments = comments;
  }
  if (features.formulasMap && Object.keys(formulas).length > 0) data.formulas_map = formulas;
  if (features.colorsMap && Object.keys(colors).length > 0) data.colors_map = colors;
  if (features.mergedCells && merged.items.length > 0) data.merged_cells = merged;
  // The JSON written while reading holds every row as read: of no use once rows were put in order,
  // values dropped or links added (the serialiser then writes the rows from the store).
  let rowsJson: ExtractedSheet['rowsJson'];
  if (fast?.json) {
    if (fast.json.ordered && !rows.edited) rowsJson = { offset: fast.json.offset, bytes: fast.json.bytes };
    else options.json!.sink.truncate(fast.json.offset);
  }
  // A sheet without rows keeps no store: columns lent to it go back at once.
  if (rows.rowCount === 0) releaseRows(rows.segments);
  return {
    name: entry.name,
    rows: rows.rowCount > 0 ? rows : undefined,
    data,
    parsedWith: {
      fast: fast !== undefined,
      batches: batched !== undefined || fast?.helped !== undefined,
      workers: batched?.workers ?? ((fast?.helped ?? 0) > 0 ? 1 : 0),
    },
    rowsJson,
  };
}

/**
 * The fast parser's batches on two cores take the batch options' worker threshold; an explicit thread
 * count (tests) uses the rows thread (2 or more) or not (1) whatever the machine's load.
 */
function parallelOptions(batches: BatchOptions | false | undefined): ParallelOptions {
  if (batches === false) return { helper: false };
  const options: ParallelOptions = {};
  if (batches?.workerMinBytes !== undefined) options.minBytes = batches.workerMinBytes;
  if (batches?.threads !== undefined) options.helper = batches.threads >= 2;
  return options;
}

/** Sheets written with rows out of order (rare) are put back in row order. */
function sortedSegments(segments: RowSegment[]): RowSegment[] {
  let last = -1;
  for (const segment of segments) {
    // An indexed loop: run once per sheet, this stays cold, and a cold for-of over 200,000 row numbers
    // took 10-30 ms (iterator calls) against 5.
    const rows = segment.rowNumbers;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (r <= last) return [sortSegments(segments)];
      last = r;
    }
  }
  return segments;
}

function sortSegments(segments: RowSegment[]): RowSegment {
  const cells: Array<{ r: number; c: number; kind: Kind; num: number; text?: string }> = [];
  for (const segment of segments) {
    for (let row = 0; row < segment.rowNumbers.length; row++) {
      for (let i = segment.rowStart[row]!; i < segment.rowStart[row + 1]!; i++) {
        const kind = segment.kinds[i] as Kind;
        cells.push({
          r: segment.rowNumbers[row]!,
          c: segment.cols[i]!,
          kind,
          num: segment.nums[i]!,
          ...(kind === Kind.Text ? { text: segment.texts[segment.nums[i]!]! } : {}),
        });
      }
    }
  }
  cells.sort((a, b) => a.r - b.r || a.c - b.c);
  const builder = new SegmentBuilder();
  for (const cell of cells) {
    if (cell.text !== undefined) builder.addText(cell.r, cell.c, cell.text);
    else builder.add(cell.r, cell.c, cell.kind, cell.num);
  }
  return builder.finish();
}

function valueText(value: CellValue | undefined): string {
  if (value === undefined) return ' ';
  const text = String(value);
  return text === '' ? ' ' : text;
}

function rangeOf(ref: string) {
  try {
    return parseRange(ref);
  } catch {
    return undefined;
  }
}

/** `{schema, items: [[r1, c1, r2, c2, v]]}` where v is the top-left value as text (" " when empty). */
function mergedCells(refs: string[], rows: RowStore): MergedCells {
  const items: MergedCells['items'] = [];
  for (const ref of refs) {
    const range = rangeOf(ref);
    if (!range) continue;
    const { start, end } = range;
    items.push([start.row, start.col, end.row, end.col, valueText(rows.valueAt(start.row, start.col))]);
  }
  return { schema: MERGED_SCHEMA, items };
}

/** Removes values inside merged ranges from rows (they live in merged_cells instead). */
function dropMergedValues(refs: string[], rows: RowStore): void {
  for (const ref of refs) {
    const range = rangeOf(ref);
    if (range)
      rows.forEachIn(range.start.row, range.start.col, range.end.row, range.end.col, (_r, _c, key) =>
        rows.remove(key),
      );
  }
}

/** Links go on cells that have values; a link alone does not invent a row. */
function attachHyperlinks(info: WorksheetInfo, rels: Map<string, Relationship>, rows: RowStore): void {
  for (const link of info.hyperlinks) {
    const rel = link.relId ? rels.get(link.relId) : undefined;
    const fragment = link.location ? `#${link.location}` : '';
    const target = rel ? rel.target + fragment : fragment;
    const range = rangeOf(link.ref);
    if (!target || !range) continue;
    rows.forEachIn(range.start.row, range.start.col, range.end.row, range.end.col, (_r, _c, key) =>
      rows.setLink(key, target),
    );
  }
}

async function readExcelTables(
  reader: WorkbookReader,
  info: WorksheetInfo,
  rels: Map<string, Relationship>,
): Promise<string[]> {
  const refs: string[] = [];
  for (const id of info.tableRelIds) {
    const rel = rels.get(id);
    if (!rel || rel.external || !reader.zip.has(rel.target)) continue;
    const table = await readTablePart(reader.zip, rel.target);
    if (table) refs.push(table.ref);
  }
  return refs;
}

async function readComments(reader: WorkbookReader, rels: Map<string, Relationship>) {
  const rel = findRel(rels, 'comments');
  if (!rel || rel.external || !reader.zip.has(rel.target)) return [];
  const comments = await readCommentsPart(reader.zip, rel.target);
  return comments
    .filter((c) => c.ref && c.text)
    .map((c) => {
      const start = parseRange(c.ref).start;
      return { cell: formatA1(start), ...(c.author ? { author: c.author } : {}), text: c.text };
    });
}

async function readDrawing(
  reader: WorkbookReader,
  info: WorksheetInfo,
  rels: Map<string, Relationship>,
  features: ModeFeatures,
  warn: (message: string) => void,
): Promise<Pick<SheetData, 'shapes' | 'charts'>> {
  const rel = info.drawingRelId ? rels.get(info.drawingRelId) : findRel(rels, 'drawing');
  if (!rel || rel.external || !isRelType(rel, 'drawing') || !reader.zip.has(rel.target)) return {};
  const items = await readDrawingPart(reader.zip, rel.target);
  const charts = new Map<string, ChartInfo>();
  const diagrams = new Map<string, DiagramInfo>();
  for (const item of items) {
    try {
      if (item.kind === 'chart' && item.chartPart && reader.zip.has(item.chartPart)) {
        charts.set(item.chartPart, await readChartPart(reader.zip, item.chartPart));
      } else if (item.kind === 'diagram' && item.dataPart && reader.zip.has(item.dataPart)) {
        diagrams.set(item.dataPart, await readDiagramPart(reader.zip, item.dataPart, item.layoutPart));
      }
    } catch (error) {
      // One broken chart must not lose the rest of the sheet.
      warn(`Skipped ${item.kind} "${item.name}": ${(error as Error).message}`);
    }
  }
  return buildShapesAndCharts(items, new SheetGeometry(info), features, { charts, diagrams });
}
