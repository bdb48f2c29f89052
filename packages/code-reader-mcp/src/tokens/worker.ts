// The tokenizer's thread: loading the rank table (tens of ms, src/tokens/rank-table.ts) and counting a
// large file (~0.15 s a megabyte) happen here, never on the server's event loop.
import { parentPort } from 'node:worker_threads';
import { loadTokenizer } from './count.js';
import { warmUpCounting } from './warm-up.js';

export interface CountRequest {
  id: number;
  texts: string[];
}

export type CountReply = { id: number; counts: number[] } | { id: number; error: string };

const port = parentPort;
if (port) {
  const counting = loadTokenizer();
  // Once loaded, while no request waits, the counting code is compiled and optimized on the warm-up
  // text (warm-up.ts): a request that comes meanwhile is counted at the next piece.
  counting.then(warmUpCounting, () => undefined);
  port.on('message', (request: CountRequest) => {
    counting.then(
      (count) => port.postMessage({ id: request.id, counts: request.texts.map(count) } satisfies CountReply),
      (error: unknown) => port.postMessage({ id: request.id, error: String(error) } satisfies CountReply),
    );
  });
}
