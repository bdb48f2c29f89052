// The tokenizer's thread: loading the rank table (tens of ms, src/tokens/rank-table.ts) and counting a
// large file (~0.15 s a megabyte) happen here, never on the server's event loop.
import { parentPort } from 'node:worker_threads';
import { loadTokenizer } from './count.js';

export interface CountRequest {
  id: number;
  texts: string[];
}

export type CountReply = { id: number; counts: number[] } | { id: number; error: string };

/** Code and prose of several scripts, counted once the table is loaded. */
const WARM_UP_TEXT =
  'export function warmUp(x) {\n\treturn x?.toLowerCase() + 42; // 日本語の コメント ✓\n}\n';

const port = parentPort;
if (port) {
  const counting = loadTokenizer().then((count) => {
    // While no request waits: the pre-token regex is compiled here (~40 ms), not in a page's first count.
    count(WARM_UP_TEXT);
    return count;
  });
  port.on('message', (request: CountRequest) => {
    counting.then(
      (count) => port.postMessage({ id: request.id, counts: request.texts.map(count) } satisfies CountReply),
      (error: unknown) => port.postMessage({ id: request.id, error: String(error) } satisfies CountReply),
    );
  });
}
