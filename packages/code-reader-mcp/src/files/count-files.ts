import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import { runRipgrep } from '../rg/run.js';
import type { TextTest } from '../util/linear-regex.js';
import type { ListFilesQuery } from './list-files.js';

/** What counting needs of a listing query: its policy checks and one root. */
export type CountQuery = Pick<ListFilesQuery, 'isDenied' | 'allowedFiles' | 'allowedFileCheck' | 'signal'> & {
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
  const allowedNow = query.allowedFileCheck?.();
  const folders = new Map<string, Folder>();
  let current: Folder | undefined;
  /** The current folder's bytes (relative to the root), to compare the next record's with. */
  let currentBytes = Buffer.alloc(0);
  const record = (buf: Buffer, start: number, end: number) => {
    // rg prints "./a/b" for the root ".": drop the "./".
    if (buf[start] === DOT && buf[start + 1] === SEPARATOR) start += 2;
    if (end <= start) return;
    const cut = end > start ? buf.lastIndexOf(SEPARATOR, end - 1) : -1;
    const folderEnd = cut >= start ? cut : start;
    if (nameRegex && !nameRegex.test(buf.toString('utf8', cut >= start ? cut + 1 : start, end))) return;
    // ripgrep prints a folder's files mostly one after another: compare with the last folder first.
    const length = folderEnd - start;
    if (
      current === undefined ||
      length !== currentBytes.length ||
      buf.compare(currentBytes, 0, length, start, folderEnd) !== 0
    ) {
      currentBytes = Buffer.from(buf.subarray(start, folderEnd));
      const key = currentBytes.toString('latin1');
      current = folders.get(key);
      if (current === undefined) {
        current = { files: 0, sample: buf.toString('utf8', start, end) };
        if (allowedNow) {
          const abs = base + current.sample;
          current.allowed = query.isDenied?.(abs) !== true && allowedNow(abs);
        }
        folders.set(key, current);
      }
    }
    current.files++;
  };
  let carry: Buffer | undefined;
  const result = await runRipgrep(rgArgs, {
    cwd: query.root.dir,
    ...(query.signal ? { signal: query.signal } : {}),
    onLine: () => {},
    onChunk: (chunk) => {
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
    },
  });
  // A last name without its NUL (never from rg --null, but a name is not lost if so).
  if (carry && !result.stopped) record(carry, 0, carry.length);
  if (result.exitCode === 2 && folders.size === 0 && result.stderr) {
    throw new ToolError('INVALID_ARGUMENT', `ripgrep could not list files: ${result.stderr.split('\n')[0]}`, {
      hint: 'Check the globs and file types (rg --type-list shows the known types).',
    });
  }
  if (allowedNow) {
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
