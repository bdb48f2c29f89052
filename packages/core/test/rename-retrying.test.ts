// On Windows a rename over a file fails for a moment while a scanner or indexer holds it: retried.
import { describe, expect, it } from 'vitest';
import { renameRetrying } from '../src/fs/rename-retrying.js';

/** A rename that fails with `code` the first `times` calls. */
function failing(code: string, times: number) {
  let calls = 0;
  const rename = async () => {
    if (++calls <= times)
      throw Object.assign(new Error(`${code}: operation not permitted, rename`), { code });
  };
  return { rename, calls: () => calls };
}

describe('renameRetrying', () => {
  it.each(['EPERM', 'EACCES', 'EBUSY'])('on Windows, retries %s until the file is free', async (code) => {
    const held = failing(code, 3);
    await renameRetrying('a.tmp', 'a.xlsx', 'win32', held.rename);
    expect(held.calls()).toBe(4);
  });

  it('on Windows, gives up after about two seconds with the error as it is', async () => {
    const held = failing('EPERM', 100);
    const started = performance.now();
    await expect(renameRetrying('a.tmp', 'a.xlsx', 'win32', held.rename)).rejects.toMatchObject({
      code: 'EPERM',
    });
    expect(performance.now() - started).toBeGreaterThan(1500);
    expect(held.calls()).toBe(9);
  });

  it('elsewhere, and for other errors, fails at once', async () => {
    const linux = failing('EPERM', 1);
    await expect(renameRetrying('a', 'b', 'linux', linux.rename)).rejects.toMatchObject({ code: 'EPERM' });
    expect(linux.calls()).toBe(1);
    const missing = failing('ENOENT', 1);
    await expect(renameRetrying('a', 'b', 'win32', missing.rename)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(missing.calls()).toBe(1);
  });
});
