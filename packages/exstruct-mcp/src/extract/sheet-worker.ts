// Worker thread: parses batches of `<row>` elements cut from a worksheet's sheetData and returns them as
// columnar row segments (typed arrays are transferred, not copied). See batch-scan.ts.
import { parentPort, workerData } from 'node:worker_threads';
import type { SinkConfig } from './cell-sink.js';
import { parseRowBatch, transferList } from './row-batch.js';

export interface BatchRequest {
  seq: number;
  bytes: Uint8Array;
  scope: [string, string][];
}

const { config } = workerData as { config: SinkConfig };

parentPort!.on('message', ({ seq, bytes, scope }: BatchRequest) => {
  const result = parseRowBatch(seq, bytes, config, scope);
  parentPort!.postMessage(result, transferList(result));
});
