import { isToolError } from '@mcp-workbench/core';

/**
 * Runs `attempt` with each setting in turn until one does not fail with LIMIT_EXCEEDED; used to page
 * with big parts first and smaller ones when a single part is over the token budget.
 */
export async function retryOnLimitExceeded<S, T>(settings: readonly S[], attempt: (setting: S) => Promise<T>): Promise<T> {
  let last: unknown;
  for (const setting of settings) {
    try {
      return await attempt(setting);
    } catch (error) {
      if (!isToolError(error) || error.code !== 'LIMIT_EXCEEDED') throw error;
      last = error;
    }
  }
  throw last;
}
