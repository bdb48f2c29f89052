import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * A streaming version of core's writeFileAtomic: the caller writes into a temp file in the target
 * folder, which is flushed and then renamed over the target (or, with `noClobber`, hard-linked in
 * place so an existing file is never replaced). Readers only ever see the old or the new file.
 */
export async function withAtomicFile(
  target: string,
  write: (file: FileHandle) => Promise<void>,
  options: { noClobber?: boolean } = {},
): Promise<void> {
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  const temp = path.join(
    dir,
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.noClobber) {
      await link(temp, target); // EEXIST when someone else created it meanwhile
      await rm(temp, { force: true });
    } else {
      await rename(temp, target);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
