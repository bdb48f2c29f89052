// Audit defect 1: a verdict certifies exactly the text the person had on screen. A file rewritten
// while the page was open cannot be finalized; one rewritten (or deleted) after the person finished is
// reported as such when the review is delivered, never as an approval of the new text.
import { createHash } from 'node:crypto';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { planArgs, planPath, startReview, useAgentSession } from './agent-session.js';
import { answer } from './helpers.js';

const ctx = useAgentSession();
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

it('refuses to finalize a file rewritten since the page showed it; the call keeps waiting', async () => {
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, { wait_seconds: 2 });
  const shown = await person.file(0);
  await writeFile(planPath(ctx.ws.root), '# Migration plan\n\nDrop the production database first.\n');

  const seen = [{ fileIndex: 0, fileContentHash: shown.fileContentHash }];
  await expect(person.send('POST', '/finalize', { seen })).rejects.toThrow(/409.*changed on disk/);
  expect((await person.session()).status).toBe('open');
  expect(answer(await call)).toMatchObject({ status: 'pending' });

  // The page reloads, the person sees the new text and finalizes that.
  const now = await person.send<{ fileContentHash: string }>('GET', '/files/0/hash');
  expect(now.fileContentHash).not.toBe(shown.fileContentHash);
  await person.send('POST', '/finalize', { seen: [{ fileIndex: 0, ...now }] });
  const result = answer<ReviewResult>(await ctx.mcp.call('review_request', planArgs(ctx.ws.root)));
  expect(result.meta.files[0]).toMatchObject({
    fileContentHash: now.fileContentHash,
    reviewedContentHash: now.fileContentHash,
  });
  expect(result.meta.files[0]!.changed_since_review).toBeUndefined();
  expect(result.warnings).toBeUndefined();
});

it('delivers a review finished while nobody waited with the hash the person saw when the file changed since', async () => {
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, { wait_seconds: 1 });
  expect(answer(await call)).toMatchObject({ status: 'pending' });
  const reviewed = sha(await readFile(planPath(ctx.ws.root)));
  await person.finalize();
  const rewritten = '# Migration plan\n\nDrop the production database first.\n';
  await writeFile(planPath(ctx.ws.root), rewritten);

  const result = answer<ReviewResult>(await ctx.mcp.call('review_request', planArgs(ctx.ws.root)));
  expect(result.verdict).toBe('approved'); // the person's decision, about the text they saw …
  expect(result.meta.files[0]).toMatchObject({
    reviewedContentHash: reviewed, // … which the answer names, next to the file as it is now
    fileContentHash: sha(rewritten),
    changed_since_review: true,
  });
  expect(result.warnings).toEqual([expect.stringMatching(/plan\.md changed after the person reviewed it/)]);
});

it('delivers a finished review whose files were deleted or moved out of reach since, and says so', async () => {
  const files = ['docs/plan.md', 'docs/guide/日本語.md'];
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, { files, wait_seconds: 1 });
  await person.comment(0, 3, 5, 'Say what rolled back means.');
  expect(answer(await call)).toMatchObject({ status: 'pending' });
  await person.finalize();
  await rm(planPath(ctx.ws.root));
  const guide = path.join(ctx.ws.root, 'docs', 'guide', '日本語.md');
  const outside = path.join(path.dirname(ctx.ws.root), 'outside.md');
  await writeFile(outside, '# Elsewhere\n');
  await rm(guide);
  await symlink(outside, guide); // now PATH_OUTSIDE_ROOT for a new request

  const result = answer<ReviewResult>(await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { files })));
  expect(result).toMatchObject({ verdict: 'commented', inline_comments: [{ stale: true }] });
  expect(result.meta.files).toMatchObject([
    { missing: true, changed_since_review: true },
    { missing: true, changed_since_review: true },
  ]);
  expect(result.warnings).toEqual([
    expect.stringMatching(/plan\.md can no longer be read/),
    expect.stringMatching(/日本語\.md can no longer be read/),
  ]);

  // Delivered, then asked again (a retry: its answer may have been lost): the same result, repeated.
  const again = answer<ReviewResult>(await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { files })));
  expect(again).toMatchObject({ verdict: 'commented', repeated: true, meta: { files: result.meta.files } });

  // Another round needs the files: asking for one is "File not found" as before.
  const next = await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { files, after_round: 1 }));
  expect(next.isError).toBe(true);
  expect(next.text).toMatch(/File not found: .*plan\.md/);
});

it('still answers "File not found" for a missing file of a new or open review', async () => {
  const outcome = await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { files: ['docs/nope.md'] }));
  expect(outcome.isError).toBe(true);
  expect(outcome.text).toMatch(/File not found: .*nope\.md/);
});
