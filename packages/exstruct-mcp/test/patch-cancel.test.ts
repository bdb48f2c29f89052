// A long patch gives the server turns while its ops run, so a cancel stops it there (issue 26 §2:
// six long formula ops once blocked the server 22 s and a cancel had no effect). The server runs in
// its own process (the built bin): in this one, its busy event loop would stall the test's timers too.
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { FIXTURES } from './patch-helpers.js';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
let dir: string;
let server: SpawnedClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-patch-cancel-'));
  server = await spawnStdioClient(process.execPath, [bin, '--root', dir]);
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

it('a cancel lands between ops: ping answers at once and nothing is written', async () => {
  await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), path.join(dir, 'book.xlsx'));
  const formula = `=${Array.from({ length: 400 }, (_, i) => `SUM(A${i + 1}:C${i + 1})`).join('+')}`;
  // The same cell each time: the time goes to the ops, not to writing their results.
  const ops = Array.from({ length: 200 }, () => ({
    op: 'set_formula',
    sheet: 'Sheet1',
    cell: 'E1',
    formula,
  }));
  const args = { xlsx_path: 'book.xlsx', ops };
  // How long the ops take uncancelled (a dry run writes nothing), measured the second time: the first
  // runs cold code, beside the extraction thread warming up at the server's start.
  let started = 0;
  let whole = 0;
  for (let i = 0; i < 2; i++) {
    started = performance.now();
    const dry = await callTool(server.client, 'exstruct_patch', { ...args, dry_run: true });
    expect(dry.isError, dry.text).toBe(false);
    whole = performance.now() - started;
  }

  const controller = new AbortController();
  const call = callTool(server.client, 'exstruct_patch', args, { signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, whole / 4));
  controller.abort('cancelled by the test');
  await expect(call).rejects.toThrow();
  started = performance.now();
  await server.client.ping();
  // Before: the ops ran to their end first (the ping waited out the rest of the patch).
  expect(performance.now() - started).toBeLessThan(whole / 4);
  expect(existsSync(path.join(dir, 'book_patched.xlsx'))).toBe(false);
}, 60_000);
