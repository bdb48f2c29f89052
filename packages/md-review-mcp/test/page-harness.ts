// Shared by the page tests of the audit fixes: a real MCP Client drives review_request, a headless
// Chromium plays the person. Call `usePage()` at the top of a test file.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { launchChromium, whyNoBrowser } from './browser.js';
import { connect, eventually, workspace, type Connected } from './helpers.js';

export const skipReason = whyNoBrowser();

export interface PageContext {
  ws: Awaited<ReturnType<typeof workspace>>;
  mcp: Connected;
  page: Page;
  /** Starts review_request (plan.md unless `files` says otherwise) and opens the person's page. */
  review(extra?: Record<string, unknown>): Promise<{ call: ReturnType<Connected['call']>; url: string }>;
}

export function usePage(): PageContext {
  let browser: Browser;
  const ctx = {} as PageContext;
  beforeAll(async () => {
    if (!skipReason) browser = await launchChromium();
  });
  afterAll(async () => browser?.close());
  beforeEach(async () => {
    if (skipReason) return;
    ctx.ws = await workspace();
    ctx.mcp = await connect(ctx.ws.root, ctx.ws.home);
    ctx.page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    ctx.page.on('pageerror', (error) => {
      throw error;
    });
    ctx.review = async (extra = {}) => {
      const before = ctx.mcp.launcher.opened.length;
      const call = ctx.mcp.call('review_request', {
        resume_key: 'page-review',
        title: 'Plan review',
        root: ctx.ws.root,
        files: ['docs/plan.md'],
        working_path: ctx.ws.root,
        ...extra,
      });
      // A test that has what it needs before the call answers (wait_seconds: 1) ends, and closing the
      // client rejects the call; a test that awaits `call` still sees how it settles.
      call.catch(() => {});
      const url = await eventually(
        () => ctx.mcp.launcher.opened[before] ?? Promise.reject(new Error('not opened yet')),
      );
      await ctx.page.goto(url);
      await ctx.page.waitForSelector('body[data-ready="true"]');
      return { call, url };
    };
  });
  afterEach(async () => {
    if (skipReason) return;
    await ctx.page.close();
    await ctx.mcp.close();
    await ctx.ws.cleanup();
  });
  return ctx;
}
