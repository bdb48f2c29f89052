import { realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { resolveRealPath } from '../paths/real-path.js';
import { atomicWriteIn, type AtomicWriteOptions } from './atomic-write.js';
import { openDirBeneath } from './beneath.js';
import {
  openRegularBeneath,
  readOpened,
  type FileAccess,
  type OpenedFile,
  type ReadFileOptions,
} from './file-access.js';

/** An absolute real path as its filesystem root plus the names below it. */
function split(real: string): { root: string; parts: string[] } {
  const root = path.parse(real).root;
  return { root, parts: real.slice(root.length).split(path.sep).filter(Boolean) };
}

/**
 * File access for command lines acting on the user's own paths: no roots, links in the given path
 * are followed once (it is resolved first), and otherwise the same rules as inside a server — only
 * regular files are read, size caps apply, writes are atomic, the final open follows no link.
 */
export const localFiles: FileAccess = {
  async openFile(file: string): Promise<OpenedFile> {
    const { root, parts } = split(await realpath(path.resolve(file)));
    return openRegularBeneath(root, parts, file);
  },

  async readFile(file: string, options: ReadFileOptions = {}): Promise<Buffer> {
    const opened = await localFiles.openFile(file);
    try {
      return await readOpened(opened, { shownAs: file, ...options });
    } finally {
      await opened.handle.close();
    }
  },

  async writeFileAtomic(file, data, options = {}) {
    return localFiles.withAtomicFile(file, (handle) => handle.writeFile(data), options);
  },

  async withAtomicFile(
    file: string,
    write: (handle: FileHandle) => Promise<void>,
    options: AtomicWriteOptions = {},
  ): Promise<string> {
    const absolute = path.resolve(file);
    const { real: parent } = await resolveRealPath(path.dirname(absolute));
    const { root, parts } = split(parent);
    const dir = await openDirBeneath(root, parts, { create: options.createParents ?? true });
    try {
      await atomicWriteIn(dir, path.basename(absolute), write, options);
    } finally {
      await dir.close();
    }
    return path.join(parent, path.basename(absolute));
  },

  async makeDirectory(dir: string): Promise<string> {
    const { real } = await resolveRealPath(path.resolve(dir));
    const { root, parts } = split(real);
    await (await openDirBeneath(root, parts, { create: true })).close();
    return real;
  },
};

/** Writes a whole buffer or string atomically to a path of the user's (see `FileAccess`). */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  await localFiles.writeFileAtomic(target, data, options);
}

/** Streams a file into place atomically at a path of the user's (see `FileAccess`). */
export async function withAtomicFile(
  target: string,
  write: (file: FileHandle) => Promise<void>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  await localFiles.withAtomicFile(target, write, options);
}
