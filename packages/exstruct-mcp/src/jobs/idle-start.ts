// When the extraction thread is started ahead of a first job (issue 26 §1): once the handshake is done
// and the server has been idle for IDLE_MS (no call running; a client's model takes its turn), never
// while a call runs. Started at the handshake itself, the thread's module loading (~0.3-0.5 s of CPU)
// shared the two cores with a first call made right after it: a first exstruct_patch, which runs on the
// server's own thread and the thread pool, used ~1.8 s of CPU instead of ~1.3 s. A first extraction made
// at once starts the thread itself, as it did (the thread had had only milliseconds of head start).
// 100 ms, not code-reader's 250: a first extraction of many small sheets made 1 s after the handshake
// met a thread still warming up after 250 ms (0.7 -> 1.1 s, same-run A/B at load 3.3-4.2).

import { WhenIdle } from '@mcp-workbench/core';

/** Idle time after the handshake, or after the last call ended, before the thread is started. */
export const IDLE_MS = 100;

/** Starts the extraction thread (`start`) once the server has been idle for `idleMs` after its handshake. */
export class IdleStart extends WhenIdle {
  constructor(start: () => void, idleMs = IDLE_MS) {
    super(start, idleMs);
  }
}
