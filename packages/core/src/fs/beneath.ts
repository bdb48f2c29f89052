import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

// Opening a checked path without a check-then-open race. A path the policy checked can be changed
// before it is opened: a directory swapped for a symlink makes a later open by name land outside the
// root. Here every name below the root is opened from the handle of its parent directory with
// O_NOFOLLOW, so a symlink anywhere on the way fails the open instead of being followed.
// Linux: `/proc/self/fd/<dir fd>/<name>` looks `name` up in the directory the descriptor refers to,
// which is openat(2) for a runtime without openat. Elsewhere the whole path is opened with O_NOFOLLOW
// (and macOS's O_NOFOLLOW_ANY, which refuses a link in any component), then checked again after the
// open: the handle must be the file now at the checked path, whose real path must not have changed.

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
/** macOS 11+: fail when ANY component of the path is a symbolic link (not in Node's constants). */
const O_NOFOLLOW_ANY = process.platform === 'darwin' ? 0x20000000 : 0;
const NO_LINKS = O_NOFOLLOW | O_NOFOLLOW_ANY;

/** Flags for reading: never follow a final link, never block on a FIFO or a device while opening. */
export const READ_FLAGS = constants.O_RDONLY | O_NONBLOCK;
/** Flags for a new temp file: it must not exist yet, even as a dangling link. */
export const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * The opened file or directory was not where the policy checked it: a name on the way became a
 * symbolic link (or stopped being a directory) between the check and the open.
 */
export class PathChangedError extends Error {
  override name = 'PathChangedError';
  constructor(
    readonly target: string,
    options?: { cause?: unknown },
  ) {
    super(`${target} changed while it was being opened (a name on the way is now a link).`, options);
  }
}

function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** ELOOP (a link where O_NOFOLLOW forbids one), ENOTDIR (a link or file where a folder was). */
function isLinkRace(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK';
}

let procFdSupport: Promise<boolean> | undefined;

/** Tests: force the descriptor walk on or off (undefined: detect), to exercise the fallback on Linux. */
export function setProcFdSupport(value: boolean | undefined): void {
  procFdSupport = value === undefined ? undefined : Promise.resolve(value);
}

/** Whether `/proc/self/fd/<fd>/<name>` can stand in for openat (Linux with /proc mounted). */
export function procFdWorks(): Promise<boolean> {
  procFdSupport ??= (async () => {
    if (process.platform !== 'linux') return false;
    try {
      const handle = await open('/', constants.O_RDONLY | O_DIRECTORY);
      try {
        return (await readlink(`/proc/self/fd/${handle.fd}`)) === '/';
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  })();
  return procFdSupport;
}

/**
 * A directory that was reached without following links. `child(name)` is the path that names an
 * entry of exactly this directory, even if the directory has been renamed or replaced meanwhile.
 */
export class CheckedDir {
  constructor(
    /** The directory's path when it was opened (for messages, journals and the fallback). */
    readonly path: string,
    /** Its descriptor (Linux), or undefined on the fallback, where paths name entries. */
    private readonly handle: FileHandle | undefined,
  ) {}

  /** A path naming `name` inside this directory (through the directory's descriptor on Linux). */
  child(name: string): string {
    return this.handle ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.path, name);
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}

async function openDirectory(where: string, shown: string): Promise<FileHandle> {
  try {
    return await open(where, constants.O_RDONLY | O_DIRECTORY | NO_LINKS);
  } catch (error) {
    if (isLinkRace(error)) throw new PathChangedError(shown, { cause: error });
    throw error;
  }
}

/** How openDirBeneath treats missing directories. */
export interface OpenDirOptions {
  /** Create the missing directories on the way. */
  create?: boolean;
  /** Mode of the directories it creates (default 0o777, less the umask). */
  mode?: number;
}

/**
 * Opens the directory `root/parts…` one name at a time without following links, creating missing
 * directories when `create` is set. `root` must be a real path (no links in it); it is opened with
 * O_NOFOLLOW too, so a root replaced by a link is refused.
 */
export async function openDirBeneath(
  root: string,
  parts: readonly string[],
  options: OpenDirOptions = {},
): Promise<CheckedDir> {
  const target = path.join(root, ...parts);
  if (!(await procFdWorks())) return openDirByPath(root, parts, options);
  let handle = await openDirectory(root, root);
  try {
    let here = root;
    for (const part of parts) {
      here = path.join(here, part);
      const where = `/proc/self/fd/${handle.fd}/${part}`;
      let next: FileHandle;
      try {
        next = await openDirectory(where, here);
      } catch (error) {
        if (!options.create || errnoCode(error) !== 'ENOENT') throw error;
        await mkdir(where, options.mode).catch((mkdirError: unknown) => {
          if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError;
        });
        next = await openDirectory(where, here);
      }
      await handle.close();
      handle = next;
    }
    return new CheckedDir(target, handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The fallback: each name is checked with lstat (no descriptor), the final open re-checks. */
async function openDirByPath(
  root: string,
  parts: readonly string[],
  options: OpenDirOptions,
): Promise<CheckedDir> {
  let here = root;
  for (const part of ['', ...parts]) {
    here = part === '' ? root : path.join(here, part);
    let info: Stats;
    try {
      info = await lstat(here);
    } catch (error) {
      if (!options.create || errnoCode(error) !== 'ENOENT') throw error;
      await mkdir(here, options.mode).catch((mkdirError: unknown) => {
        if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError;
      });
      info = await lstat(here);
    }
    if (!info.isDirectory()) throw new PathChangedError(here);
  }
  return new CheckedDir(here, undefined);
}

/**
 * Opens `name` inside a checked directory with `flags` plus O_NOFOLLOW. On the fallback path the
 * handle is then compared with what is at the path now (device and inode, real path unchanged).
 */
export async function openInDir(
  dir: CheckedDir,
  name: string,
  flags: number,
  mode?: number,
): Promise<FileHandle> {
  const shown = path.join(dir.path, name);
  let handle: FileHandle;
  try {
    handle = await open(dir.child(name), flags | NO_LINKS, mode);
  } catch (error) {
    if (isLinkRace(error)) throw new PathChangedError(shown, { cause: error });
    throw error;
  }
  if (dir.child(name) === shown) {
    try {
      await verifyByPath(handle, shown);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  return handle;
}

async function verifyByPath(handle: FileHandle, expected: string): Promise<void> {
  const [opened, now, real] = await Promise.all([
    handle.stat(),
    lstat(expected).catch(() => undefined),
    realpath(expected).catch(() => undefined),
  ]);
  if (!now || now.dev !== opened.dev || now.ino !== opened.ino || real !== expected) {
    throw new PathChangedError(expected);
  }
}
