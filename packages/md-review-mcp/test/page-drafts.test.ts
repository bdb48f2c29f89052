// Audit defects 2, 3 and 10 in the page: Finalize never drops text the person typed but did not add,
// its dialog does not call an overall comment an approval, and Escape asks before discarding a comment.
import { describe, expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { answer } from './helpers.js';
import { skipReason, usePage } from './page-harness.js';

describe.skipIf(skipReason !== undefined)('unsaved comments at Finalize (Chromium)', () => {
  const ctx = usePage();

  /** Types a global comment and an inline one (lines 3–5) without adding either. */
  async function typeDrafts() {
    const { page } = ctx;
    await page.fill('#global-input', 'Add a timeline.');
    await page.click('.row[data-start="3"] .ln');
    await page.fill('.composer textarea', 'Say what rolled back means.');
  }

  it('asks, and "Add them" sends both comments: commented, not approved', async () => {
    const { call } = await ctx.review();
    await typeDrafts();
    await ctx.page.click('#finalize');
    expect(await ctx.page.textContent('.overlay .dialog')).toContain('2 comment boxes hold text');
    await ctx.page.click('.overlay [data-action=save]');
    expect(await ctx.page.textContent('.overlay .dialog')).toContain('The agent receives 2 comments');
    await ctx.page.click('.overlay [data-action=confirm]');
    const result = answer<ReviewResult>(await call);
    expect(result).toMatchObject({
      verdict: 'commented',
      global_comments: [{ comment: 'Add a timeline.' }],
      inline_comments: [{ comment: 'Say what rolled back means.', range: { startLine: 3, endLine: 5 } }],
    });
  });

  it('Back keeps the texts and finalizes nothing; "Discard them" is an explicit choice', async () => {
    const { call } = await ctx.review();
    await typeDrafts();
    await ctx.page.click('#finalize');
    await ctx.page.click('.overlay [data-action=back]');
    expect(await ctx.page.inputValue('#global-input')).toBe('Add a timeline.');
    expect(await ctx.page.inputValue('.composer textarea')).toBe('Say what rolled back means.');
    expect(await ctx.page.getAttribute('body', 'data-status')).toBe('open');

    await ctx.page.click('#finalize');
    await ctx.page.click('.overlay [data-action=discard]');
    expect(await ctx.page.textContent('.overlay .dialog')).toContain('approved');
    await ctx.page.click('.overlay [data-action=confirm]');
    expect(answer<ReviewResult>(await call).verdict).toBe('approved');
  });

  it('does not call an overall comment alone an approval', async () => {
    const { call } = await ctx.review();
    await ctx.page.fill('#overall-input', 'これは全面的にやり直してください。承認しません。');
    await ctx.page.click('#finalize');
    const dialog = await ctx.page.textContent('.overlay .dialog');
    expect(dialog).not.toContain('approved');
    expect(dialog).toContain('overall comment');
    await ctx.page.click('.overlay [data-action=confirm]');
    expect(answer<ReviewResult>(await call).verdict).toBe('commented');
  });

  it('Escape in a comment box with text asks before discarding it', async () => {
    await ctx.review({ wait_seconds: 1 });
    await ctx.page.click('.row[data-start="3"] .ln');
    await ctx.page.fill('.composer textarea', 'half a thought');
    await ctx.page.keyboard.press('Escape');
    await ctx.page.waitForSelector('.overlay [data-action=confirm]');
    await ctx.page.keyboard.press('Escape'); // back: the text stays
    expect(await ctx.page.inputValue('.composer textarea')).toBe('half a thought');
    await ctx.page.keyboard.press('Escape');
    await ctx.page.click('.overlay [data-action=confirm]'); // discard
    expect(await ctx.page.locator('.composer-row').count()).toBe(0);
    // An empty box closes at once, as before.
    await ctx.page.click('.row[data-start="3"] .ln');
    await ctx.page.keyboard.press('Escape');
    expect(await ctx.page.locator('.composer-row, .overlay').count()).toBe(0);
  });
});
