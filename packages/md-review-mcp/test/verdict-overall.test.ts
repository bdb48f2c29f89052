// Audit defect 3: spec 004 says approved = no comments. An overall comment is a comment, so a review
// with only an overall comment is "commented", never "approved".
import { expect, it } from 'vitest';
import { startReview, useAgentSession } from './agent-session.js';
import { answer } from './helpers.js';

const ctx = useAgentSession();

it('answers commented for an overall comment alone, given at Finalize or saved before', async () => {
  const overall = 'これは全面的にやり直してください。承認しません。';
  const first = await startReview(ctx.mcp, ctx.ws.root);
  await first.person.finalize(overall);
  expect(answer(await first.call)).toMatchObject({
    verdict: 'commented',
    summary: { overall_comment: overall, comment_count: 0 },
  });

  const second = await startReview(ctx.mcp, ctx.ws.root, { resume_key: 'saved-overall' });
  await second.person.send('PUT', '/overall', { comment: overall });
  await second.person.finalize();
  expect(answer(await second.call)).toMatchObject({ verdict: 'commented' });
});

it('still answers approved when there is no comment of any kind (a blank overall comment is none)', async () => {
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root);
  await person.finalize('   ');
  expect(answer(await call)).toMatchObject({ verdict: 'approved' });
});
