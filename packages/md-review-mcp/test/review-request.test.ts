import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { cancelAtRandomMoments } from '@mcp-workbench/core/testing';
import { answer, connect, eventually, Person, workspace, type Connected } from './helpers.js';

const SEED = Number(process.env.CANCEL_SEED ?? Date.now() % 100_000);

/** Either answer of review_request: the spec result or the pending note. */
type Answer = ReviewResult & { status?: string; url?: string; waited_seconds?: number; message?: string };

let ws: Awaited<ReturnType<typeof workspace>>;
let mcp: Connected;
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

beforeEach(async () => {
  ws = await workspace();
  mcp = await connect(ws.root, ws.home);
});
afterEach(async () => {
  await mcp.close();
  await ws.cleanup();
});

const args = (extra: Record<string, unknown> = {}) => ({
  resume_key: '0b5a1c3e-8a2f-4f7e-9a11-3c0d6c2e7f10',
  title: 'Plan review',
  root: ws.root,
  files: ['docs/plan.md', path.join(ws.root, 'docs/guide/日本語.md')],
  working_path: path.join(ws.root, 'docs'),
  ...extra,
});

/** Starts review_request and returns the running call plus the person at the page it opened. */
async function start(extra: Record<string, unknown> = {}, client = mcp) {
  const before = client.launcher.opened.length;
  const call = client.call('review_request', args(extra));
  const url = await eventually(() => {
    const opened = client.launcher.opened[before];
    if (!opened) throw new Error('not opened yet');
    return opened;
  });
  return { call, person: new Person(url), url };
}

describe('session_new_id', () => {
  it('answers a fresh UUID v4 as plain text', async () => {
    const first = await mcp.call('session_new_id');
    const second = await mcp.call('session_new_id');
    expect(first.text).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.text).not.toBe(first.text);
  });

  it('lists the three tools with titles and annotations', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['review_list', 'review_request', 'session_new_id']);
    expect(byName['review_request']!.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName['review_list']!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName['review_request']!.description).toContain('same resume_key');
  });
});

describe('review_request validation (spec 004 messages as coded errors)', () => {
  const fails = async (extra: Record<string, unknown>) => {
    const outcome = await mcp.call('review_request', args(extra));
    expect(outcome.isError).toBe(true);
    return outcome.error!;
  };

  it('refuses a relative root, a relative working_path and a bad resume_key', async () => {
    expect(await fails({ root: '.' })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^Invalid path: root must be an absolute path/),
    });
    expect(await fails({ working_path: 'docs' })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^Invalid path: working_path/),
    });
    expect(await fails({ resume_key: '../../etc/passwd' })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('resume_key'),
    });
    // Windows device names (the session file con.json would be the console there), on every platform.
    for (const device of ['con', 'NUL', 'com1', 'Lpt9', 'aux.review', 'prn.json']) {
      expect(await fails({ resume_key: device }), device).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('resume_key'),
      });
    }
    expect(mcp.launcher.opened).toEqual([]);
  });

  it('says "File not found" with the absolute path of a missing file', async () => {
    const error = await fails({ files: ['docs/missing.md'] });
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      message: `File not found: ${path.join(ws.root, 'docs/missing.md')}`,
    });
    expect(error.hint).toContain('relative to root');
  });

  it('says "Invalid path" for files outside root, through symlinks, outside the roots, or not Markdown', async () => {
    expect(await fails({ files: ['/etc/hostname'] })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^Invalid path: \/etc\/hostname is not inside root/),
    });
    expect(await fails({ files: ['../outside.md'] })).toMatchObject({
      message: expect.stringMatching(/^Invalid path:/),
    });
    await symlink('/etc/hostname', path.join(ws.root, 'docs/escape.md'));
    expect(await fails({ files: ['docs/escape.md'] })).toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
      message: expect.stringMatching(/^Invalid path:/),
    });
    expect(await fails({ root: '/etc', files: ['hostname'] })).toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
      message: expect.stringMatching(/^Invalid path:/),
    });
    await writeFile(path.join(ws.root, 'notes.txt'), 'text');
    expect(await fails({ files: ['notes.txt'] })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('not a Markdown file'),
    });
    expect(await fails({ files: [] })).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('says "Session already exists" when the key belongs to other files', async () => {
    const { call, person } = await start();
    await person.cancel();
    await call;
    const error = await fails({ files: ['docs/plan.md'] });
    expect(error).toMatchObject({
      code: 'ALREADY_EXISTS',
      message: expect.stringMatching(/^Session already exists/),
    });
    expect(error.hint).toContain('session_new_id');
  });

  it('resumes the review when the same files are given under another root', async () => {
    const { call, person } = await start({ files: ['docs/plan.md'], wait_seconds: 1 });
    await person.comment(0, 3, 3, 'kept', 'should');
    expect(answer(await call)).toMatchObject({ status: 'pending' });
    // root R + docs/plan.md, then root R/docs + plan.md: the same file, the same review.
    const resumed = await mcp.call(
      'review_request',
      args({ root: path.join(ws.root, 'docs'), files: ['plan.md'], wait_seconds: 1 }),
    );
    expect(answer<Answer>(resumed)).toMatchObject({ status: 'pending', summary: { comment_count: 1 } });
    expect(mcp.launcher.opened).toHaveLength(1); // the page already open is the same review
    await person.finalize();
    const result = answer<Answer>(
      await mcp.call('review_request', args({ root: path.join(ws.root, 'docs'), files: ['plan.md'] })),
    );
    expect(result.meta.root).toBe(path.join(ws.root, 'docs'));
    expect(result.inline_comments.map((c) => c.comment)).toEqual(['kept']);
  });
});

describe('review_request: the person reviews, the agent gets the spec result', () => {
  it('returns inline and global comments, verdict, summary and meta exactly as spec 004 describes', async () => {
    const { call, person } = await start({ instructions: 'Please check:\n1. Accuracy' });
    const session = await person.session();
    expect(session.files.map((f) => f.file)).toEqual(['plan.md', path.join('guide', '日本語.md')]);
    await person.comment(0, 3, 5, 'Say what "rolled back" means here.', 'must');
    await person.comment(1, 6, 9, '課金の担当者を確認してください。', 'question');
    await person.global('Add a timeline.');
    await person.reviewed(0);
    await person.finalize('Good start.');
    const result = answer<Answer>(await call);

    const plan = await readFile(path.join(ws.root, 'docs/plan.md'));
    const lines = plan.toString().split('\n');
    expect(result).toMatchObject({
      resume_key: args().resume_key,
      title: 'Plan review',
      verdict: 'commented',
      summary: {
        overall_comment: 'Good start.',
        comment_count: 3,
        inline_comment_count: 2,
        global_comment_count: 1,
      },
      global_comments: [
        { comment: 'Add a timeline.', id: expect.any(String), createdAt: expect.any(String) },
      ],
      meta: {
        root: ws.root,
        instructions: 'Please check:\n1. Accuracy',
        reviewed_files: ['plan.md'],
        files: [
          { file: 'plan.md', fileContentHash: sha(plan), lineCount: 16 },
          { file: path.join('guide', '日本語.md'), lineCount: 17 },
        ],
      },
    });
    expect(Object.keys(result).sort()).toEqual([
      'global_comments',
      'inline_comments',
      'meta',
      'resume_key',
      'round',
      'summary',
      'title',
      'verdict',
    ]);
    const [first, second] = result.inline_comments;
    expect(first).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      file: 'plan.md',
      range: { startLine: 3, endLine: 5 },
      comment: 'Say what "rolled back" means here.',
      severity: 'must',
      createdAt: expect.any(String),
      round: 1,
      anchor: {
        fileContentHash: sha(plan),
        rangeTextHash: sha(lines.slice(2, 5).join('\n')),
        preview: lines.slice(2, 5).join('\n'),
      },
    });
    expect(second).toMatchObject({
      file: path.join('guide', '日本語.md'),
      severity: 'question',
      range: { startLine: 6, endLine: 9 },
    });
    expect(second!.anchor.preview).toContain('| 認証 | 完了 | 田中 |');
    expect(Date.parse(result.meta.finalizedAt)).toBeGreaterThanOrEqual(Date.parse(result.meta.startedAt));
  });

  it('answers approved when the person finalizes without comments, cancelled on Cancel', async () => {
    const first = await start();
    await first.person.finalize();
    expect(answer(await first.call)).toMatchObject({
      verdict: 'approved',
      summary: { comment_count: 0 },
      inline_comments: [],
      global_comments: [],
    });

    const second = await start({ resume_key: 'second-review' });
    await second.person.comment(0, 1, 1, 'Title?', 'suggestion');
    await second.person.cancel();
    expect(answer(await second.call)).toMatchObject({
      verdict: 'cancelled',
      summary: { inline_comment_count: 1 },
    });
  });

  it('flags comments whose lines changed as stale, and follows lines that only moved without calling them stale', async () => {
    const { call, person } = await start();
    await person.comment(0, 3, 3, 'moved later', 'should');
    await person.comment(0, 4, 4, 'edited later', 'should');
    const file = path.join(ws.root, 'docs/plan.md');
    const text = await readFile(file, 'utf8');
    // Two lines inserted above, and line 4 rewritten, after the comments were written.
    await writeFile(
      file,
      text
        .replace('# Migration plan\n', '# Migration plan\n\nIntro.\n')
        .replace('Each step can be rolled back on its own.', 'Each step is reversible.'),
    );
    await person.finalize();
    const result = answer<Answer>(await call);
    expect(result.inline_comments[0]).toMatchObject({
      comment: 'moved later',
      moved: true,
      range: { startLine: 5, endLine: 5 },
      original_range: { startLine: 3, endLine: 3 },
    });
    expect(result.inline_comments[0]!.stale).toBeUndefined(); // the same text, two lines down
    expect(result.inline_comments[1]).toMatchObject({
      comment: 'edited later',
      stale: true,
      range: { startLine: 4, endLine: 4 },
    });
    expect(result.inline_comments[1]!.original_range).toBeUndefined();
    expect(result.inline_comments[1]!.moved).toBeUndefined();
    expect(result.meta.files[0]!.lineCount).toBe(18);
  });
});

describe('another round: what changed since the reviewed version', () => {
  it('gives the page the reviewed text and where each comment is now, and says per file what changed', async () => {
    const first = await start();
    await first.person.comment(0, 3, 3, 'keeps its place after lines are inserted above', 'should');
    await first.person.comment(0, 4, 4, 'its line is rewritten', 'must');
    await first.person.finalize();
    const round1 = answer<Answer>(await first.call);
    expect(round1.meta.files.map((f) => f.changed)).toEqual([undefined, undefined]); // no earlier round

    // The agent edits one file between the rounds, then asks again.
    const file = path.join(ws.root, 'docs/plan.md');
    const reviewed = await readFile(file, 'utf8');
    await writeFile(
      file,
      reviewed
        .replace('# Migration plan\n', '# Migration plan\n\nIntro.\n')
        .replace('Each step can be rolled back on its own.', 'Each step is reversible.'),
    );
    const round2 = mcp.call('review_request', args());
    await eventually(async () => expect((await first.person.session()).status).toBe('open'));
    const page = await first.person.send<{
      previous?: string;
      placements: Array<{ id: string; state: string; range: { startLine: number; endLine: number } }>;
    }>('GET', '/files/0');
    expect(page.previous).toBe(reviewed);
    expect(page.placements.map((p) => [p.state, p.range.startLine])).toEqual([
      ['moved', 5],
      ['lost', 4],
    ]);
    const unchanged = await first.person.send<{ previous?: string }>('GET', '/files/1');
    expect(unchanged.previous).toBeUndefined();
    expect(await first.person.send('GET', '')).toMatchObject({ round: 2 });
    await first.person.finalize();
    const result = answer<Answer>(await round2);
    expect(result.meta.files.map((f) => [f.file, f.changed])).toEqual([
      ['plan.md', true],
      [path.join('guide', '日本語.md'), false],
    ]);
    expect(
      result.inline_comments.map((c) => [c.comment.slice(0, 10), c.stale, c.moved, c.range.startLine]),
    ).toEqual([
      ['keeps its ', undefined, true, 5],
      ['its line i', true, undefined, 4],
    ]);
  });
});

describe('waiting: pending, resume, reopen, takeover, abort, progress', () => {
  it('answers pending with the URL and counts after wait_seconds, and the same key keeps waiting', async () => {
    const first = await start({ wait_seconds: 1 });
    await first.person.comment(0, 1, 1, 'Title', 'suggestion');
    const pending = answer<Answer>(await first.call);
    expect(pending).toMatchObject({
      status: 'pending',
      url: first.url.replace(/#.*/, ''), // the page's address, without the person's key
      waited_seconds: 1,
      summary: { comment_count: 1, inline_comment_count: 1 },
    });
    expect(pending.message).toContain('same arguments');
    expect((await first.person.session()).status).toBe('open'); // the page is unaffected

    const again = mcp.call('review_request', args());
    await eventually(async () => expect((await first.person.session()).waiting).toBe(true));
    expect(mcp.launcher.opened).toHaveLength(1); // the page polled recently: no second window
    await first.person.finalize();
    expect(answer(await again)).toMatchObject({ verdict: 'commented', summary: { comment_count: 1 } });
  });

  it('hands a review finalized while nobody waited to the next call, then reopens it for another round', async () => {
    const first = await start({ wait_seconds: 1 });
    await first.person.comment(0, 2, 2, 'first round', 'must');
    expect(answer(await first.call)).toMatchObject({ status: 'pending' });
    await first.person.finalize();

    const delivered = answer(await mcp.call('review_request', args()));
    expect(delivered).toMatchObject({ verdict: 'commented', summary: { inline_comment_count: 1 } });

    // Spec 004 idempotence: the same key again restores the session (same comments + new ones); with
    // the files unchanged, the agent asks for the new round explicitly.
    const round2 = mcp.call('review_request', args({ after_round: 1 }));
    await eventually(async () => expect((await first.person.session()).status).toBe('open'));
    await first.person.comment(0, 8, 8, 'second round', 'should');
    await first.person.finalize();
    const result = answer<Answer>(await round2);
    expect(result.inline_comments.map((c: { comment: string }) => c.comment)).toEqual([
      'first round',
      'second round',
    ]);
  });

  it('lets a second waiting call take the session over', async () => {
    const first = await start();
    const second = mcp.call('review_request', args());
    const superseded = await first.call;
    expect(superseded.isError).toBe(true);
    expect(superseded.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/^Taken over/),
    });
    await first.person.finalize();
    expect(answer(await second)).toMatchObject({ verdict: 'approved' });
  });

  it('honours the abort signal and leaves the review open', async () => {
    const controller = new AbortController();
    const call = mcp.client.callTool({ name: 'review_request', arguments: args() }, undefined, {
      signal: controller.signal,
    });
    const url = await eventually(() => mcp.launcher.opened[0] ?? Promise.reject(new Error('not yet')));
    const person = new Person(url);
    await eventually(async () => expect((await person.session()).waiting).toBe(true));
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await eventually(async () => expect((await person.session()).waiting).toBe(false));
    await person.comment(0, 1, 1, 'after the abort', 'must');
    await person.finalize();
    expect(answer(await mcp.call('review_request', args()))).toMatchObject({ verdict: 'commented' });
  });

  it('survives 50 cancels at random moments: ping after each, the review stays open and whole', async () => {
    const first = await start();
    await first.person.comment(0, 1, 1, 'before the cancels', 'must');
    await first.person.finalize(); // delivered to the first call; the next call reopens the session
    expect(answer(await first.call)).toMatchObject({ verdict: 'commented' });
    const report = await cancelAtRandomMoments(
      mcp.client,
      { name: 'review_request', arguments: args({ after_round: 1 }) },
      { times: 50, maxDelayMs: 150, seed: SEED },
    );
    // Nobody finalizes meanwhile, so every call is still waiting when its cancel arrives.
    expect(report.cancelled, `seed ${SEED}`).toBe(50);
    await eventually(async () => expect((await first.person.session()).waiting).toBe(false));
    expect((await first.person.session()).status).toBe('open');
    // The person's work after the storm reaches the next call, with the first round's comment kept.
    await first.person.comment(0, 2, 2, 'after the cancels', 'should');
    const next = mcp.call('review_request', args());
    await eventually(async () => expect((await first.person.session()).waiting).toBe(true));
    await first.person.finalize();
    const result = answer<Answer>(await next);
    expect(result.inline_comments.map((c: { comment: string }) => c.comment)).toEqual([
      'before the cancels',
      'after the cancels',
    ]);
    expect(mcp.launcher.opened).toHaveLength(1); // the page stayed: no window per call
  });

  it('sends progress notifications with the comment count and the URL', async () => {
    await mcp.close();
    mcp = await connect(ws.root, ws.home, { progressIntervalMs: 100 });
    const messages: string[] = [];
    const call = mcp.client.callTool({ name: 'review_request', arguments: args() }, undefined, {
      onprogress: (p) => messages.push(p.message ?? ''),
    });
    const person = new Person(
      await eventually(() => mcp.launcher.opened[0] ?? Promise.reject(new Error('not yet'))),
    );
    await person.comment(0, 1, 1, 'one', 'must');
    await person.global('two');
    await eventually(() =>
      expect(
        messages.some((m) => m.startsWith('waiting for review: 2 comments so far — http://127.0.0.1:')),
      ).toBe(true),
    );
    await person.finalize();
    await call;
    expect(messages[0]).toMatch(
      /^waiting for review: 0 comments so far — http:\/\/127\.0\.0\.1:\d+\/review\/[^#]+$/,
    );
  });

  it('restores the session after a server restart (same comments, a new page URL)', async () => {
    const first = await start({ wait_seconds: 1 });
    await first.person.comment(0, 3, 5, 'kept across restarts', 'must');
    await first.call;
    await mcp.close();
    mcp = await connect(ws.root, ws.home);
    const second = await start();
    expect(second.url).not.toBe(first.url);
    const restored = await second.person.session();
    expect(restored.inline_comments).toHaveLength(1);
    await second.person.finalize();
    expect(answer(await second.call)).toMatchObject({
      inline_comments: [{ comment: 'kept across restarts', range: { startLine: 3, endLine: 5 } }],
    });
  });

  it('fails with "App launch failed", the URL and the resume hint, then only waits on the next call', async () => {
    mcp.launcher.failWith = 'xdg-open exited with 3';
    const outcome = await mcp.call('review_request', args());
    expect(outcome.error).toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: expect.stringMatching(
        /^App launch failed: xdg-open exited with 3\. The review is open at http:\/\/127\.0\.0\.1:\d+\/review\//,
      ),
    });
    expect(outcome.error!.hint).toContain(args().resume_key);
    const url = (outcome.error!.details as { url: string }).url;
    expect(url).not.toContain('token');
    expect(outcome.error!.hint).toContain('npx md-review-mcp link');
    const waiting = mcp.call('review_request', args({ wait_seconds: 1 }));
    expect(answer(await waiting)).toMatchObject({ status: 'pending', url });
    const person = new Person(mcp.personalLink()); // printed for the person, never in an answer
    await person.finalize();
    expect(answer(await mcp.call('review_request', args()))).toMatchObject({ verdict: 'approved' });
  });
});

describe('review_list', () => {
  it('lists sessions with status, counts and the URL of the ones this server serves', async () => {
    const { call, person, url } = await start({ wait_seconds: 1 });
    await person.global('hello');
    await call;
    const listed = answer<Answer>(await mcp.call('review_list', {}));
    expect(listed).toMatchObject({
      total: 1,
      sessions: [
        {
          resume_key: args().resume_key,
          title: 'Plan review',
          status: 'open',
          url: url.replace(/#.*/, ''),
          summary: { comment_count: 1 },
          waiting: false,
        },
      ],
    });
    expect(answer(await mcp.call('review_list', { status: 'finalized' }))).toMatchObject({
      total: 0,
      sessions: [],
    });
  });

  it("lists only sessions under this server's roots, not other projects' reviews", async () => {
    const { call, person } = await start({ wait_seconds: 1 });
    await call;
    // Another project's review, made by a server rooted there, in the same session home.
    const other = path.join(path.dirname(ws.root), 'other-project');
    await mkdir(other);
    await writeFile(path.join(other, 'secret-plan.md'), '# Another project\n');
    const elsewhere = await connect(other, ws.home);
    try {
      const pending = answer<Answer>(
        await elsewhere.call('review_request', {
          resume_key: 'other-project-review',
          title: 'Other project',
          root: other,
          files: ['secret-plan.md'],
          working_path: other,
          wait_seconds: 1,
        }),
      );
      expect(pending.status).toBe('pending');
      const fromOther = answer<{ sessions: Array<{ resume_key: string }> }>(
        await elsewhere.call('review_list', {}),
      );
      expect(fromOther.sessions.map((s) => s.resume_key)).toEqual(['other-project-review']);
    } finally {
      await elsewhere.close();
    }
    const listed = answer<{ total: number; sessions: Array<{ resume_key: string; title: string }> }>(
      await mcp.call('review_list', {}),
    );
    expect(listed.sessions.map((s) => s.resume_key)).toEqual([args().resume_key]);
    expect(listed.total).toBe(1);
    expect(JSON.stringify(listed)).not.toContain('secret-plan');
    await person.cancel();
  });
});
