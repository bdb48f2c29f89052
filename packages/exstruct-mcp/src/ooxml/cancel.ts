import { currentCallSignal, ToolError } from '@mcp-workbench/core/engine';

/** Stops a long loop once its call is cancelled (client cancel or server shutdown). */
export function throwIfCancelled(signal: AbortSignal | undefined = currentCallSignal()): void {
  if (signal?.aborted) {
    throw new ToolError('CANCELLED', 'The request was cancelled; nothing was written.');
  }
}
