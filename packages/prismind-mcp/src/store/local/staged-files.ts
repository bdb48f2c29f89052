import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';

/** A write to a path outside the server's --root folders or matched by a --deny-glob. */
export function deniedWrite(file: string): ToolError {
  return new ToolError(
    'PATH_OUTSIDE_ROOT',
    `${file} は --root の外か --deny-glob に当たるため、書きませんでした。`,
    {
      hint: 'Start the server with --root / --deny-glob that allow the store folder (PRISMIND_HOME), or choose another name.',
      details: { path: file },
    },
  );
}

interface Staged {
  target: string;
  temp: string;
  durable: boolean;
  previous: Buffer | undefined;
  placed: boolean;
  /** The target as it was read in this transaction: it must still be so when it is replaced. */
  expected: { size: number; mtimeMs: number } | undefined;
}

/** A file a person changed while the server was writing over it. */
function changedMeanwhile(target: string): ToolError {
  return new ToolError(
    'CONFLICT',
    `${path.basename(target)} は書き込みの間に手動で変更されました。上書きしませんでした。`,
    {
      hint: 'Read it again with get_document, merge your change into what is there, and call again.',
      details: { path: target },
    },
  );
}

/** How many files are flushed in parallel (libuv runs them on its thread pool). */
const FLUSH_BATCH = 64;

async function flush(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Files the store writes are the owner's only (issue 23: the store was world-readable). */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

function writeFile(file: string, content: string, durable: boolean): void {
  // O_EXCL: the temp name must not exist, not even as a link.
  const fd = openSync(file, 'wx', FILE_MODE);
  try {
    writeSync(fd, content);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What a target holds before it is replaced, to put back if COMMIT fails: a regular file's bytes only. */
function previousContent(target: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined; // missing, or a link (never followed)
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The files a write transaction changes. Each is written to a temp file beside its target when staged;
 * right before COMMIT all are renamed into place (readers see old or new, never half); if COMMIT then
 * fails, the old contents are put back. A transaction that fails earlier only removes its temp files.
 * So a document file and its catalog row are written together or not at all.
 */
export class StagedFiles {
  private readonly staged = new Map<string, Staged>();

  /** `permits`: whether the server may write this path (--root / --deny-glob; see confinement.ts). */
  constructor(private readonly permits: (file: string) => boolean = () => true) {}

  /**
   * `durable`: flush the file to disk before it is placed (documents). Generated views skip it: they
   * are rewritten from the database on the next change, so a power cut costs nothing that matters.
   */
  stage(target: string, content: string, durable = true, expected?: { size: number; mtimeMs: number }): void {
    if (!this.permits(target)) throw deniedWrite(target);
    const previous = this.staged.get(target);
    if (previous) rmSync(previous.temp, { force: true });
    mkdirSync(path.dirname(target), { recursive: true, mode: DIR_MODE });
    const temp = path.join(
      path.dirname(target),
      `.${path.basename(target).slice(0, 60)}.${process.pid}.${randomBytes(5).toString('hex')}.tmp`,
    );
    writeFile(temp, content, false);
    this.staged.set(target, { target, temp, durable, previous: undefined, placed: false, expected });
  }

  /** The staged content of a target, if this transaction wrote it (reads inside the transaction see it). */
  pending(target: string): string | undefined {
    const entry = this.staged.get(target);
    return entry ? readFileSync(entry.temp, 'utf8') : undefined;
  }

  get size(): number {
    return this.staged.size;
  }

  /**
   * Flushes the durable temp files to disk — all at once, so the file system can commit them in one
   * journal transaction instead of one per file — then renames every temp file into place, remembering
   * what each replaced.
   */
  async place(): Promise<void> {
    const durable = [...this.staged.values()].filter((e) => e.durable);
    for (let i = 0; i < durable.length; i += FLUSH_BATCH) {
      await Promise.all(durable.slice(i, i + FLUSH_BATCH).map((e) => flush(e.temp)));
    }
    for (const entry of this.staged.values()) {
      if (entry.expected) {
        // Checked after the flush, right before the rename: a hand edit made since the read is never
        // replaced (what is placed already is put back by revert).
        const now = lstatSync(entry.target, { throwIfNoEntry: false });
        if (!now || now.size !== entry.expected.size || now.mtimeMs !== entry.expected.mtimeMs)
          throw changedMeanwhile(entry.target);
      }
      entry.previous = previousContent(entry.target);
      // rename replaces a link at the target itself, never what it points to.
      renameSync(entry.temp, entry.target);
      entry.placed = true;
    }
  }

  /** Undoes `place` (COMMIT failed) and removes temp files that were never placed. */
  revert(): void {
    for (const entry of this.staged.values()) {
      if (!entry.placed) {
        rmSync(entry.temp, { force: true });
        continue;
      }
      if (entry.previous === undefined) rmSync(entry.target, { force: true });
      else {
        const temp = `${entry.temp}.revert`;
        writeFile(temp, entry.previous.toString('utf8'), true);
        renameSync(temp, entry.target);
      }
    }
    this.staged.clear();
  }

  clear(): void {
    this.staged.clear();
  }
}
