// A long-lived server kept every session it ever served in memory, with its lock file, until it exited
// (+26 KB of RSS and 3 files per review). A finished review handed to the agent is now let go of once its
// page is quiet; a later call, or the page coming back, loads it from the store again.
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReviewHub } from '../src/review/hub.js';
import { SessionOwnership } from '../src/review/ownership.js';
import { SessionStore } from '../src/review/store.js';
import type { ReviewResult } from '../src/review/types.js';
import { KEY, planArgs, planPath, startReview } from './agent-session.js';
import { answer, connect, eventually, workspace, type Connected } from './helpers.js';

const IDLE_MS = 80;

let ws: Awaited<ReturnType<typeof workspace>>;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.cleanup());

const lockFiles = async () =>
  (await readdir(path.join(ws.home, 'sessions'))).filter((name) => name.endsWith('.lock'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the hub', () => {
  const spec = () => ({
    resume_key: 'k',
    title: 'Plan',
    root: ws.root,
    working_path: ws.root,
    files: [path.join(ws.root, 'docs/plan.md')],
  });

  it('lets a finished, delivered review go once its page is quiet, and loads it again for its page', async () => {
    const store = new SessionStore(ws.home);
    const owner = new SessionOwnership(store, { port: async () => 1, askRelease: async () => 'gone' });
    const hub = new ReviewHub(store, (file) => readFile(file), owner, { releaseIdleMs: IDLE_MS });
    await hub.prepare(spec());
    const token = hub.tokenOf('k');
    const waiting = hub.wait('k', { signal: new AbortController().signal, timeoutMs: 0, tickMs: 60_000 });
    await hub.addGlobal('k', 'A note.');
    await hub.finalize('k');
    expect(await waiting).toMatchObject({ kind: 'done' });
    // Written a minute ago, as far as its stat says: a file changed in the last moments is always read.
    const then = new Date(Date.now() - 60_000);
    await utimes(path.join(ws.home, 'sessions', 'k.json'), then, then);

    // A page that keeps asking keeps it.
    for (let i = 0; i < 4; i++) {
      await sleep(IDLE_MS / 2);
      hub.view('k');
    }
    expect(hub.isLive('k')).toBe(true);

    await eventually(() => expect(hub.isLive('k')).toBe(false));
    expect(await lockFiles()).toEqual([]);
    // review_list knows it still, without reading its file again.
    const loads = vi.spyOn(store, 'load');
    expect(await hub.list()).toMatchObject([{ resume_key: 'k', status: 'finalized', live: false }]);
    expect(loads).not.toHaveBeenCalled();
    loads.mockRestore();

    // The page comes back (a tab in the background): with its key, the session is there again, as it was.
    await hub.revive('k', 'not-the-key');
    expect(hub.isLive('k')).toBe(false);
    await hub.revive('k', token);
    expect(hub.checkToken('k', token)).toBe(true);
    expect(hub.view('k')).toMatchObject({ status: 'finalized', global_comments: [{ comment: 'A note.' }] });
    expect(await lockFiles()).toEqual(['k.lock']);
    await eventually(() => expect(hub.isLive('k')).toBe(false));
    hub.close();
  });

  it('does not take a let-go review back from another process that serves it now: its old page is told it moved', async () => {
    const store = new SessionStore(ws.home);
    const owner = new SessionOwnership(store, { port: async () => 1, askRelease: async () => 'gone' });
    const first = new ReviewHub(store, (file) => readFile(file), owner, { releaseIdleMs: IDLE_MS });
    await first.prepare(spec());
    const token = first.tokenOf('k');
    const waiting = first.wait('k', { signal: new AbortController().signal, timeoutMs: 0, tickMs: 60_000 });
    await first.finalize('k');
    await waiting;
    await eventually(() => expect(first.isLive('k')).toBe(false));

    // Another server process (alive) is asked for the review and serves it now.
    const otherStore = new SessionStore(ws.home);
    const other = new ReviewHub(
      otherStore,
      (file) => readFile(file),
      new SessionOwnership(otherStore, {
        port: async () => 2,
        askRelease: async () => 'gone',
        isAlive: () => true,
      }),
    );
    await other.prepare({ ...spec(), afterRound: 1 });
    expect(other.isLive('k')).toBe(true);

    await first.revive('k', token);
    expect(first.isLive('k')).toBe(false);
    expect(first.movedAway('k', token)).toBe(true);
    expect(other.isLive('k')).toBe(true); // not asked to hand it over
    first.close();
    other.close();
  });

  it('keeps a finished review nobody was given yet, and an open one', async () => {
    const store = new SessionStore(ws.home);
    const owner = new SessionOwnership(store, { port: async () => 1, askRelease: async () => 'gone' });
    const hub = new ReviewHub(store, (file) => readFile(file), owner, { releaseIdleMs: IDLE_MS });
    await hub.prepare(spec());
    await hub.finalize('k'); // no call waits: the next call gets it
    await sleep(IDLE_MS * 3);
    expect(hub.isLive('k')).toBe(true);
    hub.close();
  });
});

describe('through MCP', () => {
  let mcp: Connected;
  beforeEach(async () => {
    mcp = await connect(ws.root, ws.home, { releaseIdleMs: IDLE_MS });
  });
  afterEach(async () => mcp.close());

  it('answers a retry after the session was let go with the same verdict, and the next round keeps the link', async () => {
    const { call, person } = await startReview(mcp, ws.root, { wait_seconds: 5 });
    await person.comment(0, 1, 1, 'Say why.', 'should');
    await person.finalize();
    expect(answer<ReviewResult>(await call)).toMatchObject({ verdict: 'commented', round: 1 });
    await eventually(async () => expect(await lockFiles()).toEqual([]));
    // The person's page, still open in a background tab, asks again: the session is loaded for it.
    expect(await person.session()).toMatchObject({ status: 'finalized' });
    expect(await lockFiles()).toEqual([`${KEY}.lock`]);
    await eventually(async () => expect(await lockFiles()).toEqual([]));

    const retry = answer<ReviewResult & { repeated?: boolean }>(
      await mcp.call('review_request', planArgs(ws.root, { wait_seconds: 1 })),
    );
    expect(retry).toMatchObject({ verdict: 'commented', round: 1, repeated: true });
    expect(retry.inline_comments.map((c) => c.comment)).toEqual(['Say why.']);
    expect(mcp.launcher.opened).toHaveLength(1); // the person is asked nothing
    await eventually(async () => expect(await lockFiles()).toEqual([]));

    // The agent edited the file: another round, at the link the person already has.
    const file = planPath(ws.root);
    await writeFile(file, `${await readFile(file, 'utf8')}\nOne more line.\n`);
    const next = answer<{ status: string; round: number }>(
      await mcp.call('review_request', planArgs(ws.root, { wait_seconds: 1 })),
    );
    expect(next).toMatchObject({ status: 'pending', round: 2 });
    expect(await person.session()).toMatchObject({
      status: 'open',
      inline_comments: [{ comment: 'Say why.' }],
    });
    expect(await lockFiles()).toEqual([`${KEY}.lock`]);
  });
});
