import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** Create missing parent directories (default true). */
  createParents?: boolean;
  /** File mode for a new file (default 0o644, before umask). */
  mode?: number;
  /**
   * Never replace an existing target: the finished temp file is hard-linked into place, which fails
   * with EEXIST if someone created the target meanwhile (for "rename"/"skip" conflict policies).
   */
  noClobber?: boolean;
}

/**
 * Streams a file into place so that readers only ever see the old or the new content: `write` fills a
 * temp file in the target folder (same filesystem), which is flushed to disk, then renamed over the
 * target (or linked, with `noClobber`). On any failure the temp file is removed and the target is
 * untouched.
 */
export async function withAtomicFile(
  target: string,
  write: (file: FileHandle) => Promise<void>,
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
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.noClobber) {
      await link(temp, target);
      await rm(temp, { force: true });
    } else {
      await rename(temp, target);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Writes a whole buffer or string atomically (see `withAtomicFile`). */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  await withAtomicFile(target, (file) => file.writeFile(data), options);
}
