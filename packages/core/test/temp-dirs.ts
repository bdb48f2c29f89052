// Temporary folders a test file makes, each removed after the test that made it: a run leaves nothing
// in the system's temporary folder.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * Registers the removal in the calling test file and returns the maker of its folders. `retries`: for a
 * folder a server stopped without waiting for its exit may still be writing to.
 */
export function tempDirsRemovedAfterEach({ retries = 0 } = {}): (prefix: string) => Promise<string> {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true, maxRetries: retries });
  });
  return async (prefix) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
