import { ToolError } from '@mcp-workbench/core/engine';

/** Longest stretch of synchronous work between two turns of the event loop (ping must stay fast). */
export const SLICE_MS = 30;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Lets a long synchronous loop give the event loop a turn every SLICE_MS: call `due()` cheaply in the
 * loop (it looks at the clock every 256 calls) and `await pause()` when it says so. A cancelled call
 * stops at the next pause.
 */
export class Yielder {
  private sliceStart = performance.now();
  private calls = 0;

  constructor(private readonly signal?: AbortSignal) {}

  due(): boolean {
    if ((++this.calls & 255) !== 0) return false;
    return performance.now() - this.sliceStart > SLICE_MS;
  }

  async pause(): Promise<void> {
    await turn();
    if (this.signal?.aborted) throw new ToolError('CANCELLED', 'The request was cancelled.');
    this.sliceStart = performance.now();
  }
}
