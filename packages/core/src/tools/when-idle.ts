// Work a server does ahead of its first calls, but only while it is idle (issues 25 and 26): once the
// client's handshake is done and no call has run for `idleMs` (a client's model takes its turn), never
// while a call runs, so a call made right after the handshake does not share the cores with it.
import type { AnyTool, ToolContext } from './define-tool.js';

/** Runs `task` once, the first time the server has been idle for `idleMs` after its handshake. */
export class WhenIdle {
  private running = 0;
  private ready = false;
  private done = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly task: () => void,
    private readonly idleMs: number,
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

  /** The server closed: the task is not run any more. */
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
      this.task();
    }, this.idleMs);
    this.timer.unref(); // an idle server that is told to exit does not wait for it
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** `tool`, telling `idle` when each of its calls starts and ends. */
export function trackCalls(tool: AnyTool, idle: Pick<WhenIdle, 'callStarted' | 'callEnded'>): AnyTool {
  return {
    ...tool,
    run: async (args: never, context: ToolContext) => {
      idle.callStarted();
      try {
        return await tool.run(args, context);
      } finally {
        idle.callEnded();
      }
    },
  };
}
