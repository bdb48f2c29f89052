// Audit defect 4: an open comment box survives whatever redraws the comments — the last slices of a
// long document, adding a global comment — with its text and its focus, so typing never turns into
// shortcuts.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipReason, usePage } from './page-harness.js';

describe.skipIf(skipReason !== undefined)('the comment box stays open (Chromium)', () => {
  const ctx = usePage();

  it(
    'keeps the box, its text and the focus while a 5,000-line document is built',
    { timeout: 60_000 },
    async () => {
      const parts = ['# Long plan', ''];
      for (let i = 0; parts.length < 5000; i++) parts.push(`## Step ${i}`, '', `Paragraph ${i}.`, '');
      await writeFile(path.join(ctx.ws.root, 'docs', 'long.md'), parts.join('\n'));
      await ctx.review({ files: ['docs/long.md'], wait_seconds: 1 });
      const { page } = ctx;
      const theme = () => page.getAttribute('html', 'data-theme');
      const themeBefore = await theme();
      await page.click('.row[data-start="3"] .ln');
      // Type until every row exists (and a little after): the box must take every key.
      let typed = '';
      for (let i = 0; (await page.getAttribute('body', 'data-complete')) !== 'true' || i < 5; i++) {
        const word = `word${i} `;
        await page.keyboard.type(word);
        typed += word;
        if (i > 2000) throw new Error('the document never finished building');
      }
      expect(await page.locator('.composer-row').count()).toBe(1);
      expect(await page.inputValue('.composer textarea')).toBe(typed);
      expect(await page.evaluate("document.activeElement?.closest('.composer') !== null")).toBe(true);
      // No keystroke was taken as a shortcut (t: theme, s: source view).
      expect(await theme()).toBe(themeBefore);
      expect(await page.locator('.segmented button.on').first().textContent()).toBe('Rendered');
    },
  );

  it('keeps an open inline box and its text when a global comment is added', async () => {
    await ctx.review({ wait_seconds: 1 });
    const { page } = ctx;
    await page.click('.row[data-start="3"] .ln');
    await page.fill('.composer textarea', 'inline thought');
    await page.fill('#global-input', 'global thought');
    await page.click('.global-form button');
    await page.waitForSelector('.globals .comment');
    expect(await page.locator('.composer-row').count()).toBe(1);
    expect(await page.inputValue('.composer textarea')).toBe('inline thought');
    await page.click('.composer button[type=submit]');
    await page.waitForSelector('.thread .comment');
    expect(await page.locator('.composer-row').count()).toBe(0);
  });

  it('keeps an open global comment edit and its text when the sidebar is drawn again', async () => {
    await ctx.review({ wait_seconds: 1 });
    const { page } = ctx;
    await page.fill('#global-input', 'first take');
    await page.click('.global-form button');
    await page.click('.globals .comment .tools button:first-child');
    await page.fill('.globals .composer textarea', 'second, better take');
    // Marking the file reviewed changes the session: the sidebar is drawn again (as after a poll).
    await page.click('#reviewed');
    await page.waitForSelector('.files li[data-reviewed="true"]');
    expect(await page.inputValue('.globals .composer textarea')).toBe('second, better take');
    await page.click('.globals .composer button[type=submit]');
    await page.waitForSelector('.globals .comment .text');
    expect(await page.textContent('.globals .comment .text')).toBe('second, better take');
    expect(await page.locator('.globals .composer').count()).toBe(0);
  });
});
