// The bin started as `npx exstruct-mcp --root DIR` (no --on-conflict) replaces no file it did not write
// (issue 26 §2): each tool replaces only its own earlier output and writes name_1 beside anything else.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { FIXTURES, readWorkbook } from './patch-helpers.js';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
let dir: string;
let client: SpawnedClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-default-conflict-'));
  client = await spawnStdioClient(process.execPath, [bin, '--root', dir]);
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

it('without --on-conflict, extract, patch and make overwrite only their own earlier outputs', async () => {
  const call = <T>(name: string, args: Record<string, unknown>) => callTool<T>(client.client, name, args);
  await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), path.join(dir, 'book.xlsx'));
  await mkdir(path.join(dir, 'scripts'));
  const script = '#!/bin/sh\necho build\n';
  await writeFile(path.join(dir, 'scripts', 'build.sh'), script);
  await copyFile(path.join(FIXTURES, 'formula__formula.xlsx'), path.join(dir, 'other.xlsx'));
  const other = await readFile(path.join(dir, 'other.xlsx'));

  const info = await call<{ default_on_conflict: string }>('exstruct_get_runtime_info', {});
  expect(info.structured.default_on_conflict).toMatch(/^rename/);

  // The case of the audit: an extraction named like a script kept the script.
  const extracted = await call<{ out_path: string; warnings: string[] }>('exstruct_extract', {
    xlsx_path: 'book.xlsx',
    out_dir: 'scripts',
    out_name: 'build.sh',
    format: 'toon',
  });
  expect(extracted.isError, extracted.text).toBe(false);
  expect(path.basename(extracted.structured.out_path)).toBe('build_1.sh');
  expect(await readFile(path.join(dir, 'scripts', 'build.sh'), 'utf8')).toBe(script);

  // A patch onto another workbook keeps it; its own {name}_patched file is replaced by a re-run.
  const ops = [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 'patched' }];
  const onOther = await call<{ out_path: string; warnings: string[] }>('exstruct_patch', {
    xlsx_path: 'book.xlsx',
    out_name: 'other.xlsx',
    ops,
  });
  expect(onOther.isError, onOther.text).toBe(false);
  expect(path.basename(onOther.structured.out_path)).toBe('other_1.xlsx');
  expect(onOther.structured.warnings.join(' ')).toMatch(/other\.xlsx exists.*kept/);
  expect((await readFile(path.join(dir, 'other.xlsx'))).equals(other)).toBe(true);
  for (const value of ['first', 'second']) {
    const patched = await call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: 'book.xlsx',
      ops: [{ ...ops[0], value }],
    });
    expect(path.basename(patched.structured.out_path)).toBe('book_patched.xlsx');
  }
  const sheet = (await readWorkbook(path.join(dir, 'book_patched.xlsx'))).getWorksheet('Sheet1')!;
  expect(sheet.getCell('A1').value).toBe('second');

  // make writes a new workbook: an existing file at out_path is never its own.
  const made = await call<{ out_path: string }>('exstruct_make', { out_path: 'other.xlsx', ops });
  expect(path.basename(made.structured.out_path)).toBe('other_2.xlsx');
  expect((await readFile(path.join(dir, 'other.xlsx'))).equals(other)).toBe(true);
});
