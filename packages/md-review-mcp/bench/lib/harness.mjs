// Shared helpers of md-review's benchmarks: the built server behind a real MCP client, Chromium, timing.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory, spawnStdioClient } from '@mcp-workbench/core/testing';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = path.resolve(here, '../../dist');
export const CHROMIUM = process.env.MD_REVIEW_CHROMIUM ?? '/usr/bin/chromium';

/** The built server, rooted at `root`, whose launcher hands each review URL to `onOpen`. */
export async function connectServer(root, onOpen) {
  const { createServer } = await import(path.join(DIST, 'server.js'));
  const paths = await PathPolicy.create({ roots: [root] });
  const home = await mkdtemp(path.join(os.tmpdir(), 'md-review-bench-home-'));
  const launcher = { open: async (url) => (onOpen(url), { via: 'browser', detail: 'bench' }) };
  const connection = await connectInMemory(createServer({ paths, home, launcher, waitSeconds: 0 }));
  return { call: (name, args) => callTool(connection.client, name, args), close: connection.close };
}

/**
 * The built bin as a fresh process over stdio (--no-open), connected and initialized; `link()` waits for
 * the person's link it prints to stderr.
 */
export async function spawnServer(root) {
  const home = await mkdtemp(path.join(os.tmpdir(), 'md-review-bench-home-'));
  const session = await spawnStdioClient(
    process.execPath,
    [path.join(DIST, 'index.js'), '--root', root, '--no-open'],
    {
      env: { MD_REVIEW_HOME: home },
    },
  );
  return {
    call: (name, args) => callTool(session.client, name, args),
    async link() {
      for (;;) {
        const match = /is waiting for review at (\S+)/.exec(session.stderr());
        if (match) return match[1];
        await sleep(1);
      }
    },
    close: () => session.close(),
  };
}

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A plain static page server (the reference: what any page load costs in the same browser). */
export async function staticServer(html) {
  const server = createHttpServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/** A 5,000-line Markdown document of the usual kinds of blocks. */
export function bigDocument(lines = 5000) {
  const parts = [];
  for (let i = 0; parts.length < lines; i++) {
    parts.push(
      `## Section ${i}`,
      '',
      `Paragraph ${i} explains step ${i} of the rollout, with \`code\` and a [link](https://example.com/${i}).`,
      `It continues on a second line with **bold** and _emphasis_ ${i}.`,
      '',
    );
    if (i % 6 === 0) parts.push('- first item', '- second item', `- third item ${i}`, '');
    if (i % 10 === 0)
      parts.push(
        '```ts',
        `export function step${i}(input: string): number {`,
        `  return input.length * ${i};`,
        '}',
        '```',
        '',
      );
    if (i % 25 === 0)
      parts.push('| name | value |', '| --- | --- |', `| a${i} | ${i} |`, `| b${i} | ${i * 2} |`, '');
  }
  return `${parts.slice(0, lines).join('\n')}\n`;
}

export async function writeDoc(dir, name, text) {
  await writeFile(path.join(dir, name), text);
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

let failures = 0;

/** Prints one result line; `ok` false marks the benchmark as failed (non-zero exit). */
export function report(label, detail, ok) {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${label}: ${detail}`);
  if (!ok) failures++;
}

export function finish() {
  process.exitCode = failures === 0 ? 0 : 1;
}

export const fmt = (ms) => `${ms.toFixed(0)} ms`;
