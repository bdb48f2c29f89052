// The bin runs the build's bundle of the server (scripts/bundle-server.mjs) instead of its ~300 modules.
// Nothing the bundle holds may be loaded beside it: a second copy of this package's modules, of the SDK,
// zod or core (two ToolError classes: `instanceof` fails across them). The bundled modules find the page's
// files from their own URLs in dist/, so the page is opened in Chromium through the bin.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  callTool,
  spawnStdioClient,
  writeResolveHook,
  type ResolveLog,
  type SpawnedClient,
} from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, whyNoBrowser } from './browser.js';
import { eventually, linkIn, Person, workspace } from './helpers.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const DIST = pathToFileURL(path.dirname(BIN)).href + '/';
/** Packages the bundle holds, as Node would load them (core from the workspace or node_modules). */
const BUNDLED_PACKAGE = /\/node_modules\/(@modelcontextprotocol\/sdk|zod|ajv|env-paths)\/|\/core\/dist\//;

let ws: Awaited<ReturnType<typeof workspace>>;
let dir: string;
let hook: ResolveLog;
let server: SpawnedClient;

beforeAll(async () => {
  ws = await workspace();
  dir = await mkdtemp(path.join(os.tmpdir(), 'md-review-bundle-'));
  // A module hook that notes every module URL the server resolves.
  hook = await writeResolveHook(dir);
  server = await spawnStdioClient(
    process.execPath,
    ['--import', hook.register, BIN, '--root', ws.root, '--no-open', '--wait-seconds', '1'],
    { env: { MD_REVIEW_HOME: ws.home } },
  );
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
  await ws?.cleanup();
});

const request = (key: string) => ({
  resume_key: key,
  title: 'bundled',
  root: ws.root,
  files: ['docs/plan.md'],
  working_path: ws.root,
});

describe('the built bin', () => {
  it('runs the bundle, and loads none of what it holds beside it, through a review round', async () => {
    const key = (await callTool(server.client, 'session_new_id')).text;
    await callTool(server.client, 'review_request', request(key));
    const person = new Person(linkIn(server.stderr()));
    await person.comment(0, 3, 5, 'from the bundle', 'must');
    await person.finalize();
    const result = JSON.parse((await callTool(server.client, 'review_request', request(key))).text) as {
      verdict: string;
    };
    expect(result.verdict).toBe('commented');

    const urls = await hook.urls();
    const own = new Set(urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length)));
    expect([...own].sort()).toEqual(['index.js', 'stdio-bundle/stdio-server.js']);
    expect(urls.filter((url) => BUNDLED_PACKAGE.test(url))).toEqual([]);
    // `open` (the browser launcher, 14 modules) loads only when a review is opened in the browser.
    expect(urls.filter((url) => /\/node_modules\/open\//.test(url))).toEqual([]);
  });

  const skipReason = whyNoBrowser();
  it.skipIf(skipReason !== undefined)('serves the review page, which Chromium shows', async () => {
    await callTool(server.client, 'review_request', request('bundled-page'));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: Error[] = [];
      page.on('pageerror', (error) => errors.push(error));
      const response = await page.goto(await eventually(() => linkIn(server.stderr())));
      expect(response?.status()).toBe(200);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('.file-head .path').textContent()).toBe(path.join('docs', 'plan.md'));
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
