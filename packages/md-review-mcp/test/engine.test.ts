import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeAnchor, placeComment } from '../src/review/anchors.js';
import { ReviewHub } from '../src/review/hub.js';
import { SessionOwnership } from '../src/review/ownership.js';
import { SessionStore } from '../src/review/store.js';
import { fileText, splitLines } from '../src/review/text.js';
import type { StoredSession } from '../src/review/types.js';
import { workspace } from './helpers.js';

describe('anchors', () => {
  const lines = ['# T', '', 'alpha', 'beta', 'gamma', 'beta'];
  const anchor = makeAnchor(lines, { startLine: 4, endLine: 5 }, 'h');

  it('keeps a comment whose lines are unchanged, follows moved lines to the nearest copy, and loses edited ones', () => {
    expect(placeComment(lines, { startLine: 4, endLine: 5 }, anchor)).toEqual({
      state: 'current',
      range: { startLine: 4, endLine: 5 },
    });
    const moved = ['x', 'y', ...lines];
    expect(placeComment(moved, { startLine: 4, endLine: 5 }, anchor)).toEqual({
      state: 'moved',
      range: { startLine: 6, endLine: 7 },
    });
    expect(placeComment(['beta', 'GAMMA'], { startLine: 4, endLine: 5 }, anchor).state).toBe('lost');
  });

  it('looks for lines outwards, nearest first, and gives up within a budget where every window is a candidate', () => {
    const blank = (n: number) => Array.from({ length: n }, () => '');
    // A comment on two blank lines and a heading, the heading now 3 lines further down and also far away.
    const before = [...blank(10), '## Part', ...blank(40)];
    const a = makeAnchor(before, { startLine: 9, endLine: 11 }, 'h');
    const after = [...blank(13), '## Part', ...blank(40), '## Part'];
    expect(placeComment(after, { startLine: 9, endLine: 11 }, a)).toEqual({
      state: 'moved',
      range: { startLine: 12, endLine: 14 },
    });
    // Blank lines everywhere: each window agrees with the preview and is hashed. The same work one file
    // of 20,000 lines and one of 2,000 would cost 100 times apart (1.4 s for the big one); bounded,
    // they are a few times apart. Timed in the same run, best of 3.
    const timeOf = (n: number) => {
      const made = [...blank(n / 2 - 1), 'x', ...blank(n / 2)];
      const gone = makeAnchor(made, { startLine: 1, endLine: n / 2 }, 'h');
      const lines = blank(n);
      let best = Infinity;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        expect(placeComment(lines, { startLine: 1, endLine: n / 2 }, gone).state).toBe('lost');
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    const small = timeOf(2_000);
    const big = timeOf(20_000);
    expect(big / small, `${big.toFixed(0)} ms vs ${small.toFixed(1)} ms`).toBeLessThan(20);
  });

  it('finds a moved line longer than the preview', () => {
    const long = `${'長'.repeat(300)} end`;
    const a = makeAnchor([long], { startLine: 1, endLine: 1 }, 'h');
    expect(Array.from(a.preview)).toHaveLength(201);
    expect(placeComment(['new first line', long], { startLine: 1, endLine: 1 }, a)).toEqual({
      state: 'moved',
      range: { startLine: 2, endLine: 2 },
    });
  });

  it('counts lines as editors do: a final newline ends a line, CRLF and a BOM are understood', () => {
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\r\nb')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(fileText(Buffer.from('\ufeff# x\n')).lines).toEqual(['# x']);
  });
});

/** Ownership for a hub alone: no page server, no other process to ask. */
const soleOwner = (store: SessionStore) =>
  new SessionOwnership(store, { port: async () => 1, askRelease: async () => 'gone' });

describe('ReviewHub persistence', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(async () => ws.cleanup());

  it('writes the session file at every edit, atomically, readable only by its owner', async () => {
    const store = new SessionStore(ws.home);
    const hub = new ReviewHub(store, (file) => readFile(file), soleOwner(store));
    const file = path.join(ws.root, 'docs/plan.md');
    await hub.prepare({ resume_key: 'k1', title: 't', root: ws.root, working_path: ws.root, files: [file] });
    const onDisk = async () =>
      JSON.parse(await readFile(path.join(ws.home, 'sessions', 'k1.json'), 'utf8')) as StoredSession;
    await hub.addInline('k1', { fileIndex: 0, startLine: 1, endLine: 1, comment: 'c', severity: 'must' });
    expect((await onDisk()).inline_comments).toHaveLength(1);
    await hub.addGlobal('k1', 'g');
    await hub.setReviewed('k1', 0, true);
    expect(await onDisk()).toMatchObject({ global_comments: [{ comment: 'g' }], reviewed: [0] });
    await expect(
      hub.addInline('k1', { fileIndex: 0, startLine: 0, endLine: 1, comment: 'c', severity: 'must' }),
    ).rejects.toThrow(/not a range/);
    await hub.cancel('k1');
    await expect(hub.addGlobal('k1', 'late')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await onDisk()).toMatchObject({ status: 'cancelled', inline_comments: [{ comment: 'c' }] });
    // No temp files left; the lock says this process serves the session until the hub closes; the
    // finished round's texts are kept for the next round.
    const files = async () => (await readdir(path.join(ws.home, 'sessions'))).sort();
    expect(await files()).toEqual(['k1.finished.json', 'k1.json', 'k1.lock']);
    hub.close();
    expect(await files()).toEqual(['k1.finished.json', 'k1.json']);
    // POSIX permission bits (Windows has ACLs, and Node reports no such bits there).
    if (process.platform !== 'win32')
      expect((await stat(path.join(ws.home, 'sessions', 'k1.json'))).mode & 0o777).toBe(0o600);
    // A second store (another server process) reads the same session.
    const again = await new SessionStore(ws.home).load('k1');
    expect(again?.global_comments).toHaveLength(1);
  });

  it('applies concurrent edits one after another (none is lost)', async () => {
    const store = new SessionStore(ws.home);
    const hub = new ReviewHub(store, (file) => readFile(file), soleOwner(store));
    await hub.prepare({
      resume_key: 'k2',
      title: 't',
      root: ws.root,
      working_path: ws.root,
      files: [path.join(ws.root, 'docs/plan.md')],
    });
    await Promise.all(Array.from({ length: 20 }, (_, i) => hub.addGlobal('k2', `c${i}`)));
    const stored = await new SessionStore(ws.home).load('k2');
    expect(stored?.global_comments.map((c) => c.comment).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `c${i}`).sort(),
    );
  });
});
