// The rows thread: reads batches of whole rows of a big sheet with the fast row parser while the
// extraction thread reads others (parallel-rows.ts). Kept between calls; holds a sheet's context (its
// workbook's shared strings) only while that sheet is read. Free of the MCP SDK and of core, so it
// starts quickly.
import { parentPort } from 'node:worker_threads';
import type { SinkConfig } from './cell-sink.js';
import { batchTransfers, readFastBatch, type BatchContext } from './fast-batch.js';
import { WorkbookValues } from './row-store.js';

/** A message from the extraction thread. */
export type RowsRequest =
  | {
      kind: 'sheet';
      sheet: number;
      config: SinkConfig;
      sharedStrings: string[];
      date1904: boolean;
      prefix: string;
      scope: [string, string][];
      json: { alpha: boolean } | undefined;
    }
  | {
      kind: 'batch';
      sheet: number;
      seq: number;
      bytes: Uint8Array;
      /** Memory for the batch's JSON: that of a batch joined before, given back. */
      json?: Uint8Array | undefined;
    }
  | { kind: 'done'; sheet: number };

let sheet = -1;
let context: BatchContext | undefined;

parentPort!.on('message', (request: RowsRequest) => {
  if (request.kind === 'sheet') {
    sheet = request.sheet;
    const { config } = request;
    // Objects of the same shapes as the warm-up's: those a message brings were made by the
    // deserialiser, and the parser's compiled code met them as new shapes at every sheet (its first
    // megabytes ran 5-20x slower again).
    context = {
      config: {
        dateKind: new Uint8Array(config.dateKind),
        bordered: new Uint8Array(config.bordered),
        sharedCount: config.sharedCount,
      },
      values: new WorkbookValues(request.sharedStrings, request.date1904),
      prefix: request.prefix,
      scope: new Map(request.scope),
      json: request.json,
    };
  } else if (request.kind === 'done') {
    if (request.sheet === sheet) context = undefined;
  } else if (request.sheet === sheet && context) {
    const { bytes } = request;
    let batch;
    try {
      batch = readFastBatch(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        context,
        request.json,
      );
    } catch (error) {
      parentPort!.postMessage({ sheet, seq: request.seq, error: (error as Error).message });
      return;
    }
    // The batch's memory goes back too, for the next batch.
    const transfers = batch ? batchTransfers(batch) : [];
    parentPort!.postMessage({ sheet, seq: request.seq, batch, bytes }, [
      ...transfers,
      bytes.buffer as ArrayBuffer,
    ]);
  } else {
    // A batch of a sheet no longer read (a cancelled call): nothing waits for it.
    parentPort!.postMessage({ sheet: request.sheet, seq: request.seq, stale: true });
  }
});

/**
 * Reads made-up rows of the shapes producers write a few times before the thread says it is ready: a
 * fresh thread's parser runs its first megabytes several times slower until V8 has compiled it.
 */
function warmUp(): void {
  const rows: string[] = [];
  for (let r = 1; r <= 400; r++) {
    rows.push(
      `<row r="${r}" spans="1:7" x14ac:dyDescent="0.25"><c r="A${r}"><v>${r}</v></c>` +
        `<c r="B${r}" t="s"><v>${r % 4}</v></c><c r="C${r}" s="1"><v>${45000 + r}</v></c>` +
        `<c r="D${r}" s="2"><v>${r / 8}</v></c><c r="E${r}"><f>D${r}*1.1</f><v>${(r * 1.1).toFixed(2)}</v></c>` +
        `<c r="F${r}" t="inlineStr"><is><t>x${r}</t></is></c><c r="G${r}" t="b"><v>1</v></c></row>`,
    );
  }
  const bytes = Buffer.from(rows.join(''));
  const context: BatchContext = {
    config: {
      dateKind: new Uint8Array(Uint8Array.of(0, 1, 0)),
      bordered: new Uint8Array(Uint8Array.of(0, 0, 1)),
      sharedCount: 4,
    },
    values: new WorkbookValues(['a', 'b', 'c', 'd'], false),
    prefix: '',
    scope: new Map([['x14ac', 'http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac']]),
    json: { alpha: false },
  };
  for (let k = 0; k < 8; k++) readFastBatch(bytes, context);
}

warmUp();
parentPort!.postMessage({ ready: true });
