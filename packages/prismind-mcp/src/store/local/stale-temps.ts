import { lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@mcp-workbench/core/engine';

/** The temp files StagedFiles writes: `.<name>.<pid>.<10 hex>.tmp`, and `….tmp.revert` while undoing. */
const TEMP = /^\..+\.(\d+)\.[0-9a-f]{10}\.tmp(?:\.revert)?$/;

/** A temp file this old is stale even if a process of its pid runs (the pid was reused). */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * A temp file whose pid runs nowhere here is left this long anyway: a writer in another container or on
 * another machine sharing the folder has a pid this process cannot see, and a write takes far less.
 */
export const DEAD_WRITER_GRACE_MS = 60 * 1000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temp files a writer killed mid-transaction left below `dir` (SIGKILL, power cut): those whose
 * writer process is gone (for over DEAD_WRITER_GRACE_MS), or that are older than STALE_TEMP_MS. A live writer's temp file is never
 * touched, and no link is followed. Returns the removed paths relative to `dir`.
 */
export function removeStaleTemps(dir: string, logger: Logger, now = Date.now()): string[] {
  const removed: string[] = [];
  const walk = (sub: string) => {
    let entries;
    try {
      entries = readdirSync(path.join(dir, sub), { withFileTypes: true });
    } catch {
      return; // gone or unreadable: nothing of ours to clean
    }
    for (const entry of entries) {
      const relative = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(relative);
        continue;
      }
      const match = TEMP.exec(entry.name);
      if (!match || !entry.isFile()) continue;
      const pid = Number(match[1]);
      const file = path.join(dir, relative);
      const stats = lstatSync(file, { throwIfNoEntry: false });
      if (!stats) continue;
      const age = now - stats.mtimeMs;
      const old = age > STALE_TEMP_MS;
      if (pid === process.pid || (!old && (alive(pid) || age < DEAD_WRITER_GRACE_MS))) continue;
      try {
        rmSync(file, { force: true });
        removed.push(relative);
      } catch (error) {
        logger.warn(`Cannot remove the stale temp file ${relative}`, error);
      }
    }
  };
  walk('');
  if (removed.length > 0)
    logger.info(`Removed ${removed.length} temp file(s) left by an interrupted write: ${removed.join(', ')}`);
  return removed;
}
