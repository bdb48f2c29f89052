// The built server binary over stdio: extract and read back through a real MCP client in a separate process.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { FIXTURES } from './extract-helpers.js';

const bin = path.join(FIXTURES, '..', '..', 'dist', 'index.js');
let dir: string;
let client: SpawnedClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-read-stdio-'));
  await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), path.join(dir, 'basic.xlsx'));
  client = await spawnStdioClient(process.execPath, [bin, '--root', dir, '--on-conflict', 'skip']);
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

it('validates, extracts and reads a workbook through the built server', async () => {
  const valid = await callTool(client.client, 'exstruct_validate_input', { xlsx_path: 'basic.xlsx' });
  expect(valid.structured).toMatchObject({ is_readable: true });
  const extracted = await callTool<{ out_path: string }>(client.client, 'exstruct_extract', {
    xlsx_path: 'basic.xlsx',
    options: { alpha_col: true },
  });
  expect(extracted.isError, extracted.text).toBe(false);
  expect(extracted.structured.out_path).toBe(path.join(dir, 'basic.json'));
  const again = await callTool<{ warnings: string[] }>(client.client, 'exstruct_extract', {
    xlsx_path: 'basic.xlsx',
  });
  expect(again.structured.warnings.join(' ')).toContain('on_conflict=skip');
  const chunk = await callTool<{ chunk: { sheet: { rows: unknown; shapes: Array<{ kind: string }> } } }>(
    client.client,
    'exstruct_read_json_chunk',
    {
      out_path: 'basic.json',
      sheet: 'Sheet1',
      filter: { rows: [4, 4] },
    },
  );
  const page = chunk.structured.chunk;
  expect(page.sheet.rows).toEqual([{ r: 4, c: { B: '2025-01-01', C: 120, D: 80, E: 60 } }]);
  expect(page.sheet.shapes.filter((s: { kind: string }) => s.kind === 'arrow')).toHaveLength(11);
  const info = await callTool<{ default_on_conflict: string }>(
    client.client,
    'exstruct_get_runtime_info',
    {},
  );
  expect(info.structured.default_on_conflict).toBe('skip');
});
