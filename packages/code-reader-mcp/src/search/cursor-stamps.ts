// A search cursor is served from the result its first page came from (kept in memory, issue 25), and
// rows are read lazily: without a check, a file changed between pages gave a page of its new lines
// under the old counts, with no CONFLICT (audit t18). The files whose rows a page set has read are
// stamped (size and mtime) when a cursor is issued and checked when it is used; a file first read on a
// later page must not have changed since the search counted it.
import { stat } from 'node:fs/promises';
import { staleCursor } from '../paging/budget.js';
import type { SearchOutcome } from './types.js';

const stamps = new WeakMap<SearchOutcome, Map<string, string>>();

async function stampOf(file: string): Promise<{ stamp: string; changedMs: number }> {
  try {
    const stats = await stat(file);
    return { stamp: `${stats.size}:${stats.mtimeMs}`, changedMs: Math.max(stats.mtimeMs, stats.ctimeMs) };
  } catch {
    return { stamp: 'gone', changedMs: Infinity };
  }
}

/** The files of `outcome` whose rows were read (the first `rowFiles` counted files). */
function readFiles(outcome: SearchOutcome): string[] {
  return outcome.fileCounts.slice(0, outcome.rowFiles).map((c) => c.file);
}

/** Stamps the files read so far that have no stamp yet (called as a cursor is issued). */
export async function stampCursorFiles(outcome: SearchOutcome): Promise<void> {
  let known = stamps.get(outcome);
  if (!known) stamps.set(outcome, (known = new Map<string, string>()));
  const fresh = readFiles(outcome).filter((file) => !known.has(file));
  const taken = await Promise.all(fresh.map(stampOf));
  fresh.forEach((file, i) => known.set(file, taken[i]!.stamp));
}

/**
 * CONFLICT when a stamped file changed since its cursor was issued. Outcomes without stamps (a search
 * run again for the cursor, on current files) are lined up by their fingerprint alone.
 */
export async function checkCursorFiles(outcome: SearchOutcome): Promise<void> {
  const known = stamps.get(outcome);
  if (!known) return;
  const files = [...known.keys()];
  const now = await Promise.all(files.map(stampOf));
  if (files.some((file, i) => now[i]!.stamp !== known.get(file))) throw staleCursor();
}

/** CONFLICT when a file read for the first time on a later page changed after the search counted it. */
export async function checkNewlyRead(outcome: SearchOutcome): Promise<void> {
  const known = stamps.get(outcome);
  if (!known || outcome.countedAt === undefined) return;
  const fresh = readFiles(outcome).filter((file) => !known.has(file));
  const taken = await Promise.all(fresh.map(stampOf));
  if (taken.some((t) => t.changedMs >= (outcome.countedAt as number))) throw staleCursor();
  fresh.forEach((file, i) => known.set(file, taken[i]!.stamp));
}
