import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import { runRipgrep } from '../rg/run.js';
import type { TextTest } from '../util/linear-regex.js';
import type { ListFilesQuery } from './list-files.js';
import { scanRuns, type OnRun } from './folder-runs.js';

/** What counting needs of a listing query: its policy checks and one root. */
export type CountQuery = Pick<
  ListFilesQuery,
  'isDenied' | 'allowedFiles' | 'allowedFileCheck' | 'allowedFolderCheck' | 'signal'
> & {
  root: { dir: string };
};

interface Folder {
  files: number;
  /** One file's path as ripgrep printed it, relative to the root: it stands for its folder. */
  sample: string;
  /** The policy's answer for the folder's files, when checked as the folder was found. */
  allowed?: boolean;
}

const SEPARATOR = path.sep.charCodeAt(0);
const DOT = 0x2e;

/**
 * Counts the files `rg --files --null` lists under one root, per folder, from ripgrep's bytes. Only for
 * a policy without deny globs, where `isDenied` and `allowedFiles` answer alike for every file of a
 * folder (the folder's real location decides): one file stands for its folder, so 43,000 files cost
 * about 4,000 checks, and no string is built per file unless a name pattern needs it (a string and an
 * object per file, and collecting them, were most of a count's time).
 */
export async function countFilesByFolder(
  query: CountQuery,
  rgArgs: readonly string[],
  nameRegex: TextTest | undefined,
): Promise<number> {
  const base = query.root.dir.endsWith(path.sep) ? query.root.dir : query.root.dir + path.sep;
  // Folders are checked as ripgrep finds them, while it walks on (one lstat each, that would otherwise
  // come after the walk).
  const folderCheck = query.allowedFolderCheck?.();
  const allowedNow = folderCheck ? undefined : query.allowedFileCheck?.();
  const folders = new Map<string, Folder>();
  /** A folder seen for the first time, with one of its files (relative to the root, as printed). */
  const found = (key: string, sample: string): Folder => {
    const folder: Folder = { files: 0, sample };
    if (folderCheck) {
      const cut = sample.lastIndexOf(path.sep);
      const dir = cut < 0 ? query.root.dir : base + sample.slice(0, cut);
      folder.allowed = folderCheck(dir, sample.slice(cut + 1));
    } else if (allowedNow) {
      const abs = base + sample;
      folder.allowed = query.isDenied?.(abs) !== true && allowedNow(abs);
    }
    folders.set(key, folder);
    return folder;
  };
  const onChunk = nameRegex ? namedRecords(found, folders, nameRegex) : folderRuns(found, folders);
  const result = await runRipgrep(rgArgs, {
    cwd: query.root.dir,
    ...(query.signal ? { signal: query.signal } : {}),
    onLine: () => {},
    onChunk: (chunk) => onChunk(chunk, false),
  });
  // A last name without its NUL (never from rg --null, but a name is not lost if so).
  if (!result.stopped) onChunk(Buffer.alloc(0), true);
  if (result.exitCode === 2 && folders.size === 0 && result.stderr) {
    throw new ToolError('INVALID_ARGUMENT', `ripgrep could not list files: ${result.stderr.split('\n')[0]}`, {
      hint: 'Check the globs and file types (rg --type-list shows the known types).',
    });
  }
  if (folderCheck || allowedNow) {
    let count = 0;
    for (const folder of folders.values()) if (folder.allowed === true) count += folder.files;
    return count;
  }
  const samples: string[] = [];
  const counts: number[] = [];
  for (const { files, sample } of folders.values()) {
    const abs = base + sample;
    if (query.isDenied?.(abs)) continue;
    samples.push(abs);
    counts.push(files);
  }
  const allowed = query.allowedFiles ? await query.allowedFiles(samples) : () => true;
  let count = 0;
  for (let i = 0; i < samples.length; i++) if (allowed(samples[i]!)) count += counts[i]!;
  return count;
}

/** Takes ripgrep's output a chunk at a time; `last`: the output has ended (the chunk is empty). */
type ChunkReader = (chunk: Buffer, last: boolean) => void;
type Found = (key: string, sample: string) => Folder;

const NUL = Buffer.from([0]);

/**
 * Counts without a name pattern: ripgrep's whole names read as latin1 text (a character a byte),
 * counted a run of one folder's names at a time (scanRuns); strings are built only for a folder's first
 * file, from the bytes (a slice of the text would keep the whole chunk's text alive: ~3.5 MB of a
 * 49,501-file count lived through the first call's collections).
 */
function folderRuns(found: Found, folders: Map<string, Folder>): ChunkReader {
  /** The last chunk's unfinished name. */
  let carry: Buffer | undefined;
  /** The bytes being read (carry, then the chunk). */
  let bytes: Buffer = Buffer.alloc(0);
  const onRun: OnRun = (key, first, firstEnd, names) => {
    let folder = folders.get(key);
    if (folder === undefined) {
      // rg prints "./a/b" for the root ".": the "./" is not part of the relative path.
      const skip = bytes[first] === DOT && bytes[first + 1] === SEPARATOR ? 2 : 0;
      const sample = bytes.toString('utf8', first + skip, firstEnd);
      folder = found(bytes.toString('latin1', first, first + key.length), sample);
    }
    folder.files += names;
  };
  return (chunk, last) => {
    if (last) bytes = carry ? Buffer.concat([carry, NUL]) : chunk;
    else bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
    const end = bytes.lastIndexOf(0) + 1;
    if (end > 0) scanRuns(bytes.toString('latin1', 0, end), onRun);
    carry = end < bytes.length ? bytes.subarray(end) : undefined;
  };
}

/** Counts with a name pattern: each name is tested, so each is read on its own. */
function namedRecords(found: Found, folders: Map<string, Folder>, nameRegex: TextTest): ChunkReader {
  let current: Folder | undefined;
  /** The current folder's bytes (relative to the root), to compare the next record's with. */
  let currentBytes = Buffer.alloc(0);
  const record = (buf: Buffer, start: number, end: number) => {
    // rg prints "./a/b" for the root ".": drop the "./".
    if (buf[start] === DOT && buf[start + 1] === SEPARATOR) start += 2;
    if (end <= start) return;
    const cut = buf.lastIndexOf(SEPARATOR, end - 1);
    const folderEnd = cut >= start ? cut : start;
    if (!nameRegex.test(buf.toString('utf8', cut >= start ? cut + 1 : start, end))) return;
    // ripgrep prints a folder's files mostly one after another: compare with the last folder first.
    const length = folderEnd - start;
    if (
      current === undefined ||
      length !== currentBytes.length ||
      buf.compare(currentBytes, 0, length, start, folderEnd) !== 0
    ) {
      currentBytes = Buffer.from(buf.subarray(start, folderEnd));
      const key = currentBytes.toString('latin1');
      current = folders.get(key) ?? found(key, buf.toString('utf8', start, end));
    }
    current.files++;
  };
  let carry: Buffer | undefined;
  return (chunk, last) => {
    if (last) {
      if (carry) record(carry, 0, carry.length);
      return;
    }
    let start = 0;
    if (carry) {
      // A name begun in an earlier chunk: only it is copied together, not the whole chunk.
      const first = chunk.indexOf(0);
      if (first < 0) {
        carry = Buffer.concat([carry, chunk]);
        return;
      }
      const joined = Buffer.concat([carry, chunk.subarray(0, first)]);
      record(joined, 0, joined.length);
      start = first + 1;
    }
    for (let end = chunk.indexOf(0, start); end >= 0; end = chunk.indexOf(0, start)) {
      record(chunk, start, end);
      start = end + 1;
    }
    carry = start < chunk.length ? chunk.subarray(start) : undefined;
  };
}
