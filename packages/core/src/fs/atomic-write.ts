import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { link, mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { currentCallSignal } from './call-signal.js';

export interface AtomicWriteOptions {
  /** Create missing parent directories (default true). */
  createParents?: boolean;
  /** File mode for a new file (default 0o644, before umask). A replaced file keeps its own mode. */
  mode?: number;
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

/** Temp files of writes in progress, so a shutdown can remove them before the process exits. */
const pendingTemps = new Set<string>();

/** Removes the temp files of all unfinished atomic writes (synchronously: called right before exit). */
export function discardPendingAtomicWrites(): void {
  for (const temp of pendingTemps) rmSync(temp, { force: true });
  pendingTemps.clear();
}

const NAME_MAX = 255; // bytes per file name on ext4, xfs, btrfs, APFS, tmpfs

/** `.<name>.<pid>.<random>.tmp`, cutting `<name>` (at a UTF-8 character boundary) to fit NAME_MAX. */
function tempName(target: string): string {
  const suffix = `.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const name = Buffer.from(path.basename(target));
  let end = Math.min(name.length, NAME_MAX - 1 - suffix.length);
  while (end > 0 && (name[end]! & 0xc0) === 0x80) end--; // do not split a multi-byte character
  return `.${name.subarray(0, end).toString()}${suffix}`;
}

/** Mode and owner of the file being replaced, or undefined for a new file. */
async function existing(target: string) {
  try {
    const info = await stat(target);
    return info.isFile() ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Streams a file into place so that readers only ever see the old or the new content: `write` fills a
 * temp file in the target folder (same filesystem), which is flushed to disk, then renamed over the
 * target (or linked, with `noClobber`). A replaced file keeps its permissions (and owner, where allowed).
 * On any failure or abort the temp file is removed and the target is untouched.
 */
export async function withAtomicFile(
  target: string,
  write: (file: FileHandle) => Promise<void>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const signal = options.signal ?? currentCallSignal();
  if (signal?.aborted) throw cancelled(target);
  const dir = path.dirname(target);
  if (options.createParents ?? true) await mkdir(dir, { recursive: true });
  const temp = path.join(dir, tempName(target));
  const previous = options.noClobber ? undefined : await existing(target);
  let committing = false;
  // Remove the temp file the moment the call is aborted: a shutdown exits soon after aborting, and a
  // writer that ignores the signal then fills an unlinked file. The entry stays for the exit sweep.
  const onAbort = () => {
    if (!committing) rmSync(temp, { force: true });
  };
  pendingTemps.add(temp);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const handle = await open(temp, 'wx', options.mode ?? 0o644);
    try {
      if (previous) await keepOwnerAndMode(handle, previous);
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (signal?.aborted) throw cancelled(target);
    committing = true;
    if (options.noClobber) {
      await link(temp, target);
      await rm(temp, { force: true });
    } else {
      await rename(temp, target);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    pendingTemps.delete(temp);
    signal?.removeEventListener('abort', onAbort);
  }
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

/** Writes a whole buffer or string atomically (see `withAtomicFile`). */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  await withAtomicFile(target, (file) => file.writeFile(data), options);
}
