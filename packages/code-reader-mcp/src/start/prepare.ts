// What a session's first calls would otherwise pay for, done while the server is idle (issue 25): a
// fresh process's first search, listing or extract spent ~0.2-0.3 s more CPU than the same call again,
// most of it the tokenizer's thread starting (a Node isolate, the rank table, the pre-token regex
// compiled by a first count), all of it beside ripgrep's walk on the same cores. Once the handshake is
// done and no call has run for IDLE_MS (a client's model takes its turn), the thread is started and
// ripgrep is found. Never while a call runs: a call that comes first is not slowed by it (a listing
// that needs no tokenizer would be), and a search that comes first starts the thread itself, as before.
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
export class IdlePreparation {
  private running = 0;
  private ready = false;
  private done = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly prepare: () => void = prepareFirstCalls,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** The client's handshake is done (`notifications/initialized`). */
  handshakeDone(): void {
    this.ready = true;
    this.schedule();
  }

  callStarted(): void {
    this.running++;
    this.cancel();
  }

  callEnded(): void {
    this.running--;
    this.schedule();
  }

  private schedule(): void {
    this.cancel();
    if (this.done || !this.ready || this.running > 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running > 0 || this.done) return;
      this.done = true;
      this.prepare();
    }, this.idleMs);
    this.timer.unref(); // an idle server that is told to exit does not wait for it
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
