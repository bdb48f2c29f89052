// A call's answer can be lost: the client gave up on the call without cancelling it (it crashed, or timed
// out badly), the person finalized, and the verdict went to a call nobody reads. The agent's retry with
// the same arguments must get that verdict, not ask the person a second time.
import { readFile, writeFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { planArgs, planPath, startReview, useAgentSession } from './agent-session.js';
import { answer } from './helpers.js';

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

it('opens another round once the agent edited a file, or when it asks with new_round', async () => {
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
    await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { wait_seconds: 1, new_round: true })),
  );
  expect(asked).toMatchObject({ status: 'pending', round: 3 });
});
