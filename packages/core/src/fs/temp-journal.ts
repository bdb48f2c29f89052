import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, rmSync, truncateSync } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// Temp files of atomic writes are removed on failure, cancel and shutdown, but a SIGKILL (or a power
// cut) leaves them behind next to the target. Each process therefore notes the temp files it creates
// in a journal of its own, and a later start removes what the journals of dead processes list.

const NAME_MAX = 255; // bytes per file name on ext4, xfs, btrfs, APFS, tmpfs
/** `.<name>.<pid>.<12 hex>.tmp`: the naming of this library's temp files (and nothing else's). */
const TEMP_NAME = /^\..*\.(\d+)\.[0-9a-f]{12}\.tmp$/s;

/** `.<name>.<pid>.<random>.tmp`, cutting `<name>` (at a UTF-8 character boundary) to fit NAME_MAX. */
export function tempNameFor(target: string): string {
  const suffix = `.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const name = Buffer.from(path.basename(target));
  let end = Math.min(name.length, NAME_MAX - 1 - suffix.length);
  while (end > 0 && (name[end]! & 0xc0) === 0x80) end--; // do not split a multi-byte character
  return `.${name.subarray(0, end).toString()}${suffix}`;
}

/**
 * Where journals live: `$MCP_WORKBENCH_STATE_DIR`, else the user's state folder
 * (`$XDG_STATE_HOME` or `~/.local/state`; `%LOCALAPPDATA%` on Windows) under `mcp-workbench/`.
 */
export function journalDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCP_WORKBENCH_STATE_DIR) return path.join(env.MCP_WORKBENCH_STATE_DIR, 'pending-writes');
  const base =
    process.platform === 'win32'
      ? (env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local'))
      : (env.XDG_STATE_HOME ?? path.join(os.homedir(), '.local', 'state'));
  return path.join(base, 'mcp-workbench', 'pending-writes');
}

let journal: string | undefined | null; // null: journaling is unavailable (read-only home, …)
let entries = 0;

function journalFile(): string | undefined {
  if (journal === undefined) {
    try {
      const dir = journalDirectory();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      journal = path.join(dir, `${process.pid}.log`);
      process.once('exit', () => {
        if (journal) rmSync(journal, { force: true });
      });
    } catch {
      journal = null;
    }
  }
  return journal ?? undefined;
}

/** Notes a temp file about to be created (synchronously, so it is on disk before the file is). */
export function journalTemp(tempPath: string): void {
  const file = journalFile();
  if (!file) return;
  try {
    appendFileSync(file, `${tempPath}\n`);
    entries++;
  } catch {
    // Journaling is best effort; the write itself must not fail because of it.
  }
}

/** The temp file is gone (renamed into place or removed); forget every entry once none is left. */
export function settleTemp(pendingLeft: number): void {
  if (pendingLeft > 0 || entries === 0 || !journal) return;
  entries = 0;
  try {
    truncateSync(journal, 0);
  } catch {
    // Best effort, as above.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Removes the temp files listed in the journals of processes that no longer run (this library's temp
 * naming and the journal's pid must both match), then the journals. Returns the files removed.
 */
export async function sweepStaleTemps(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const dir = journalDirectory(env);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(/^(\d+)\.log$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    const file = path.join(dir, name);
    const listed = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    for (const temp of listed) {
      const match = TEMP_NAME.exec(path.basename(temp));
      if (!match || Number(match[1]) !== pid) continue;
      const info = await lstat(temp).catch(() => undefined);
      if (!info?.isFile()) continue;
      await rm(temp, { force: true });
      removed.push(temp);
    }
    await rm(file, { force: true });
  }
  return removed;
}
