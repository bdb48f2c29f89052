// Another round is the person's answer about the new text: its verdict, overall comment and counts are
// this round's, and the comments kept from earlier rounds say which round they came from.
import { readFile, writeFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { planArgs, planPath, startReview, useAgentSession } from './agent-session.js';
import { answer, eventually } from './helpers.js';

const ctx = useAgentSession();
type Answer = ReviewResult & { status?: string; message?: string };

/** Round 1 with an inline, a global and an overall comment; then the agent edits the plan and asks again. */
async function secondRound() {
  const first = await startReview(ctx.mcp, ctx.ws.root);
  await first.person.comment(0, 9, 9, 'Say how long dual-writing lasts.', 'must');
  await first.person.global('Add a timeline.');
  await first.person.finalize('Request changes: see the must.');
  expect(answer<Answer>(await first.call)).toMatchObject({ verdict: 'commented' });

  const file = planPath(ctx.ws.root);
  const text = await readFile(file, 'utf8');
  await writeFile(
    file,
    text.replace('1. Dual-write to both queues.', '1. Dual-write to both queues for one week.'),
  );
  return first.person;
}

it('comes back approved when the person adds nothing in round 2, without round 1 overall comment', async () => {
  const person = await secondRound();
  const pending = answer<Answer>(
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1 })),
  );
  expect(pending).toMatchObject({
    status: 'pending',
    round: 2,
    summary: { comment_count: 0, earlier_comment_count: 2 },
  });
  expect(pending.summary.overall_comment).toBeUndefined();
  expect(pending.message).toContain('0 comments so far this round, besides 2 kept from earlier rounds');

  const waiting = ctx.mcp.call('review_request', planArgs(ctx.ws.root));
  await eventually(async () => expect((await person.session()).waiting).toBe(true));
  await person.finalize();
  const result = answer<Answer>(await waiting);
  expect(result).toMatchObject({
    round: 2,
    verdict: 'approved',
    summary: { comment_count: 0, inline_comment_count: 0, global_comment_count: 0, earlier_comment_count: 2 },
  });
  expect(result.summary.overall_comment).toBeUndefined();
  // Kept as history, each with the round it came from.
  expect(result.inline_comments.map((c) => [c.comment, c.round])).toEqual([
    ['Say how long dual-writing lasts.', 1],
  ]);
  expect(result.global_comments.map((c) => [c.comment, c.round])).toEqual([['Add a timeline.', 1]]);
});

it("counts and judges round 2's own comments, apart from the kept ones", async () => {
  const person = await secondRound();
  const waiting = ctx.mcp.call('review_request', planArgs(ctx.ws.root));
  await eventually(async () => expect((await person.session()).status).toBe('open'));
  await person.comment(0, 10, 10, 'Who switches the readers?', 'question');
  await person.finalize('Nearly there.');
  const result = answer<Answer>(await waiting);
  expect(result).toMatchObject({
    round: 2,
    verdict: 'commented',
    summary: {
      overall_comment: 'Nearly there.',
      comment_count: 1,
      inline_comment_count: 1,
      earlier_comment_count: 2,
    },
  });
  expect(result.inline_comments.map((c) => [c.comment, c.round])).toEqual([
    ['Say how long dual-writing lasts.', 1],
    ['Who switches the readers?', 2],
  ]);
});

it('counts a kept comment the person rewrites in round 2 as round 2’s, and its verdict follows', async () => {
  const person = await secondRound();
  const waiting = ctx.mcp.call('review_request', planArgs(ctx.ws.root));
  await eventually(async () => expect((await person.session()).status).toBe('open'));
  const kept = (await person.session()) as unknown as {
    inline_comments: Array<{ id: string }>;
    global_comments: Array<{ id: string }>;
  };
  await person.send('PATCH', `/comments/${kept.inline_comments[0]!.id}`, {
    comment: 'Dual-writing is STILL unbounded — blocking.',
  });
  await person.send('PATCH', `/global-comments/${kept.global_comments[0]!.id}`, {
    comment: 'Add a timeline, with dates.',
  });
  const page = (await person.session()) as unknown as {
    summary: { comment_count: number };
    inline_comments: Array<{ round: number }>;
  };
  expect(page.summary.comment_count).toBe(2); // the page counts it as this round's too
  expect(page.inline_comments[0]!.round).toBe(2);
  await person.finalize();
  const result = answer<Answer>(await waiting);
  expect(result).toMatchObject({
    round: 2,
    verdict: 'commented',
    summary: { comment_count: 2, inline_comment_count: 1, global_comment_count: 1, earlier_comment_count: 0 },
  });
  expect(result.inline_comments.map((c) => [c.comment, c.round])).toEqual([
    ['Dual-writing is STILL unbounded — blocking.', 2],
  ]);
});

it('counts a kept comment whose severity alone changes in round 2 as round 2’s', async () => {
  const person = await secondRound();
  const waiting = ctx.mcp.call('review_request', planArgs(ctx.ws.root));
  await eventually(async () => expect((await person.session()).status).toBe('open'));
  const view = (await person.session()) as unknown as { inline_comments: Array<{ id: string }> };
  await person.send('PATCH', `/comments/${view.inline_comments[0]!.id}`, { severity: 'suggestion' });
  await person.finalize();
  const result = answer<Answer>(await waiting);
  expect(result).toMatchObject({ round: 2, verdict: 'commented', summary: { inline_comment_count: 1 } });
});
