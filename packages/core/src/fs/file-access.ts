import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import type { AtomicWriteOptions } from './atomic-write.js';
import { READ_FLAGS, openDirBeneath, openInDir } from './beneath.js';

/** A regular file opened for reading; the caller closes `handle`. */
export interface OpenedFile {
  handle: FileHandle;
  /** The real path that was opened. */
  path: string;
  /** `fstat` of the handle, taken after the open: always a regular file. */
  stats: Stats;
}

export interface ReadFileOptions {
  /** Refuse (LIMIT_EXCEEDED) a file larger than this many bytes. Default: 2 GiB. */
  maxBytes?: number;
  /** How the file is named in messages (default: its path). */
  shownAs?: string;
}

/**
 * How servers open, read and write files: `PathPolicy` implements it inside the roots (every path
 * checked, opened without following links, only regular files read), `localFiles` implements it for
 * command lines that act on the user's own paths.
 */
export interface FileAccess {
  /** Opens a regular file for reading (a FIFO, device or directory is refused before any read). */
  openFile(file: string): Promise<OpenedFile>;
  /** Reads a whole regular file, refusing one larger than `maxBytes`. */
  readFile(file: string, options?: ReadFileOptions): Promise<Buffer>;
  /** Writes a file atomically (temp file in the checked target folder, then rename); returns its path. */
  writeFileAtomic(file: string, data: string | Uint8Array, options?: AtomicWriteOptions): Promise<string>;
  /** Streams a file into place atomically (see `writeFileAtomic`); returns its path. */
  withAtomicFile(
    file: string,
    write: (handle: FileHandle) => Promise<void>,
    options?: AtomicWriteOptions,
  ): Promise<string>;
  /** Creates a directory and its missing parents; returns its real path. */
  makeDirectory(dir: string): Promise<string>;
}

export const DEFAULT_MAX_READ_BYTES = 2 * 1024 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Refuses anything but a regular file, judged on the opened handle (what will actually be read). */
export function requireRegularFile(stats: Stats, shown: string): void {
  if (stats.isFile()) return;
  throw new ToolError('INVALID_ARGUMENT', `Expected a regular file, but ${shown} is ${kindOf(stats)}.`, {
    hint: stats.isDirectory()
      ? 'Give the path of a file inside the directory.'
      : 'Only regular files are read; pipes, devices and sockets are refused.',
    details: { kind: kindOf(stats) },
  });
}

/**
 * Opens the regular file `root/parts…` for reading without following links (see beneath.ts). The
 * open does not block on a FIFO, and the kind is checked on the opened handle.
 */
export async function openRegularBeneath(
  root: string,
  parts: readonly string[],
  shown: string,
): Promise<OpenedFile> {
  const name = parts[parts.length - 1];
  if (name === undefined) throw new ToolError('INVALID_ARGUMENT', `Expected a file, but ${shown} is a root.`);
  const dir = await openDirBeneath(root, parts.slice(0, -1));
  let handle: FileHandle;
  try {
    handle = await openInDir(dir, name, READ_FLAGS);
  } finally {
    await dir.close();
  }
  try {
    const stats = await handle.stat();
    requireRegularFile(stats, shown);
    return { handle, path: path.join(root, ...parts), stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function tooLarge(shown: string, size: number, max: number): ToolError {
  return new ToolError('LIMIT_EXCEEDED', `${shown} is larger than ${max} bytes (${size} bytes or more).`, {
    hint: 'Read a smaller file, or a part of this one.',
    details: { limit: 'max_bytes', value: size, max },
  });
}

/** Reads an opened file to its end, at most `maxBytes` (LIMIT_EXCEEDED beyond, even if it grows). */
export async function readOpened(opened: OpenedFile, options: ReadFileOptions = {}): Promise<Buffer> {
  const max = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  const shown = options.shownAs ?? opened.path;
  if (opened.stats.size > max) throw tooLarge(shown, opened.stats.size, max);
  const chunks: Buffer[] = [];
  let total = 0;
  // One read of the expected size plus one byte, so a file that grew since fstat is noticed.
  let want = Math.min(opened.stats.size + 1, max + 1);
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.max(want, 1));
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > max) throw tooLarge(shown, total, max);
    want = Math.min(READ_CHUNK, max + 1 - total);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
