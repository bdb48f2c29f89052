// What the first call of a session would otherwise pay for, started as soon as the server is connected
// (issue 25): the first search, listing or extract of a fresh process spent ~0.3 s more CPU than the
// same call again, most of it the tokenizer's thread starting (a Node isolate, the rank table, the
// pre-token regex compiled by a first count), all of it beside ripgrep's walk on the same cores. Begun
// here, that work is done while the client's handshake and its model's first turn go on. Nothing here
// blocks the event loop: the thread loads on its own, ripgrep's location is found asynchronously.
import { locateRipgrep } from '../rg/locate.js';
import { warmUpTokenizer } from '../tokens/counter.js';

export function prepareFirstCalls(): void {
  warmUpTokenizer();
  // A missing ripgrep is reported by the call that needs it, with its hint.
  locateRipgrep().catch(() => undefined);
}
