// What a session's first calls would otherwise pay for, done while the server is idle (issue 25): a
// fresh process's first search, listing or extract spent ~0.2-0.3 s more CPU than the same call again,
// most of it the tokenizer's thread starting (a Node isolate, the rank table, the pre-token regex
// compiled by a first count), all of it beside ripgrep's walk on the same cores. Once the handshake is
// done and no call has run for IDLE_MS (a client's model takes its turn), the thread is started and
// ripgrep is found. Never while a call runs: a call that comes first is not slowed by it (a listing
// that needs no tokenizer would be), and a search that comes first starts the thread itself, as before.
import { WhenIdle } from '@mcp-workbench/core';
import { locateRipgrep } from '../rg/locate.js';
import { warmUpTokenizer } from '../tokens/counter.js';

/** Idle time after the handshake, or after the last call ended, before preparing. */
export const IDLE_MS = 250;

/** The work itself: the tokenizer's thread loads on its own; ripgrep's location is found asynchronously. */
export function prepareFirstCalls(): void {
  warmUpTokenizer();
  // A missing ripgrep is reported by the call that needs it, with its hint.
  locateRipgrep().catch(() => undefined);
}

/** Runs `prepare` once, the first time the server has been idle for `idleMs` after its handshake. */
export class IdlePreparation extends WhenIdle {
  constructor(prepare: () => void = prepareFirstCalls, idleMs = IDLE_MS) {
    super(prepare, idleMs);
  }
}
