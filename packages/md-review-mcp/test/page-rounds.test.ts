// Round 2 in the page: the comments kept from round 1 are marked with their round, the counts and the
// Finalize dialog speak of this round's comments (as the agent's answer does), and the person can approve.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { answer, eventually, Person } from './helpers.js';
import { shot } from './browser.js';
import { skipReason, usePage } from './page-harness.js';

describe.skipIf(skipReason !== undefined)('another round in the page (Chromium)', () => {
  const ctx = usePage();

  /** Round 1 with an inline, a global and an overall comment, then round 2 open in the page. */
  async function secondRound() {
    const { call, url } = await ctx.review();
    const person = new Person(url);
    await person.comment(0, 9, 9, 'Say how long dual-writing lasts.', 'must');
    await person.global('Add a timeline.');
    await person.finalize('Request changes.');
    expect(answer<ReviewResult>(await call)).toMatchObject({ verdict: 'commented' });

    const file = path.join(ctx.ws.root, 'docs', 'plan.md');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('both queues.', 'both queues for one week.'));
    const round2 = ctx.mcp.call('review_request', {
      resume_key: 'page-review',
      title: 'Plan review',
      root: ctx.ws.root,
      files: ['docs/plan.md'],
      working_path: ctx.ws.root,
    });
    await eventually(async () => expect((await person.session()).status).toBe('open'));
    await ctx.page.reload();
    await ctx.page.waitForSelector('body[data-ready="true"]');

    return { round2 }; // wrapped: an async function returning the call would wait for its answer
  }

  it("marks round 1's comments, counts this round's, and approves with no new comment", async () => {
    const { round2 } = await secondRound();
    const { page } = ctx;
    expect(await page.locator('.comment .earlier').allTextContents()).toEqual(['round 1', 'round 1']);
    expect(await page.textContent('.counts')).toBe('0 inline · 0 global · 2 from earlier rounds');
    expect(await page.inputValue('#overall-input')).toBe(''); // round 1's overall comment was about round 1
    await page.screenshot({ path: shot('round-2-kept-comments') });
    await page.click('#finalize');
    const dialog = await page.textContent('.overlay .dialog');
    expect(dialog).toContain('No new comments: the agent is told the document is approved.');
    expect(dialog).toContain('Comments from earlier rounds go along');
    await page.click('.overlay [data-action=confirm]');
    const result = answer<ReviewResult>(await round2);
    expect(result).toMatchObject({ round: 2, verdict: 'approved', summary: { earlier_comment_count: 2 } });
  });

  it("makes a kept comment the person edits this round's: its tag goes, it counts, it is not approved", async () => {
    const { round2 } = await secondRound();
    const { page } = ctx;
    await page.click('.thread .comment .tools button:first-child');
    await page.fill('.thread .composer textarea', 'Dual-writing is STILL unbounded — blocking.');
    await page.click('.thread .composer button[type=submit]');
    await page.waitForSelector('.thread .comment .text');
    expect(await page.locator('.comment .earlier').allTextContents()).toEqual(['round 1']); // the global one
    expect(await page.textContent('.counts')).toBe('1 inline · 0 global · 1 from earlier rounds');
    await page.click('#finalize');
    expect(await page.textContent('.overlay .dialog')).not.toContain('No new comments');
    await page.click('.overlay [data-action=confirm]');
    const result = answer<ReviewResult>(await round2);
    expect(result).toMatchObject({ round: 2, verdict: 'commented', summary: { inline_comment_count: 1 } });
  });
});
