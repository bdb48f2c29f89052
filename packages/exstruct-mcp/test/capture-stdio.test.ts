// The built server draws sheet images on its job thread: the fonts and resvg's WebAssembly load there
// from the installed layout (dist/, fonts/), and the server keeps answering pings while it draws.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { FIXTURES } from './extract-helpers.js';

const bin = path.join(FIXTURES, '..', '..', 'dist', 'index.js');
let dir: string;
let client: SpawnedClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-capture-stdio-'));
  await copyFile(path.join(FIXTURES, 'gantt_chart__en__sample.xlsx'), path.join(dir, 'gantt.xlsx'));
  client = await spawnStdioClient(process.execPath, [bin, '--root', dir]);
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

it('draws every page of a sheet through the built server, answering pings meanwhile', async () => {
  const call = callTool<{ image_paths: string[]; warnings: string[] }>(
    client.client,
    'exstruct_capture_sheet_images',
    {
      xlsx_path: 'gantt.xlsx',
      dpi: 96,
    },
  );
  const started = performance.now();
  await client.client.ping();
  const ping = performance.now() - started;
  const result = await call;
  expect(result.isError, result.text).toBe(false);
  expect(result.structured.image_paths.map((p) => path.basename(p))).toEqual([
    '01_Project Schedule.png',
    '02_Project Schedule.png',
  ]);
  expect(result.structured.warnings.join(' ')).toMatch(/cut into 2 images/);
  for (const file of result.structured.image_paths) {
    const png = PNG.sync.read(await readFile(file));
    expect(png.width).toBeGreaterThan(400);
  }
  expect(ping).toBeLessThan(2000);
});
