import { randomUUID } from 'node:crypto';
import { ToolError } from '@mcp-workbench/core/engine';
import type { SessionStore } from './store.js';

/**
 * What `<home>/sessions/<key>.lock` says about the server process that serves a session: who it is,
 * where its page is (port and the person's key), since when. Readable by the user only (0600), like
 * the session itself; `md-review-mcp link` prints the person's link from it.
 */
export interface LockRecord {
  /** One id per server instance (two instances in one process are two owners). */
  owner: string;
  pid: number;
  port: number;
  token: string;
  since: string;
}

/**
 * How a live owner answers "hand this session over": `released` (its lock is gone), `gone` (nobody
 * there serves it: the lock is stale), or `no-answer` (it did not answer in time).
 */
export type ReleaseAnswer = 'released' | 'gone' | 'no-answer';
export type AskRelease = (key: string, holder: LockRecord) => Promise<ReleaseAnswer>;

export interface OwnershipOptions {
  /** The port this process's review page listens on (starts it when needed). */
  port(): Promise<number>;
  askRelease: AskRelease;
  /** Whether a process id is running (default: signal 0). */
  isAlive?: (pid: number) => boolean;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process, but alive
  }
}

export function parseLock(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    return typeof value.owner === 'string' &&
      typeof value.pid === 'number' &&
      typeof value.port === 'number' &&
      typeof value.token === 'string'
      ? (value as LockRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One owner per session across server processes (issue 24: two processes each kept a copy, and the last
 * write won). A process serves a session only while it holds the session's lock file; another process
 * that is asked for the same session asks the owner to hand it over (the owner saves what it has,
 * lets go and tells its page), or takes over a lock whose owner is dead. Every save checks the lock
 * first, so a process that lost its session cannot overwrite the new owner's.
 */
export class SessionOwnership {
  readonly id = randomUUID();
  /** The lock text this instance wrote, per session it holds. */
  private readonly held = new Map<string, string>();
  private readonly isAlive: (pid: number) => boolean;

  constructor(
    private readonly store: SessionStore,
    private readonly options: OwnershipOptions,
  ) {
    this.isAlive = options.isAlive ?? processAlive;
  }

  /**
   * Takes the session for this instance, handing it over from its current owner if needed — unless
   * `takeOver` is false: then a live owner keeps it (a lock left by a dead process is still taken).
   */
  async acquire(key: string, token: string, { takeOver = true } = {}): Promise<void> {
    let holder: LockRecord | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      const record: LockRecord = {
        owner: this.id,
        pid: process.pid,
        port: await this.options.port(),
        token,
        since: new Date().toISOString(),
      };
      const text = `${JSON.stringify(record)}\n`;
      if (await this.store.createLock(key, text)) {
        this.held.set(key, text);
        return;
      }
      const current = await this.store.readLock(key);
      if (current === undefined) continue; // released meanwhile
      holder = parseLock(current);
      if (holder?.owner === this.id) {
        this.held.set(key, current);
        return;
      }
      const alive = holder !== undefined && this.isAlive(holder.pid);
      if (alive && !takeOver) break;
      const answer = holder && alive ? await this.options.askRelease(key, holder) : 'gone';
      if (answer === 'no-answer') break;
      if (answer === 'gone') await this.store.breakLock(key, current);
    }
    throw new ToolError(
      'CONFLICT',
      `Session in use: another md-review-mcp process${holder ? ` (pid ${holder.pid})` : ''} serves resume_key ${key} and did not hand it over.`,
      {
        hint: 'The person can finish the review in that window; call review_request again later, or use a new resume_key.',
      },
    );
  }

  /** Before every save: is the session still ours? (Another process may have taken a stale-looking lock.) */
  async verify(key: string): Promise<boolean> {
    const mine = this.held.get(key);
    if (mine === undefined) return false;
    const current = await this.store.readLock(key);
    if (current === mine) return true;
    // A lock someone removed by hand: ours again if nobody else took it.
    if (current === undefined && (await this.store.createLock(key, mine))) return true;
    this.held.delete(key);
    return false;
  }

  release(key: string): void {
    const mine = this.held.get(key);
    if (mine === undefined) return;
    this.held.delete(key);
    this.store.removeLockSync(key, mine);
  }

  releaseAll(): void {
    for (const key of [...this.held.keys()]) this.release(key);
  }
}
