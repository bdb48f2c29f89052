// The built binary over stdio: the editing tools work end to end in a real server process.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { readWorkbook } from './patch-helpers.js';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
let dir: string;
let client: SpawnedClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-edit-stdio-'));
  client = await spawnStdioClient(process.execPath, [bin, '--root', dir, '--on-conflict', 'rename']);
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

it('makes and patches a workbook through the built server, with the --on-conflict default', async () => {
  const made = await callTool<{ out_path: string }>(client.client, 'exstruct_make', {
    out_path: 'book.xlsx',
    ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 'hello' }],
  });
  expect(made.isError, made.text).toBe(false);
  const ops = [JSON.stringify({ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 'patched' })];
  const first = await callTool<{ out_path: string }>(client.client, 'exstruct_patch', {
    xlsx_path: 'book.xlsx',
    ops,
  });
  const second = await callTool<{ out_path: string; warnings: string[] }>(client.client, 'exstruct_patch', {
    xlsx_path: 'book.xlsx',
    ops,
  });
  expect(path.basename(first.structured.out_path)).toBe('book_patched.xlsx');
  expect(path.basename(second.structured.out_path)).toBe('book_patched_1.xlsx');
  expect((await readWorkbook(second.structured.out_path)).getWorksheet('Sheet1')!.getCell('A1').value).toBe(
    'patched',
  );
});
