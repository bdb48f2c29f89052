// Parsing one batch of `<row>` elements into a columnar segment — the work a worker thread does, also
// done on the main thread for its share of the batches. Free of the MCP SDK so workers start quickly.
//
// Batches go through the dedicated row-fragment tokenizer (about three times faster than a general SAX
// parser on sheet rows, and just as strict about well-formedness: unclosed or mismatched tags fail the
// batch); the rest of each worksheet and every other part go through the XML tokenizer.
import { emptyWorksheetInfo, worksheetHandlers } from '../ooxml/worksheet-handlers.js';
import { parseRowFragment, rowsText } from '../ooxml/row-fragment-parser.js';
import { ROOT_SCOPE } from '../ooxml/xml-tokenizer.js';
import { createCellSink, type SinkConfig } from './cell-sink.js';
import type { RowSegment } from './row-store.js';

export interface BatchResult {
  seq: number;
  segment?: RowSegment;
  borders?: Int32Array;
  /** (row, height) pairs of rows with an explicit height. */
  rowHeights?: Float64Array;
  rowsWithoutRef?: number;
  /** Why the batch is not well-formed XML. */
  error?: string;
}

/** Parses a batch; `scope` holds the namespace declarations in force in the sheet's sheetData. */
export function parseRowBatch(
  seq: number,
  bytes: Uint8Array,
  config: SinkConfig,
  scope: [string, string][] = [],
): BatchResult {
  try {
    // A cell with its reference takes 30–50 bytes of XML in the sheets producers write; the columns grow
    // when a batch holds more.
    const sink = createCellSink(config, bytes.length >> 5);
    const info = emptyWorksheetInfo();
    parseRowFragment(
      rowsText(bytes),
      worksheetHandlers(sink.onCell, info),
      new Map([...ROOT_SCOPE, ...scope]),
    );
    const { segment, borders } = sink.finish();
    const rowHeights = new Float64Array(info.rowHeights.size * 2);
    let i = 0;
    for (const [row, height] of info.rowHeights) {
      rowHeights[i++] = row;
      rowHeights[i++] = height;
    }
    return { seq, segment, borders, rowHeights, rowsWithoutRef: info.rowsWithoutRef };
  } catch (error) {
    return { seq, error: (error as Error).message };
  }
}

/** The typed arrays of a result, to transfer instead of copy. */
export function transferList(result: BatchResult): ArrayBuffer[] {
  const { segment, borders, rowHeights } = result;
  if (!segment || !borders || !rowHeights) return [];
  // Each buffer once: a small segment's columns share one (see SegmentBuilder).
  const buffers = [
    segment.rowNumbers,
    segment.rowStart,
    segment.cols,
    segment.kinds,
    segment.nums,
    borders,
    rowHeights,
  ].map((array) => array.buffer as ArrayBuffer);
  return [...new Set(buffers)];
}
