// End to end in a real headless Chromium: the agent calls review_request through an MCP client, the
// person works in the page, and the tool's answer reflects what they did.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { launchChromium, shot, whyNoBrowser } from './browser.js';
import { answer, connect, eventually, Person, workspace, type Connected } from './helpers.js';

const skipReason = whyNoBrowser();
if (skipReason) console.warn(`e2e tests skipped: ${skipReason}`);

type Answer = ReviewResult & { status?: string; url?: string };

describe.skipIf(skipReason !== undefined)('the review page in Chromium', () => {
  let browser: Browser;
  let ws: Awaited<ReturnType<typeof workspace>>;
  let mcp: Connected;
  let page: Page;

  beforeAll(async () => {
    // rebind.test resolves to 127.0.0.1: a DNS-rebinding attacker's name for the review server.
    browser = await launchChromium(['--host-resolver-rules=MAP rebind.test 127.0.0.1']);
  });
  afterAll(async () => browser?.close());
  beforeEach(async () => {
    ws = await workspace();
    mcp = await connect(ws.root, ws.home);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => {
      throw error;
    });
  });
  afterEach(async () => {
    await page.close();
    await mcp.close();
    await ws.cleanup();
  });

  const request = (extra: Record<string, unknown> = {}, client = mcp) => {
    const before = client.launcher.opened.length;
    const call = client.call('review_request', {
      resume_key: 'e2e-review',
      title: 'Migration plan review',
      root: ws.root,
      files: ['docs/plan.md', 'docs/guide/日本語.md'],
      working_path: ws.root,
      ...extra,
    });
    const url = eventually(
      () => client.launcher.opened[before] ?? Promise.reject(new Error('not opened yet')),
    );
    return { call, url };
  };

  const open = async (url: string) => {
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
  };

  it('select lines 3–5, a must comment, a global comment, reviewed, Finalize → the tool result matches', async () => {
    const { call, url } = request();
    await open(await url);
    expect(await page.locator('.file-head .path').textContent()).toBe(path.join('docs', 'plan.md'));

    await page.click('.row[data-start="3"] .ln'); // the paragraph on lines 3–5
    expect(await page.locator('.composer-head strong').textContent()).toBe('Comment on lines 3–5');
    await page.fill('.composer textarea', 'Say what "rolled back" means for the data already moved.');
    await page.selectOption('.composer select', 'must');
    await page.click('.composer button[type=submit]');
    await page.waitForSelector('.thread .comment.sev-must');

    await page.fill('#global-input', 'Add a timeline with owners.');
    await page.click('.global-form button');
    await page.waitForSelector('.globals .comment');
    await page.check('#reviewed');
    await page.fill('#overall-input', 'Clear plan; one gap.');
    await page.screenshot({ path: shot('review-light'), fullPage: false });
    await page.click('#theme');
    await page.screenshot({ path: shot('review-dark'), fullPage: false });

    await page.click('#finalize');
    await page.click('.dialog [data-action=confirm]');
    await page.waitForSelector('body[data-status="finalized"]');
    const result = answer<Answer>(await call);
    expect(result).toMatchObject({
      verdict: 'commented',
      summary: {
        overall_comment: 'Clear plan; one gap.',
        comment_count: 2,
        inline_comment_count: 1,
        global_comment_count: 1,
      },
      inline_comments: [
        {
          file: path.join('docs', 'plan.md'),
          range: { startLine: 3, endLine: 5 },
          severity: 'must',
          comment: 'Say what "rolled back" means for the data already moved.',
          anchor: {
            preview: expect.stringMatching(/^The service moves .*\nEach step .*\nNothing is deleted/),
          },
        },
      ],
      global_comments: [{ comment: 'Add a timeline with owners.' }],
      meta: { reviewed_files: [path.join('docs', 'plan.md')] },
    });
    // Finalized: the page is read-only now.
    expect(await page.locator('#finalize').isDisabled()).toBe(true);
  });

  it('Japanese, tables and code: source view with click/shift-click and drag, keyboard shortcuts, Cancel', async () => {
    const { call, url } = request({ instructions: '1. 用語の統一\n2. 表の担当者' });
    // Scripts the page loads: highlight.js only for a document with code, and only its languages.
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(path.basename(new URL(r.url()).pathname));
    });
    await open(await url);
    expect(scripts.filter((s) => /^(core|common|typescript)-/.test(s))).toEqual([]);
    await page.click('.files li:nth-child(2) button.file');
    await page.waitForSelector('body[data-file="1"]');
    expect(await page.locator('.doc table td').first().textContent()).toBe('認証');
    await page.waitForSelector('.doc pre code .hljs-keyword');
    expect(await page.locator('.doc pre code .hljs-keyword').first().textContent()).toBe('export');
    expect(scripts.filter((s) => /^(core|common|typescript|javascript|python)-/.test(s)).sort()).toEqual([
      expect.stringMatching(/^core-/),
      expect.stringMatching(/^typescript-/),
    ]);
    expect(await page.locator('.instructions .pre').textContent()).toBe('1. 用語の統一\n2. 表の担当者');

    await page.keyboard.press('s'); // source view: one row per line
    await page.waitForSelector('.row[data-start="17"]');
    await page.click('.row[data-start="6"] .ln');
    await page.click('.row[data-start="9"] .ln', { modifiers: ['Shift'] });
    expect(await page.locator('.composer-head strong').textContent()).toBe('Comment on lines 6–9');
    await page.fill('.composer textarea', '課金の担当者は未定では？');
    await page.selectOption('.composer select', 'question');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.thread .comment.sev-question');

    // Drag along the gutter from line 11 to line 13.
    await page.hover('.row[data-start="11"] .ln');
    await page.mouse.down();
    await page.hover('.row[data-start="12"] .ln');
    await page.hover('.row[data-start="13"] .ln');
    await page.mouse.up();
    expect(await page.locator('.composer-head strong').textContent()).toBe('Comment on lines 11–13');
    await page.keyboard.press('Escape');
    expect(await page.locator('.composer').count()).toBe(0);

    // Keyboard: j selects the first line, c opens the box.
    await page.keyboard.press('j');
    await page.keyboard.press('c');
    await page.keyboard.type('タイトルを英語でも。');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.thread[data-after="0"] .comment');

    await page.setViewportSize({ width: 390, height: 800 });
    // No sideways scrolling on a phone-sized window (a string: the test's tsconfig has no DOM types).
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')).toBe(true);
    await page.screenshot({ path: shot('review-narrow-ja') });

    await page.click('#cancel');
    await page.click('.dialog [data-action=confirm]');
    const result = answer<Answer>(await call);
    expect(result.verdict).toBe('cancelled');
    expect(
      result.inline_comments.map((c) => [c.file, c.range.startLine, c.range.endLine, c.severity]),
    ).toEqual([
      [path.join('docs', 'guide', '日本語.md'), 1, 1, 'should'],
      [path.join('docs', 'guide', '日本語.md'), 6, 9, 'question'],
    ]);
  });

  it('resumes after a server restart: the comment is back on a new page URL', async () => {
    const first = request({ wait_seconds: 2 });
    await open(await first.url);
    await page.click('.row[data-start="7"] .ln');
    await page.fill('.composer textarea', 'Name the queues.');
    await page.click('.composer button[type=submit]');
    await page.waitForSelector('.thread .comment');
    expect(answer<Answer>(await first.call).status).toBe('pending');
    await mcp.close();

    mcp = await connect(ws.root, ws.home);
    const second = request();
    const url = await second.url;
    expect(url).not.toBe(await first.url);
    await open(url);
    expect(await page.locator('.thread .comment .text').textContent()).toBe('Name the queues.');
    await page.click('#finalize');
    await page.click('.dialog [data-action=confirm]');
    expect(answer<Answer>(await second.call).inline_comments).toMatchObject([
      { comment: 'Name the queues.', range: { startLine: 7, endLine: 7 } },
    ]);
  });

  it('renders a 5,000-line document and takes a comment near its end', { timeout: 60_000 }, async () => {
    const parts: string[] = [];
    for (let i = 0; parts.length < 5000; i++) {
      parts.push(
        `## Section ${i}`,
        '',
        `Paragraph ${i} explains step ${i} of the rollout in some detail.`,
        `It continues on a second line ${i}.`,
        '',
      );
      if (i % 10 === 0) parts.push('```ts', `const step${i} = ${i};`, '```', '');
      if (i % 25 === 0) parts.push('| a | b |', '| - | - |', `| ${i} | ${i * 2} |`, '');
    }
    // A reference link used at the top and defined at the end: the first screen is built from the
    // document's head, and must be rebuilt when the whole document reads differently.
    parts.unshift('See [the spec][spec].', '');
    // Cut before a section heading (never inside a code fence), pad to 4,999 lines, define the link last.
    const body = parts.slice(
      0,
      parts.findLastIndex((line, i) => i < 4999 && line.startsWith('## Section')),
    );
    while (body.length < 4999) body.push('');
    const text = [...body, '[spec]: https://example.com/spec'].join('\n') + '\n';
    await writeFile(path.join(ws.root, 'docs', 'big.md'), text);
    const { call, url } = request({ resume_key: 'big', files: ['docs/big.md'] });
    await open(await url); // how fast: bench/page.bench.mjs (a test does not time things)
    await page.waitForSelector('body[data-complete="true"]'); // the rest is built in slices
    expect(await page.locator('.row').count()).toBeGreaterThan(1500);
    expect(await page.locator('.row[data-start="1"] a').getAttribute('href')).toBe(
      'https://example.com/spec',
    );
    const lines = text.split('\n');
    const start = lines.findLastIndex((line) => line.startsWith('Paragraph')) + 1;
    expect(start).toBeGreaterThan(4900);
    await page.click(`.row[data-start="${start}"] .ln`);
    await page.fill('.composer textarea', 'late in the document');
    await page.click('.composer button[type=submit]');
    await page.waitForSelector('.thread .comment');
    await page.click('#finalize');
    await page.click('.dialog [data-action=confirm]');
    const result = answer<Answer>(await call);
    expect(result.inline_comments[0]!.range).toEqual({ startLine: start, endLine: start + 1 });
    expect(result.meta.files[0]!.lineCount).toBe(5000);
  });

  it('renders aligned columns, wrapped long lines, task lists and Mermaid diagrams (loaded only when needed)', async () => {
    const long = 'x'.repeat(400);
    const lines = [
      '# Rendering', // 1
      '',
      '| left | centre | right |', // 3
      '| :--- | :----: | ----: |',
      '| a | b | 1 |',
      '| aa | bb | 22 |', // 6
      '',
      '- [ ] open task', // 8
      '- [x] done task',
      '',
      long, // 11
      '',
      '```text', // 13
      long,
      '```',
      '',
      '```mermaid', // 17
      'flowchart LR',
      '  A[Plan] --> B{Review}',
      '  B -->|ok| C[Ship]',
      '```', // 21
      '',
      'After.', // 23
    ];
    await writeFile(path.join(ws.root, 'docs', 'render.md'), `${lines.join('\n')}\n`);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const { call, url } = request({ resume_key: 'render', files: ['docs/plan.md', 'docs/render.md'] });
    await open(await url);
    await page.waitForSelector('body[data-complete="true"]');
    expect(requests.filter((r) => /mermaid/i.test(r))).toEqual([]); // a document without a diagram
    await page.click('.files li:nth-child(2) button.file');
    await page.waitForSelector('body[data-file="1"]');
    // Alignment through classes (markdown-it's inline style is blocked by the CSP).
    expect(
      await page.evaluate(
        '[...document.querySelectorAll(".doc td")].map((td) => getComputedStyle(td).textAlign)',
      ),
    ).toEqual(['left', 'center', 'right', 'left', 'center', 'right']);
    // Task lists: read-only checkboxes, no "[ ]" text.
    expect(
      await page.evaluate(
        '[...document.querySelectorAll(".doc input[type=checkbox]")].map((b) => [b.disabled, b.checked])',
      ),
    ).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(await page.locator('.doc').textContent()).not.toContain('[ ]');
    // The long line wraps; the long code line scrolls inside its block; the page never scrolls sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    const paragraph = page.locator('.row[data-start="11"] p');
    expect(await paragraph.evaluate((p) => p.scrollWidth <= p.clientWidth)).toBe(true);
    expect(
      await page.locator('.row[data-start="13"] pre').evaluate((pre) => pre.scrollWidth > pre.clientWidth),
    ).toBe(true);
    // The diagram is drawn as an image of its SVG; its lines stay one commentable block.
    const diagram = page.locator('.row[data-start="17"] figure.diagram img');
    await diagram.waitFor({ timeout: 20_000 });
    expect(
      await page.evaluate(
        'document.querySelector(\'.row[data-start="17"] figure.diagram img\').naturalWidth > 100',
      ),
    ).toBe(true);
    expect(await diagram.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(requests.some((r) => /mermaid/i.test(r))).toBe(true);
    await page.screenshot({ path: shot('rendering') });
    await page.click('.row[data-start="17"] .ln');
    expect(await page.locator('.composer-head strong').textContent()).toBe('Comment on lines 17–21');
    await page.fill('.composer textarea', 'Add the rollback path.');
    await page.click('.composer button[type=submit]');
    await page.waitForSelector('.thread .comment');
    await page.keyboard.press('s'); // Source view: each line of the diagram on its own row
    await page.click('.row[data-start="19"] .ln');
    expect(await page.locator('.composer-head strong').textContent()).toBe('Comment on line 19');
    await page.click('#cancel');
    await page.click('.dialog [data-action=confirm]');
    const result = answer<Answer>(await call);
    expect(result.inline_comments[0]).toMatchObject({ range: { startLine: 17, endLine: 21 } });
  });

  it('another round: changed lines marked, stale comments with their old text, inline and side-by-side diff', async () => {
    const first = request({ files: ['docs/plan.md'] });
    const link = await first.url;
    const person = new Person(link);
    await person.comment(0, 3, 3, 'moves down', 'should');
    await person.comment(0, 4, 4, 'rewritten line', 'must');
    await person.finalize();
    await first.call;
    const file = path.join(ws.root, 'docs', 'plan.md');
    const reviewed = await readFile(file, 'utf8');
    await writeFile(
      file,
      reviewed
        .replace('# Migration plan\n', '# Migration plan\n\nIntro.\n')
        .replace('Each step can be rolled back on its own.', 'Each step is reversible.'),
    );
    // Round 2 in the same server: the page's link is the same (the window was seen: no second one).
    const second = mcp.call('review_request', {
      resume_key: 'e2e-review',
      title: 'Migration plan review',
      root: ws.root,
      files: ['docs/plan.md'],
      working_path: ws.root,
    });
    await eventually(async () => expect((await person.session()).status).toBe('open'));
    await open(link);
    expect(await page.locator('#round-note').textContent()).toMatch(/Changed since last round: \+\d+ −\d+/);
    expect(await page.locator('.row.changed').count()).toBeGreaterThan(0);
    const stale = page.locator('.comment.is-stale');
    expect(await stale.locator('.text').textContent()).toBe('rewritten line');
    expect(await stale.locator('.was').textContent()).toBe('Each step can be rolled back on its own.');
    expect(await page.locator('.comment:not(.is-stale) .moved').count()).toBe(1);
    await page.click('.segmented button:has-text("Changes")');
    await page.waitForSelector('.diff-inline');
    expect(await page.locator('.diff-row.added code').allTextContents()).toContain(
      'Each step is reversible.',
    );
    expect(await page.locator('.diff-row.removed code').allTextContents()).toContain(
      'Each step can be rolled back on its own.',
    );
    await page.click('.changes-head button:has-text("Side by side")');
    await page.waitForSelector('.diff-split .diff-side.removed');
    await page.screenshot({ path: shot('round-2-changes') });
    await person.finalize();
    const result = answer<Answer>(await second);
    expect(result.meta.files[0]).toMatchObject({ changed: true });
  });

  it('refuses a wrong token, another Host (DNS rebinding) and requests from another origin', async () => {
    const { call, url } = request();
    const reviewUrl = new URL(await url);
    const person = new Person(reviewUrl.href);

    await page.goto(reviewUrl.href.replace(/#token=.*/, '#token=wrong'));
    await page.waitForSelector('body[data-status="invalid"]');
    expect(await page.locator('.banner').textContent()).toContain('not valid');

    // The address the agent has (no key): the page says where the person's link is and takes it pasted.
    await page.goto(reviewUrl.href.replace(/#token=.*/, ''));
    await page.waitForSelector('body[data-status="needs-key"]');
    expect(await page.locator('.needs-key').textContent()).toContain('npx md-review-mcp link');
    await page.fill('#link-input', 'http://example.com/review/x#token=abc');
    await page.click('.paste button');
    expect(await page.locator('.needs-key .problem').textContent()).toContain('not a review link');
    await page.fill('#link-input', reviewUrl.href);
    await page.click('.paste button');
    await page.waitForSelector('body[data-ready="true"]');

    const rebound = await page.goto(reviewUrl.href.replace('127.0.0.1', 'rebind.test'));
    expect(rebound?.status()).toBe(421);

    // A page on another origin that knows the token still cannot use the API.
    const other: Server = createHttpServer((_req, res) => res.end('<!doctype html><title>other</title>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const outcome = await page.evaluate(
        async ({ api, token }) => {
          const results: string[] = [];
          try {
            const r = await fetch(api, {
              method: 'POST',
              headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ comment: 'forged' }),
            });
            results.push(`cors:${r.status}`);
          } catch {
            results.push('cors:blocked');
          }
          await fetch(api, { method: 'POST', mode: 'no-cors', body: '{"comment":"forged"}' }).catch(
            () => undefined,
          );
          return results;
        },
        { api: `${reviewUrl.origin}/api/sessions/${person.key}/global-comments`, token: person.token },
      );
      expect(outcome).toEqual(['cors:blocked']);
    } finally {
      other.close();
    }
    expect((await person.session()).revision).toBeGreaterThanOrEqual(0);
    expect((await person.send<{ global_comments: unknown[] }>('GET', '')).global_comments).toEqual([]);
    await person.cancel();
    await call;
  });
});
