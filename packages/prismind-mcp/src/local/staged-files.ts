import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

interface Staged {
  target: string;
  temp: string;
  previous: Buffer | undefined;
  placed: boolean;
}

function writeDurably(file: string, content: string): void {
  const fd = openSync(file, 'wx', 0o644);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
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

  stage(target: string, content: string): void {
    const previous = this.staged.get(target);
    if (previous) rmSync(previous.temp, { force: true });
    mkdirSync(path.dirname(target), { recursive: true });
    const temp = path.join(
      path.dirname(target),
      `.${path.basename(target).slice(0, 60)}.${process.pid}.${randomBytes(5).toString('hex')}.tmp`,
    );
    writeDurably(temp, content);
    this.staged.set(target, { target, temp, previous: undefined, placed: false });
  }

  /** The staged content of a target, if this transaction wrote it (reads inside the transaction see it). */
  pending(target: string): string | undefined {
    const entry = this.staged.get(target);
    return entry ? readFileSync(entry.temp, 'utf8') : undefined;
  }

  get size(): number {
    return this.staged.size;
  }

  /** Renames every temp file into place, remembering what each replaced. */
  place(): void {
    for (const entry of this.staged.values()) {
      entry.previous = existsSync(entry.target) ? readFileSync(entry.target) : undefined;
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
        writeDurably(temp, entry.previous.toString('utf8'));
        renameSync(temp, entry.target);
      }
    }
    this.staged.clear();
  }

  clear(): void {
    this.staged.clear();
  }
}
