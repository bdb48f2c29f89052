import { rmSync, type Stats } from 'node:fs';
import fsPromises, { lstat, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { CREATE_FLAGS, openInDir, type CheckedDir } from './beneath.js';
import { currentCallSignal } from './call-signal.js';
import { renameRetrying } from './rename-retrying.js';
import { journalTemp, settleTemp, tempNameFor } from './temp-journal.js';

export interface AtomicWriteOptions {
  /** Create missing parent directories (default true). */
  createParents?: boolean;
  /** File mode for a new file (default 0o644, before umask). A replaced file keeps its own mode. */
  mode?: number;
  /**
   * Keep the owner and permission bits of a file being replaced (default true). False writes with
   * `mode` whatever the replaced file had: data outputs must not inherit an executable bit.
   */
  keepMode?: boolean;
  /**
   * Never replace an existing target: the finished temp file is hard-linked into place, which fails
   * with EEXIST if someone created the target meanwhile (for "rename"/"skip" conflict policies).
   */
  noClobber?: boolean;
  /**
   * Abandons the write: the temp file is removed at once and nothing is put in place. Defaults to the
   * signal of the tool call the write runs in (cancelled by the client or by a server shutdown).
   */
  signal?: AbortSignal;
}

/** Removers of the temp files of writes in progress, so a shutdown can remove them before exiting. */
const pendingTemps = new Set<() => void>();

/** Removes the temp files of all unfinished atomic writes (synchronously: called right before exit). */
export function discardPendingAtomicWrites(): void {
  for (const remove of pendingTemps) remove();
  pendingTemps.clear();
  settleTemp(0);
}

/** Mode and owner of the regular file being replaced, or undefined for a new file. */
async function existing(where: string): Promise<Stats | undefined> {
  try {
    const info = await lstat(where); // the entry itself: a link in its place is replaced, not followed
    return info.isFile() ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Streams a file into place so that readers only ever see the old or the new content: `write` fills a
 * temp file created in `dir` (same filesystem, a directory reached without following links), which is
 * flushed to disk, then renamed over `name` (or linked, with `noClobber`). A replaced file keeps its
 * permissions (and owner, where allowed). On any failure or abort the temp file is removed and the
 * target is untouched. Temp files are journaled so that a later start can remove them after a SIGKILL.
 */
export async function atomicWriteIn(
  dir: CheckedDir,
  name: string,
  write: (file: FileHandle) => Promise<void>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const signal = options.signal ?? currentCallSignal();
  const target = path.join(dir.path, name);
  if (signal?.aborted) throw cancelled(target);
  const tempName = tempNameFor(target);
  const temp = dir.child(tempName);
  const previous = options.noClobber ? undefined : await existing(dir.child(name));
  // An abort during that look fired no listener (none was added yet): stop before creating anything.
  if (signal?.aborted) throw cancelled(target);
  let committing = false;
  const remove = () => rmSync(temp, { force: true });
  // Remove the temp file the moment the call is aborted: a shutdown exits soon after aborting, and a
  // writer that ignores the signal then fills an unlinked file. The entry stays for the exit sweep.
  const onAbort = () => {
    if (!committing) remove();
  };
  pendingTemps.add(remove);
  journalTemp(path.join(dir.path, tempName));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const handle = await openInDir(dir, tempName, CREATE_FLAGS, options.mode ?? 0o644);
    try {
      if (previous && options.keepMode !== false) await keepOwnerAndMode(handle, previous);
      // An abort while the temp file was being created found nothing to remove: never fill it.
      if (signal?.aborted) throw cancelled(target);
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (signal?.aborted) throw cancelled(target);
    committing = true;
    if (options.noClobber) {
      await putInPlaceIfFree(dir, tempName, name);
    } else {
      await renameRetrying(temp, dir.child(name));
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    pendingTemps.delete(remove);
    settleTemp(pendingTemps.size);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Why `link` fails on file systems without hard links: FAT32/exFAT (EPERM on Linux and macOS), SMB/NAS
 * shares and virtual drives (ENOTSUP, ENOSYS).
 */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Puts the finished temp file at `name` unless a file is there (EEXIST). A hard link does it in one
 * step. Where the file system has none, the name is claimed by creating it exclusively and the temp file
 * renamed over the claim: an empty file shows there for that moment, and nothing is ever replaced.
 */
async function putInPlaceIfFree(dir: CheckedDir, tempName: string, name: string): Promise<void> {
  const temp = dir.child(tempName);
  try {
    // Looked up at each call: tests stand in a file system without hard links by replacing it.
    await fsPromises.link(temp, dir.child(name));
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await (await openInDir(dir, name, CREATE_FLAGS, 0o600)).close();
    try {
      await renameRetrying(temp, dir.child(name));
    } catch (renameError) {
      await rm(dir.child(name), { force: true }); // the empty claim, never a file of someone else's
      throw renameError;
    }
    return;
  }
  await rm(temp, { force: true });
}

function cancelled(target: string): ToolError {
  return new ToolError(
    'CANCELLED',
    `The request was cancelled; ${path.basename(target)} was left unchanged.`,
  );
}

async function keepOwnerAndMode(handle: FileHandle, previous: { mode: number; uid: number; gid: number }) {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid !== undefined && (previous.uid !== uid || previous.gid !== gid)) {
    // Works as root, or for the owner moving to one of their groups; otherwise the writer owns it.
    await handle.chown(previous.uid, previous.gid).catch(() => undefined);
  }
  // Permission bits only: setuid/setgid must not carry over to content this process wrote.
  await handle.chmod(previous.mode & 0o777);
}
