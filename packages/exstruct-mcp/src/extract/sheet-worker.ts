// Worker thread: parses batches of `<row>` elements cut from a worksheet's sheetData and returns them as
// columnar row segments (typed arrays are transferred, not copied). See parallel-scan.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { ToolError } from '@mcp-workbench/core';
import { emptyWorksheetInfo, worksheetHandlers } from '../ooxml/worksheet-reader.js';
import { createPushParser } from '../ooxml/xml.js';
import { createCellSink, type SinkConfig } from './cell-sink.js';

export interface BatchRequest {
  seq: number;
  bytes: Uint8Array;
}

export interface BatchResult {
  seq: number;
  segment?: import('./row-store.js').RowSegment;
  borders?: Int32Array;
  rowHeights?: Float64Array;
  rowsWithoutRef?: number;
  error?: { code: string; message: string };
}

const { config, part } = workerData as { config: SinkConfig; part: string };
const decoder = new TextDecoder('utf-8');

parentPort!.on('message', ({ seq, bytes }: BatchRequest) => {
  try {
    const sink = createCellSink(config);
    const info = emptyWorksheetInfo();
    const parser = createPushParser(part, worksheetHandlers(sink.onCell, info), true);
    parser.write(decoder.decode(bytes));
    parser.close();
    const { segment, borders } = sink.finish();
    const rowHeights = new Float64Array(info.rowHeights.size * 2);
    let i = 0;
    for (const [row, height] of info.rowHeights) {
      rowHeights[i++] = row;
      rowHeights[i++] = height;
    }
    const result: BatchResult = { seq, segment, borders, rowHeights, rowsWithoutRef: info.rowsWithoutRef };
    const transfer = [
      segment.rowNumbers,
      segment.rowStart,
      segment.cols,
      segment.kinds,
      segment.nums,
      borders,
      rowHeights,
    ];
    parentPort!.postMessage(
      result,
      transfer.map((array) => array.buffer as ArrayBuffer),
    );
  } catch (error) {
    const code = error instanceof ToolError ? error.code : 'CORRUPT_WORKBOOK';
    parentPort!.postMessage({
      seq,
      error: { code, message: (error as Error).message },
    } satisfies BatchResult);
  }
});
