// One batch of whole `<row>` elements cut from a big sheet, read by the fast row parser (fast-rows.ts)
// into memory of its own: the work the rows thread does (rows-worker.ts), and this thread for its share
// (parallel-rows.ts), which joins the batches in sheet order.
import { ByteSink } from './byte-sink.js';
import type { SinkConfig } from './cell-sink.js';
import { FastRowParser, NotFast } from './fast-rows.js';
import type { RowSegment, WorkbookValues } from './row-store.js';

/** What reading a batch needs besides its bytes: the same for every batch of a sheet. */
export interface BatchContext {
  config: SinkConfig;
  values: WorkbookValues;
  /** sheetData's prefix and the namespace declarations in force inside it (see SheetRowSink.start). */
  prefix: string;
  scope: ReadonlyMap<string, string>;
  /** Whether the rows' JSON is written, and with column letters as keys. */
  json: { alpha: boolean } | undefined;
}

export interface FastBatch {
  /** The rows' compact JSON without the array's brackets (`{"r":1,"c":{...}},...`); empty: no values. */
  json: Uint8Array;
  segment: RowSegment;
  borders: Int32Array;
  /** (row, height) pairs in sheet order. */
  heights: Float64Array;
  /** Rows came in ascending order within the batch. */
  ordered: boolean;
  /** The first and last row holding a value (0: none). */
  firstRow: number;
  lastRow: number;
}

/**
 * Reads a batch of whole rows; undefined when the fast parser leaves them to the full tokenizer or a
 * row has no `r` (the whole sheet is then read on one thread, which numbers such rows).
 */
export function readFastBatch(
  bytes: Buffer,
  context: BatchContext,
  /** Memory for the JSON (reused from batch to batch by the caller). */
  jsonMemory?: Uint8Array,
): FastBatch | undefined {
  const sink = new ByteSink(Math.max(4096, bytes.length >> 1), undefined, jsonMemory);
  const info = { rowHeights: new Map<number, number>() };
  let rows;
  try {
    const parser = new FastRowParser({
      config: context.config,
      values: context.values,
      prefix: context.prefix,
      scope: context.scope,
      info,
      json: context.json ? { sink, alpha: context.json.alpha } : undefined,
      // About 40 bytes of XML per cell in the sheets producers write.
      expectedCells: bytes.length / 40,
      rowRefsRequired: true,
    });
    parser.write(bytes);
    rows = parser.end();
  } catch (error) {
    if (error instanceof NotFast) return undefined;
    throw error;
  }
  const { segment } = rows;
  // One chunk holds it all but for a batch of unusually verbose values: join them then.
  const views = sink.views(0, sink.offset);
  const all = views.length === 1 ? views[0]! : Buffer.concat(views);
  const heights = new Float64Array(info.rowHeights.size * 2);
  let i = 0;
  for (const [row, height] of info.rowHeights) {
    heights[i++] = row;
    heights[i++] = height;
  }
  const rowCount = segment.rowNumbers.length;
  return {
    // The `[` and `]` the parser wrote are left out: the batches are joined into one array.
    json: all.length > 2 ? all.subarray(1, all.length - 1) : new Uint8Array(0),
    segment,
    borders: rows.borders,
    heights,
    ordered: rows.ordered,
    firstRow: rowCount > 0 ? segment.rowNumbers[0]! : 0,
    lastRow: rowCount > 0 ? segment.rowNumbers[rowCount - 1]! : 0,
  };
}

/** The memory of a batch's arrays, to transfer rather than copy (each buffer once). */
export function batchTransfers(batch: FastBatch): ArrayBuffer[] {
  const { segment } = batch;
  const arrays = [
    batch.json,
    segment.rowNumbers,
    segment.rowStart,
    segment.cols,
    segment.kinds,
    segment.nums,
    batch.borders,
    batch.heights,
  ];
  return [...new Set(arrays.map((array) => array.buffer as ArrayBuffer))];
}
