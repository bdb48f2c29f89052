// Audit defect 6: review_list says "call review_request with its resume_key, root and files" — so the
// files it lists are what review_request takes (relative to root), whatever working_path was.
import path from 'node:path';
import { expect, it } from 'vitest';
import { KEY, startReview, useAgentSession } from './agent-session.js';
import { answer } from './helpers.js';

const ctx = useAgentSession();

interface Listed {
  sessions: Array<{ resume_key: string; root: string; working_path: string; files: string[] }>;
}

it('lists files relative to root, and feeding the listing back resumes the review', async () => {
  const working = path.join(ctx.ws.root, 'docs', 'guide'); // answer paths are relative to this: ../plan.md
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, {
    files: ['docs/plan.md', 'docs/guide/日本語.md'],
    working_path: working,
    wait_seconds: 1,
  });
  await person.global('Add a timeline.');
  expect(answer(await call)).toMatchObject({ status: 'pending' });

  const listed = answer<Listed>(await ctx.mcp.call('review_list', {})).sessions[0]!;
  expect(listed).toMatchObject({
    resume_key: KEY,
    root: ctx.ws.root,
    working_path: working,
    files: [path.join('docs', 'plan.md'), path.join('docs', 'guide', '日本語.md')],
  });

  const resumed = ctx.mcp.call('review_request', {
    resume_key: listed.resume_key,
    title: 'Plan review',
    root: listed.root,
    files: listed.files,
    working_path: listed.working_path,
    wait_seconds: 1,
  });
  expect(answer(await resumed)).toMatchObject({ status: 'pending', summary: { comment_count: 1 } });
});
