// review_list read and parsed every stored session at every call (sessions are never pruned: ~1 s at
// 1,000). It now reads only the session files that changed since it last looked, and still sees what
// another server process sharing the home wrote or removed.
import { readdir, readFile, rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ReviewHub } from '../src/review/hub.js';
import { SessionOwnership } from '../src/review/ownership.js';
import { SessionStore } from '../src/review/store.js';
import { workspace } from './helpers.js';

let ws: Awaited<ReturnType<typeof workspace>>;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

/** A hub as one server process has it (its own store, its own ownership). */
function serverProcess() {
  const store = new SessionStore(ws.home);
  const ownership = new SessionOwnership(store, { port: async () => 1, askRelease: async () => 'released' });
  return { store, hub: new ReviewHub(store, (file) => readFile(file), ownership) };
}

const spec = (key: string) => ({
  resume_key: key,
  title: `Review ${key}`,
  root: ws.root,
  working_path: ws.root,
  files: [path.join(ws.root, 'docs/plan.md')],
});

/** Makes every session file look a minute old: only then is an unchanged stat trusted. */
async function ageSessionFiles() {
  const dir = path.join(ws.home, 'sessions');
  const then = new Date(Date.now() - 60_000);
  for (const name of await readdir(dir)) await utimes(path.join(dir, name), then, then);
}

it('reads only the session files that changed since the last list, and sees other processes’ writes and removals', async () => {
  const writer = serverProcess();
  for (let i = 0; i < 12; i++) await writer.hub.prepare(spec(`s${i}`));
  await ageSessionFiles();

  const reader = serverProcess();
  const loads = vi.spyOn(reader.store, 'load');
  const keys = async () => (await reader.hub.list()).map((s) => s.resume_key).sort();
  expect(await keys()).toHaveLength(12);
  expect(loads).toHaveBeenCalledTimes(12);

  loads.mockClear();
  expect(await keys()).toHaveLength(12);
  expect(loads).not.toHaveBeenCalled(); // nothing changed: nothing read

  // The other process edits one session, starts another and one session file is removed.
  await writer.hub.addGlobal('s3', 'A note.');
  await writer.hub.prepare(spec('s12'));
  await rm(path.join(ws.home, 'sessions', 's5.json'));
  loads.mockClear();
  const listed = await reader.hub.list();
  expect(listed.map((s) => s.resume_key)).toContain('s12');
  expect(listed.map((s) => s.resume_key)).not.toContain('s5');
  expect(listed.find((s) => s.resume_key === 's3')?.summary.comment_count).toBe(1);
  expect(loads.mock.calls.map(([key]) => key).sort()).toEqual(['s12', 's3']);
  writer.hub.close();
});

it('reads a session file again when it changed within the same moment without its stat changing', async () => {
  const writer = serverProcess();
  await writer.hub.prepare(spec('racy'));
  const reader = serverProcess();
  await reader.hub.list();
  // Just written: its mtime may not tell the next write within the same tick apart, so it is not trusted.
  const loads = vi.spyOn(reader.store, 'load');
  await reader.hub.list();
  expect(loads).toHaveBeenCalledWith('racy');
  writer.hub.close();
});
