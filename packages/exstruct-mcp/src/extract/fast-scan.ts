import { streamSheetRows } from '../ooxml/sheet-row-stream.js';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { emptyWorksheetInfo, worksheetHandlers, type WorksheetInfo } from '../ooxml/worksheet-handlers.js';
import type { ByteSink } from './byte-sink.js';
import type { SinkConfig } from './cell-sink.js';
import { FastRowParser, NotFast } from './fast-rows.js';
import { scanParallel, type ParallelOptions } from './parallel-rows.js';
import type { RowSegment, WorkbookValues } from './row-store.js';
import { KernelFallback, WasmRowParser } from './wasm-rows.js';

export interface FastScan {
  segments: RowSegment[];
  borders: Int32Array;
  info: WorksheetInfo;
  /** The rows' compact JSON in the sink, from `offset`, `bytes` long (0: no values); see fast-rows.ts. */
  json: { offset: number; bytes: number; ordered: boolean } | undefined;
  /** Batches of rows read by the rows thread (parallel-rows.ts), if any. */
  helped?: number;
}

/**
 * Reads a worksheet with the fast row parser (fast-rows.ts), its surroundings with the XML tokenizer,
 * in one stream. Undefined when the rows hold markup the fast parser leaves to the full tokenizer: the
 * caller then reads the sheet again that way (and whatever JSON was written is taken back).
 */
export async function scanFast(
  reader: WorkbookReader,
  part: string,
  config: SinkConfig,
  values: WorkbookValues,
  json: { sink: ByteSink; alpha: boolean } | undefined,
  /** A small sheet's rows are lent the thread's spare columns (see SegmentBuilder.finish). */
  lendColumns = false,
  /** A big sheet's rows on two cores (parallel-rows.ts). */
  parallel: ParallelOptions = {},
): Promise<FastScan | undefined> {
  const offset = json?.sink.offset ?? 0;
  // The kernel before the rows thread: on one core it reads in ~0.36× of FastRowParser's time, less than
  // FastRowParser on two cores could, so the thread serves only where asked for (tests) or after the
  // kernel gave a sheet back.
  if (parallel.helper !== true && rowsKernelWanted(reader.zip.info(part)?.uncompressedSize ?? 0)) {
    const scan = await scanOneThread(reader, part, config, values, json, lendColumns, true);
    if (scan !== FALLBACK) return scan;
    // The kernel gave up on markup FastRowParser reads: it reads the sheet again from its start.
    json?.sink.truncate(offset);
  }
  const twoCores = await scanParallel(reader, part, config, values, json, parallel);
  if (twoCores) return twoCores;
  const scan = await scanOneThread(reader, part, config, values, json, lendColumns, false);
  return scan === FALLBACK ? undefined : scan;
}

/**
 * The smallest sheet (bytes of XML) whose rows the WebAssembly kernel reads (wasm-rows.ts), at about a
 * third of FastRowParser's time. Smaller sheets are not worth its cost: compiling it and, during the
 * call, V8 optimising its hot functions made a workbook of 1,000 small sheets peak 3-4 MB higher for a
 * 5 % faster call (with --liftoff-only the peak was lower, but big sheets took 25 % longer). Through the
 * bin, 6 and 5 rounds alternated: 1,000 sheets of 400 cells 380 / 261 ms and 94-95 MB (JS) against
 * 362 / 251 ms and 98-99 MB (kernel), first / second call; openpyxl's three sheets of 64,000 cells
 * (2.7 MB of XML each) 238 / 173 ms and 94 MB against 137 / 85 ms and 98 MB.
 */
const KERNEL_MIN_BYTES = 1024 * 1024;

/** Whether the kernel reads a sheet of `size` bytes; EXSTRUCT_ROWS_KERNEL=0 turns it off. */
function rowsKernelWanted(size: number): boolean {
  return size >= KERNEL_MIN_BYTES && process.env['EXSTRUCT_ROWS_KERNEL'] !== '0';
}

const FALLBACK = Symbol('fallback');

/** The sheet in one stream on this thread, by the kernel or by FastRowParser. */
async function scanOneThread(
  reader: WorkbookReader,
  part: string,
  config: SinkConfig,
  values: WorkbookValues,
  json: { sink: ByteSink; alpha: boolean } | undefined,
  lendColumns: boolean,
  kernel: boolean,
): Promise<FastScan | undefined | typeof FALLBACK> {
  const info = emptyWorksheetInfo();
  const offset = json?.sink.offset ?? 0;
  let parser: FastRowParser | WasmRowParser | undefined;
  const size = reader.zip.info(part)?.uncompressedSize ?? 0;
  try {
    await streamSheetRows(
      reader.zip,
      part,
      worksheetHandlers(() => undefined, info),
      {
        start(scope, prefix) {
          // About 40 bytes of XML per cell in the sheets producers write.
          const options = {
            config,
            values,
            prefix,
            scope,
            info,
            json,
            expectedCells: size / 40,
            lendColumns,
          };
          parser = (kernel ? WasmRowParser.create(options) : undefined) ?? new FastRowParser(options);
        },
        rows: (bytes) => parser!.write(bytes),
      },
    );
  } catch (error) {
    if (parser instanceof WasmRowParser) parser.release();
    if (error instanceof KernelFallback) return FALLBACK;
    if (!(error instanceof NotFast)) throw error;
    json?.sink.truncate(offset);
    return undefined;
  }
  if (!parser) {
    // No sheetData at all: no rows.
    return {
      segments: [],
      borders: new Int32Array(0),
      info,
      json: json ? { offset, bytes: 0, ordered: true } : undefined,
    };
  }
  let rows;
  try {
    rows = parser.end();
  } catch (error) {
    if (error instanceof KernelFallback) return FALLBACK;
    if (!(error instanceof NotFast)) throw error;
    json?.sink.truncate(offset);
    return undefined;
  }
  return {
    segments: [rows.segment],
    borders: rows.borders,
    info,
    json: json ? { offset, bytes: rows.jsonBytes, ordered: rows.ordered } : undefined,
  };
}
