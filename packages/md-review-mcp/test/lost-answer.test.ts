// A call's answer can be lost: the client gave up on the call without cancelling it (it crashed, or timed
// out badly), the person finalized, and the verdict went to a call nobody reads. The agent's retry with
// the same arguments must get that verdict, not ask the person a second time.
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { KEY, planArgs, planPath, startReview, useAgentSession } from './agent-session.js';
import { answer, eventually } from './helpers.js';

const ctx = useAgentSession();
type Answer = ReviewResult & { status?: string };

/** A round the person finishes while a call waits whose answer the agent never reads. */
async function finishedUnseen(
  finish: (person: Awaited<ReturnType<typeof startReview>>['person']) => Promise<unknown>,
) {
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root);
  await finish(person);
  await call; // answered to a client that had given up: the model never sees it
  return person;
}

it('answers a retry after a lost answer with the same verdict, marked repeated, and asks the person nothing', async () => {
  const person = await finishedUnseen((p) => p.finalize());

  const retry = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(retry.status).toBeUndefined();
  expect(retry).toMatchObject({ verdict: 'approved', round: 1, repeated: true });
  expect(retry.message).toMatch(/round 1's result again/);
  expect(await person.session()).toMatchObject({ status: 'finalized', round: 1 }); // not reopened
  expect(ctx.mcp.launcher.opened).toHaveLength(1); // no second window

  // Asked again and again: still that round's result.
  const again = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(again).toMatchObject({ verdict: 'approved', round: 1, repeated: true });
});

it('repeats a cancelled or commented round too, with its comments', async () => {
  await finishedUnseen(async (p) => {
    await p.comment(0, 3, 3, 'Name the queues.', 'should');
    await p.cancel();
  });
  const retry = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(retry).toMatchObject({ verdict: 'cancelled', repeated: true, summary: { comment_count: 1 } });
  expect(retry.inline_comments.map((c) => c.comment)).toEqual(['Name the queues.']);
});

it('opens another round once the agent edited a file, or when it asks with after_round', async () => {
  const person = await finishedUnseen((p) => p.finalize());

  const file = planPath(ctx.ws.root);
  await writeFile(file, (await readFile(file, 'utf8')).replace('three steps', 'four steps'));
  const edited = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(edited).toMatchObject({ status: 'pending', round: 2 });
  expect(edited.repeated).toBeUndefined();
  expect(await person.session()).toMatchObject({ status: 'open', round: 2 });

  await person.finalize();
  await ctx.mcp.call('review_request', planArgs(ctx.ws.root)); // round 2 delivered
  const asked = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1, after_round: 2 })),
  );
  expect(asked).toMatchObject({ status: 'pending', round: 3 });
});

it("keeps a lost round's verdict and overall comment: the next round's answers give them as previous_round", async () => {
  const person = await finishedUnseen(async (p) => {
    await p.comment(0, 3, 3, 'Name the queues.', 'must');
    await p.finalize('Blocking: the queues are unnamed.');
  });
  const file = planPath(ctx.ws.root);
  await writeFile(file, (await readFile(file, 'utf8')).replace('three steps', 'four steps'));
  const lost = { round: 1, verdict: 'commented', overall_comment: 'Blocking: the queues are unnamed.' };

  const pending = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(pending).toMatchObject({ status: 'pending', round: 2, previous_round: lost });

  const waiting = ctx.mcp.call('review_request', planArgs(ctx.ws.root));
  await person.finalize();
  const result = answer<Answer>(await waiting);
  expect(result).toMatchObject({ round: 2, verdict: 'approved', previous_round: lost });
  expect(result.summary.overall_comment).toBeUndefined(); // round 2's own: none
});

it('loads a session stored before rounds were kept, and keeps its rounds from then on', async () => {
  const plan = await realpath(planPath(ctx.ws.root));
  const at = '2026-11-01T10:00:00.000Z';
  const stored = {
    version: 1,
    resume_key: KEY,
    title: 'Plan review',
    root: await realpath(ctx.ws.root),
    working_path: await realpath(ctx.ws.root),
    files: [{ path: plan }],
    status: 'finalized',
    startedAt: at,
    finalizedAt: at,
    delivered: false,
    overall_comment: 'Old verdict.',
    reviewed: [],
    inline_comments: [],
    global_comments: [],
    updatedAt: at,
    round: 2,
  };
  await mkdir(path.join(ctx.ws.home, 'sessions'), { recursive: true });
  await writeFile(path.join(ctx.ws.home, 'sessions', `${KEY}.json`), JSON.stringify(stored));

  const old = answer<Answer>(await ctx.mcp.call('review_request', planArgs(ctx.ws.root)));
  expect(old).toMatchObject({ round: 2, verdict: 'commented', summary: { overall_comment: 'Old verdict.' } });
  expect(old.previous_round).toBeUndefined(); // round 1's was never recorded

  await writeFile(plan, (await readFile(plan, 'utf8')).replace('three steps', 'four steps'));
  const next = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(next).toMatchObject({
    status: 'pending',
    round: 3,
    previous_round: { round: 2, verdict: 'commented', overall_comment: 'Old verdict.' },
  });
});

it('repeats a delivered round to a retry after one of its files was deleted, saying it is missing', async () => {
  const files = { files: ['docs/plan.md', 'docs/guide/日本語.md'] };
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, files);
  await person.finalize();
  expect(answer<Answer>(await call)).toMatchObject({ verdict: 'approved', round: 1 });
  await rm(path.join(ctx.ws.root, 'docs', 'guide', '日本語.md'));

  for (let attempt = 0; attempt < 2; attempt++) {
    const retry = answer<Answer>(
      await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { ...files, wait_seconds: 1 })),
    );
    expect(retry).toMatchObject({ verdict: 'approved', round: 1, repeated: true });
    expect(retry.meta.files[1]).toMatchObject({ missing: true, changed_since_review: true });
    expect(retry.warnings?.[0]).toMatch(/can no longer be read/);
  }
  expect(await person.session()).toMatchObject({ status: 'finalized', round: 1 });
});

it('answers a retry of a lost after_round call with the round it opened, not yet another', async () => {
  const person = await finishedUnseen((p) => p.finalize());
  const ask = planArgs(ctx.ws.root, { after_round: 1 });
  const lost = ctx.mcp.call('review_request', ask);
  await eventually(async () => expect((await person.session()).waiting).toBe(true));
  await person.comment(0, 3, 3, 'Name the queues.', 'must');
  await person.finalize();
  expect(answer<Answer>(await lost)).toMatchObject({ round: 2, verdict: 'commented' }); // never read

  const retry = answer<Answer>(await ctx.mcp.call('review_request', { ...ask, wait_seconds: 1 }));
  expect(retry).toMatchObject({ round: 2, verdict: 'commented', repeated: true });
  expect(retry.message).toContain('after_round: 2');
  expect(await person.session()).toMatchObject({ status: 'finalized', round: 2 }); // the person is not asked again

  const next = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { after_round: 2, wait_seconds: 1 })),
  );
  expect(next).toMatchObject({ status: 'pending', round: 3 });
  // Retried while round 3 is open: it keeps waiting on round 3.
  const again = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { after_round: 2, wait_seconds: 1 })),
  );
  expect(again).toMatchObject({ status: 'pending', round: 3 });
});
