// When the extraction thread is started ahead of a first job (issue 26 §1): once the handshake is done
// and the server has been idle for IDLE_MS (no call running; a client's model takes its turn), never
// while a call runs. Started at the handshake itself, the thread's module loading (~0.3-0.5 s of CPU)
// shared the two cores with a first call made right after it: a first exstruct_patch, which runs on the
// server's own thread and the thread pool, used ~1.8 s of CPU instead of ~1.3 s. A first extraction made
// at once starts the thread itself, as it did (the thread had had only milliseconds of head start).
// 100 ms, not code-reader's 250: a first extraction of many small sheets made 1 s after the handshake
// met a thread still warming up after 250 ms (0.7 -> 1.1 s, same-run A/B at load 3.3-4.2).

/** Idle time after the handshake, or after the last call ended, before the thread is started. */
export const IDLE_MS = 100;

/** Runs `start` once, the first time the server has been idle for `idleMs` after its handshake. */
export class IdleStart {
  private running = 0;
  private ready = false;
  private done = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly start: () => void,
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

  /** The server closed: nothing is started any more. */
  close(): void {
    this.done = true;
    this.cancel();
  }

  private schedule(): void {
    this.cancel();
    if (this.done || !this.ready || this.running > 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running > 0 || this.done) return;
      this.done = true;
      this.start();
    }, this.idleMs);
    // An idle server that is told to exit does not wait for it.
    this.timer.unref();
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
