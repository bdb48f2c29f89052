import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** Create missing parent directories (default true). */
  createParents?: boolean;
  /** File mode for a new file (default 0o644, before umask). */
  mode?: number;
}

/**
 * Writes a file so that readers only ever see the old or the new content: the data goes to a temp
 * file in the same directory (same filesystem), is flushed to disk, then renamed over the target.
 * On any failure the temp file is removed and the target is untouched.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(target);
  if (options.createParents ?? true) await mkdir(dir, { recursive: true });
  const temp = path.join(
    dir,
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', options.mode ?? 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
