// The tokenizer's thread: loading the o200k rank table compiles for 0.7–0.8 s (quiet) and counting a
// large file takes as long again, so both happen here, never on the server's event loop.
import { parentPort } from 'node:worker_threads';
import { loadTokenizer } from './count.js';

export interface CountRequest {
  id: number;
  texts: string[];
}

export type CountReply = { id: number; counts: number[] } | { id: number; error: string };

const port = parentPort;
if (port) {
  const counting = loadTokenizer();
  port.on('message', (request: CountRequest) => {
    counting.then(
      (count) => port.postMessage({ id: request.id, counts: request.texts.map(count) } satisfies CountReply),
      (error: unknown) => port.postMessage({ id: request.id, error: String(error) } satisfies CountReply),
    );
  });
}
