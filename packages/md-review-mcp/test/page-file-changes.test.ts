// Audit defects 1, 5 and 8 in the page: it notices a file rewritten on disk and offers to reload it
// (and the server refuses to finalize what the person did not see), it follows another round however
// quickly it comes, and a file it may not read is that file's error, not an invalid link.
import { createHash } from 'node:crypto';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { answer } from './helpers.js';
import { skipReason, usePage } from './page-harness.js';

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const REWRITTEN = '# Migration plan\n\nDrop the production database first.\n';

describe.skipIf(skipReason !== undefined)('files that change under the page (Chromium)', () => {
  const ctx = usePage();
  const plan = () => path.join(ctx.ws.root, 'docs', 'plan.md');

  it('refuses to finalize a rewritten file, offers Reload, and then certifies the new text', async () => {
    const { call } = await ctx.review();
    const { page } = ctx;
    await writeFile(plan(), REWRITTEN);
    await page.click('#finalize');
    await page.click('.overlay [data-action=confirm]');
    // Refused by the server (or noticed first by the page's poll): either way, the page says so.
    await page.waitForSelector('.banner[data-kind="changed"] #reload-file');
    expect(await page.getAttribute('body', 'data-status')).toBe('open');
    await page.click('#reload-file');
    await page.waitForSelector('.doc :text("production")');
    await page.click('#finalize');
    await page.click('.overlay [data-action=confirm]');
    const result = answer<ReviewResult>(await call);
    expect(result.verdict).toBe('approved');
    expect(result.meta.files[0]).toMatchObject({
      fileContentHash: sha(REWRITTEN),
      reviewedContentHash: sha(REWRITTEN),
    });
  });

  it('notices a rewrite by itself while the person reads', async () => {
    await ctx.review({ wait_seconds: 1 });
    await writeFile(plan(), REWRITTEN);
    await ctx.page.waitForSelector('.banner[data-kind="changed"] #reload-file', { timeout: 8000 });
    expect(await ctx.page.textContent('.banner')).toContain('changed on disk');
  });

  it('shows the new round when the agent reopens within one poll of Finalize', async () => {
    const { call } = await ctx.review();
    const { page } = ctx;
    await page.click('#finalize');
    await page.click('.overlay [data-action=confirm]');
    expect(answer<ReviewResult>(await call).verdict).toBe('approved');
    // At once, before the page polls again: the agent edits the plan and asks for another round.
    await writeFile(plan(), (await readFile(plan(), 'utf8')) + '\nA fourth step.\n');
    const round2 = ctx.mcp.call('review_request', {
      resume_key: 'page-review',
      title: 'Plan review',
      root: ctx.ws.root,
      files: ['docs/plan.md'],
      working_path: ctx.ws.root,
      wait_seconds: 5,
    });
    round2.catch(() => undefined); // still waiting when the test ends
    await page.waitForSelector('.banner[data-kind="reopened"]', { timeout: 8000 });
    expect(await page.textContent('#round-note')).not.toContain('Unchanged');
    expect(await page.textContent('.doc')).toContain('A fourth step.');
  });

  it('shows an error for a file it may not read, and the rest of the review goes on', async () => {
    const { call } = await ctx.review({ files: ['docs/plan.md', 'docs/guide/日本語.md'] });
    const outside = path.join(path.dirname(ctx.ws.root), 'outside.md');
    await writeFile(outside, '# Not yours\n');
    const guide = path.join(ctx.ws.root, 'docs', 'guide', '日本語.md');
    await rm(guide);
    await symlink(outside, guide); // now outside the roots: the API answers 403 for this file only
    const { page } = ctx;
    await page.click('.files li:nth-child(2) button.file');
    await page.waitForSelector('.doc .file-error');
    expect(await page.getAttribute('body', 'data-status')).toBe('open');
    expect(await page.textContent('.doc')).not.toContain('Not yours');
    await page.click('.files li:nth-child(1) button.file');
    await page.waitForSelector('.row[data-start="3"]');
    await page.click('.row[data-start="3"] .ln');
    await page.fill('.composer textarea', 'Still reviewable.');
    await page.click('.composer button[type=submit]');
    await page.waitForSelector('.thread .comment');
    await page.click('#finalize');
    await page.click('.overlay [data-action=confirm]');
    expect(answer<ReviewResult>(await call).verdict).toBe('commented');
  });
});
