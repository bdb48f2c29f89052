// Parsing one batch of `<row>` elements into a columnar segment — the work a worker thread does, also
// done on the main thread for its share of the batches. Free of the MCP SDK so workers start quickly.
//
// Batches are parsed with saxen: a well-kept (bpmn-io), dependency-free SAX parser that scans with
// indexOf and parses attributes only on request, about twice as fast as saxes on sheet rows. Every batch
// is a run of complete `<row>` elements, so a malformed one is still reported (unclosed or mismatched
// tags fail the batch); the rest of each worksheet and every other part are parsed by the strict saxes.
import { Parser } from 'saxen';
import { emptyWorksheetInfo, worksheetHandlers } from '../ooxml/worksheet-handlers.js';
import { createCellSink, type SinkConfig } from './cell-sink.js';
import type { RowSegment } from './row-store.js';

export interface BatchResult {
  seq: number;
  segment?: RowSegment;
  borders?: Int32Array;
  /** (row, height) pairs of rows with an explicit height. */
  rowHeights?: Float64Array;
  rowsWithoutRef?: number;
  error?: { code: string; message: string };
}

const decoder = new TextDecoder('utf-8');
const NO_ATTRS: Record<string, string> = Object.freeze({});

/**
 * Parses a batch. `prefix` is the namespace prefix the sheet uses for its elements (`x:` in some
 * generators' output, usually empty).
 */
export function parseRowBatch(
  seq: number,
  bytes: Uint8Array,
  config: SinkConfig,
  part: string,
  prefix: string,
): BatchResult {
  try {
    const sink = createCellSink(config);
    const info = emptyWorksheetInfo();
    const handlers = worksheetHandlers(sink.onCell, info);
    const open = handlers.open!;
    const close = handlers.close!;
    const text = handlers.text!;
    const strip =
      prefix === ''
        ? (name: string) => name
        : (name: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : name);
    const parser = new Parser();
    // <v> (one per cell) has no attributes worth parsing; everything else gets its attributes.
    parser.on('openTag', (name, getAttrs) => {
      const local = strip(name);
      open(local, local === 'v' ? NO_ATTRS : getAttrs());
    });
    parser.on('closeTag', (name) => close(strip(name)));
    parser.on('text', (value, decode) => text(value.includes('&') ? decode(value) : value));
    parser.on('cdata', (value) => text(value));
    parser.on('error', (error) => {
      throw error;
    });
    parser.parse(decoder.decode(bytes));
    const { segment, borders } = sink.finish();
    const rowHeights = new Float64Array(info.rowHeights.size * 2);
    let i = 0;
    for (const [row, height] of info.rowHeights) {
      rowHeights[i++] = row;
      rowHeights[i++] = height;
    }
    return { seq, segment, borders, rowHeights, rowsWithoutRef: info.rowsWithoutRef };
  } catch (error) {
    const message = `The workbook part "${part}" is not well-formed XML: ${(error as Error).message}`;
    return { seq, error: { code: 'CORRUPT_WORKBOOK', message } };
  }
}

/** The typed arrays of a result, to transfer instead of copy. */
export function transferList(result: BatchResult): ArrayBuffer[] {
  const { segment, borders, rowHeights } = result;
  if (!segment || !borders || !rowHeights) return [];
  return [
    segment.rowNumbers,
    segment.rowStart,
    segment.cols,
    segment.kinds,
    segment.nums,
    borders,
    rowHeights,
  ].map((array) => array.buffer as ArrayBuffer);
}
