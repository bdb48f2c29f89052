import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, PathPolicy, ToolError } from '@mcp-workbench/core/engine';
import { storedSessionProblem } from './stored-shape.js';
import type { RoundSnapshot, StoredSession } from './types.js';

/** Letters, digits, ".", "_", "-" (a UUID from session_new_id, or a key like "abc-123"). */
export const RESUME_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Windows device names (`con`, `nul`, `com1`, … also with an extension: `nul.json` is the device): a
 * session file named after one would be the device, so they are refused on every platform (a session
 * home can be shared or moved).
 */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i;

/**
 * The most a session or snapshot file is read: the largest a review writes (2,000 comments of 20,000
 * characters, or 20 MiB of texts, JSON-escaped) is well under it; V8's string limit (~512 MiB) is over.
 */
const MAX_SESSION_FILE_BYTES = 320 * 1024 * 1024;

/** The endings of a session's snapshot files (`<key>.finished.json`): a key ending so would share them. */
const SNAPSHOT_KEY = /\.(finished|base)$/i;

/** A session file as found in the folder: what says whether it changed since it was last read. */
export interface SessionFileStamp {
  key: string;
  /** Inode, size, mtime and ctime: a rewrite (atomic: a new file) changes at least one. */
  stamp: string;
  mtimeNs: bigint;
}

export function checkResumeKey(key: string): void {
  if (
    !RESUME_KEY_PATTERN.test(key) ||
    key.includes('..') ||
    WINDOWS_DEVICE.test(key) ||
    SNAPSHOT_KEY.test(key)
  ) {
    throw new ToolError('INVALID_ARGUMENT', `Invalid resume_key: ${JSON.stringify(key)}.`, {
      hint: 'Call session_new_id and pass the UUID it returns (letters, digits, ".", "_" and "-"; at most 128; not a Windows device name such as "con" or "com1"; not ending in ".finished" or ".base").',
    });
  }
}

/**
 * One JSON file per session under `<home>/sessions/`, each replaced atomically at every edit, so a crash
 * or a second server process never sees half a session. The folder is the store's only root: session
 * files go through a path policy of their own, like every other file the server touches.
 */
export class SessionStore {
  readonly dir: string;
  private policy: Promise<PathPolicy> | undefined;

  constructor(home: string) {
    this.dir = path.join(path.resolve(home), 'sessions');
  }

  /** The folder is made on first use, so a server that never reviews anything writes nothing. */
  private paths(): Promise<PathPolicy> {
    this.policy ??= mkdir(this.dir, { recursive: true, mode: 0o700 })
      .catch((error: NodeJS.ErrnoException) => {
        // `<home>/sessions` (or a folder above it) is a file: core's EEXIST answer would say "choose another name".
        if (error.code !== 'EEXIST' && error.code !== 'ENOTDIR') throw error;
        throw new ToolError(
          'INVALID_ARGUMENT',
          `The session folder ${this.dir} cannot be made: a file is in its place.`,
          {
            hint: 'Move that file away, or point MD_REVIEW_HOME (or --home) at another folder.',
            details: { folder: this.dir },
          },
        );
      })
      .then(() => PathPolicy.create({ roots: [this.dir] }));
    this.policy.catch(() => (this.policy = undefined)); // a failed mkdir is tried again next time
    return this.policy;
  }

  private fileOf(key: string, extension = '.json'): string {
    checkResumeKey(key);
    return path.join(this.dir, `${key}${extension}`);
  }

  // ---- lock files: which server process owns a session (see ownership.ts) --------------------------

  /** Creates `<key>.lock` with `text` unless it exists (O_EXCL: atomic, never through a link). */
  async createLock(key: string, text: string): Promise<boolean> {
    const file = await (await this.paths()).resolve(this.fileOf(key, '.lock'));
    try {
      await writeFile(file, text, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  async readLock(key: string): Promise<string | undefined> {
    try {
      return (await (await this.paths()).readFile(this.fileOf(key, '.lock'))).toString('utf8');
    } catch (error) {
      if (isToolError(error) && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  /**
   * Removes the lock if it still reads `expected` (a process removes only its own). Synchronous, so it
   * also runs while the process exits.
   */
  removeLockSync(key: string, expected: string): void {
    const file = this.fileOf(key, '.lock');
    let fd: number | undefined;
    try {
      // Not blocking, not through a link: a lock swapped for a pipe must not hold the process's exit.
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      if (fstatSync(fd).isFile() && readFileSync(fd, 'utf8') === expected) unlinkSync(file);
    } catch {
      // already gone, or not a lock this process wrote
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * Removes a dead owner's lock. It is renamed away first (atomic), and put back when what was renamed
   * is not the lock that was judged dead (another process replaced it meanwhile).
   */
  async breakLock(key: string, judged: string): Promise<void> {
    const lock = await (await this.paths()).resolve(this.fileOf(key, '.lock'));
    const aside = `${lock}.${randomBytes(6).toString('hex')}.stale`;
    try {
      await rename(lock, aside);
    } catch {
      return; // gone already
    }
    const policy = await this.paths();
    const moved = (await policy.readFile(aside)).toString('utf8');
    if (moved !== judged) await link(aside, lock).catch(() => undefined);
    await unlink(aside);
  }

  /** Every lock file: key and text (for `md-review-mcp link`). */
  async locks(): Promise<Array<{ key: string; text: string }>> {
    await this.paths();
    const found: Array<{ key: string; text: string }> = [];
    for (const name of await readdir(this.dir)) {
      const key = name.slice(0, -'.lock'.length);
      if (!name.endsWith('.lock') || !RESUME_KEY_PATTERN.test(key)) continue;
      const text = await this.readLock(key).catch(() => undefined);
      if (text !== undefined) found.push({ key, text });
    }
    return found;
  }

  async load(key: string): Promise<StoredSession | undefined> {
    const file = this.fileOf(key);
    let raw: string;
    try {
      raw = (await (await this.paths()).readFile(file, { maxBytes: MAX_SESSION_FILE_BYTES })).toString(
        'utf8',
      );
    } catch (error) {
      if (isToolError(error) && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
    let problem: string | undefined;
    let session: unknown;
    try {
      session = JSON.parse(raw);
      problem = storedSessionProblem(session, key);
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem === undefined) return session as StoredSession;
    // Damaged data, not a fault of the server: the file is left as it is for the person to mend or remove.
    throw new ToolError('UNSUPPORTED_FORMAT', `The stored session ${key} is damaged (${problem}).`, {
      hint: `Use a new resume_key (session_new_id), or mend or remove the file ${file}.`,
      details: { resume_key: key, file },
    });
  }

  async save(session: StoredSession): Promise<void> {
    const file = this.fileOf(session.resume_key);
    // Not tied to the tool call's signal: an edit from the page must land even if a waiting call ends.
    await (
      await this.paths()
    ).writeFileAtomic(file, `${JSON.stringify(session, null, 2)}\n`, {
      signal: new AbortController().signal,
      mode: 0o600,
    });
  }

  // ---- the texts of a round's files: `<key>.finished.json` (as the person finished the last round) and
  // `<key>.base.json` (the version this round compares against). Written once per round, not per edit.

  async saveSnapshot(key: string, which: 'finished' | 'base', files: RoundSnapshot): Promise<void> {
    await (
      await this.paths()
    ).writeFileAtomic(this.fileOf(key, `.${which}.json`), JSON.stringify(files), {
      signal: new AbortController().signal,
      mode: 0o600,
    });
  }

  async loadSnapshot(key: string, which: 'finished' | 'base'): Promise<RoundSnapshot | undefined> {
    try {
      const snapshot = this.fileOf(key, `.${which}.json`);
      const raw = (
        await (await this.paths()).readFile(snapshot, { maxBytes: MAX_SESSION_FILE_BYTES })
      ).toString('utf8');
      return JSON.parse(raw) as RoundSnapshot;
    } catch {
      return undefined; // none yet, or unreadable: the page then shows no changes
    }
  }

  /** The last round's finished texts become the base of the next round. */
  async promoteSnapshot(key: string): Promise<void> {
    const policy = await this.paths();
    const finished = await policy.resolve(this.fileOf(key, '.finished.json'));
    const base = await policy.resolve(this.fileOf(key, '.base.json'));
    await rename(finished, base).catch(() => undefined);
  }

  /**
   * Every stored session's file with its stat, without reading it: review_list reads only the files that
   * changed since it last looked (see session-index.ts).
   */
  async sessionFiles(): Promise<SessionFileStamp[]> {
    await this.paths();
    const keys = (await readdir(this.dir))
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter((key) => RESUME_KEY_PATTERN.test(key) && !SNAPSHOT_KEY.test(key)); // snapshots are not sessions
    const stamps: SessionFileStamp[] = [];
    // Synchronous: 1,000 lstat calls take ~5 ms so, ~30 ms through the thread pool.
    for (const key of keys) {
      const stamp = stampOf(key, path.join(this.dir, `${key}.json`));
      if (stamp) stamps.push(stamp);
    }
    return stamps;
  }

  /** The stat of one session's file (see sessionFiles), undefined when it is not there. */
  sessionFile(key: string): SessionFileStamp | undefined {
    return stampOf(key, this.fileOf(key));
  }
}

/** lstat: a link is not followed (load() refuses it, so the listing skips it). */
function stampOf(key: string, file: string): SessionFileStamp | undefined {
  try {
    const stat = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    if (!stat) return undefined; // removed meanwhile
    return { key, stamp: `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`, mtimeNs: stat.mtimeNs };
  } catch {
    return undefined; // unreadable: not listed, as a damaged file is not
  }
}
