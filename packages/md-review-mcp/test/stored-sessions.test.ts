// Session files under MD_REVIEW_HOME damaged or edited by hand: the damaged one is refused by name and
// left as it is; the others are still listed and resumed. Keys that would share a session's snapshot
// files (`<key>.finished.json`) are refused.
import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY, planArgs, startReview, useAgentSession } from './agent-session.js';
import { answer, connect } from './helpers.js';

const ctx = useAgentSession();

interface Listed {
  sessions: Array<{ resume_key: string }>;
}

/** Starts and leaves a review of `key` pending, so its session file exists. */
async function pendingSession(key: string) {
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, { resume_key: key, wait_seconds: 1 });
  await person.global(`A note on ${key}.`);
  expect(answer(await call)).toMatchObject({ status: 'pending' });
}

const sessionFile = (key: string) => path.join(ctx.ws.home, 'sessions', `${key}.json`);

describe('a damaged session file', () => {
  it.each([
    ['files is not a list', (s: Record<string, unknown>) => ({ ...s, files: 'oops' })],
    ['inline_comments is null', (s: Record<string, unknown>) => ({ ...s, inline_comments: null })],
    ['updatedAt is missing', ({ updatedAt: _gone, ...s }: Record<string, unknown>) => s],
    [
      'a comment names a file the session does not have',
      (s: Record<string, unknown>) => ({
        ...s,
        inline_comments: [
          {
            id: 'c1',
            fileIndex: 5,
            range: { startLine: 1, endLine: 1 },
            comment: 'x',
            severity: 'must',
            createdAt: '2026-01-01T00:00:00.000Z',
            anchor: { fileContentHash: 'a', rangeTextHash: 'b', preview: 'c' },
          },
        ],
      }),
    ],
  ])('(%s) is refused by name; review_list still lists the others', async (_what, damage) => {
    await pendingSession(KEY);
    await pendingSession('other-review');
    const stored = JSON.parse(await readFile(sessionFile(KEY), 'utf8')) as Record<string, unknown>;
    const damaged = `${JSON.stringify(damage(stored))}\n`;
    await writeFile(sessionFile(KEY), damaged);
    // A new server process reads the stores afresh (the first one holds its open sessions in memory).
    await ctx.mcp.close();
    ctx.mcp = await connect(ctx.ws.root, ctx.ws.home);

    const listed = answer<Listed>(await ctx.mcp.call('review_list', {}));
    expect(listed.sessions.map((s) => s.resume_key)).toEqual(['other-review']);
    const refused = await ctx.mcp.call('review_request', { ...planArgs(ctx.ws.root), wait_seconds: 1 });
    expect(refused.isError).toBe(true);
    expect(refused.error).toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    expect(refused.error?.message).toContain(`The stored session ${KEY} is damaged`);
    expect(refused.error?.hint).toContain(sessionFile(KEY));
    expect(await readFile(sessionFile(KEY), 'utf8')).toBe(damaged);
  });
});

describe('the size of a review', () => {
  it('is at most 20 MiB of files: 5 files of 4.5 MiB are refused up front, 4 are taken', async () => {
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      const name = `docs/big-${i}.md`;
      await writeFile(path.join(ctx.ws.root, name), `# Part ${i}\n\n${'"quoted" text\n'.repeat(340_000)}`);
      names.push(name);
    }
    const refused = await ctx.mcp.call('review_request', { ...planArgs(ctx.ws.root), files: names });
    expect(refused.error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(refused.error?.message).toMatch(/a review holds at most 20971520/);
    const taken = await ctx.mcp.call('review_request', {
      ...planArgs(ctx.ws.root),
      files: names.slice(0, 4),
      wait_seconds: 1,
    });
    expect(answer(taken)).toMatchObject({ status: 'pending' });
  });
});

describe('a session file grown past any review (a sparse 600 MiB file)', () => {
  it('is refused by size before it is read, with the file named', async () => {
    await pendingSession(KEY);
    await ctx.mcp.close();
    await truncate(sessionFile(KEY), 600 * 1024 * 1024);
    ctx.mcp = await connect(ctx.ws.root, ctx.ws.home);
    const refused = await ctx.mcp.call('review_request', { ...planArgs(ctx.ws.root), wait_seconds: 1 });
    expect(refused.error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(refused.error?.message).toContain(sessionFile(KEY));
  });
});

describe('resume keys', () => {
  it.each(['s.finished', 's.base', 'plan.Finished'])(
    '%s, which would share a session’s snapshot file, is refused',
    async (key) => {
      const refused = await ctx.mcp.call('review_request', { ...planArgs(ctx.ws.root), resume_key: key });
      expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(refused.error?.hint).toContain('.finished');
    },
  );
});

describe('the session folder', () => {
  it('in the place of a file: the answer names the folder and says what to do, and the file is kept', async () => {
    const sessions = path.join(ctx.ws.home, 'sessions');
    await mkdir(ctx.ws.home, { recursive: true });
    await writeFile(sessions, 'not a folder');
    const refused = await ctx.mcp.call('review_request', { ...planArgs(ctx.ws.root), wait_seconds: 1 });
    expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(refused.error?.message).toContain(sessions);
    expect(refused.error?.hint).toContain('MD_REVIEW_HOME');
    expect(await readFile(sessions, 'utf8')).toBe('not a folder');
  });
});
