// Text-first answers, portable schemas and --structured-output, checked on the built server over stdio
// and with the official MCP Inspector CLI.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  callTool,
  inspectedTools,
  runInspectorCli,
  spawnStdioClient,
  structuredAnswerProblems,
  toolSchemaProblems,
  type SpawnedClient,
  type ToolCallSpec,
} from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Each test spawns the built server (and the Inspector spawns it again): room for a busy CI machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
import { FIXTURES } from './extract-helpers.js';

const BIN = path.join(FIXTURES, '..', '..', 'dist', 'index.js');
let dir: string;
let client: SpawnedClient | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-structured-'));
  await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), path.join(dir, 'basic.xlsx'));
  await copyFile(path.join(FIXTURES, 'formula__formula.xlsx'), path.join(dir, 'formula.xlsx'));
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

/** One successful call of every tool (in order: later calls read what earlier ones wrote). */
const CALLS: ToolCallSpec[] = [
  { name: 'exstruct_validate_input', arguments: { xlsx_path: 'basic.xlsx' } },
  { name: 'exstruct_extract', arguments: { xlsx_path: 'basic.xlsx', options: { alpha_col: true } } },
  { name: 'exstruct_extract', arguments: { xlsx_path: 'formula.xlsx', mode: 'verbose' } },
  { name: 'exstruct_read_json_chunk', arguments: { out_path: 'basic.json', sheet: 'Sheet1' } },
  { name: 'exstruct_read_range', arguments: { out_path: 'basic.json', sheet: 'Sheet1', range: 'A1:C5' } },
  { name: 'exstruct_read_cells', arguments: { out_path: 'basic.json', sheet: 'Sheet1', addresses: ['B4'] } },
  { name: 'exstruct_read_formulas', arguments: { out_path: 'formula.json', include_values: true } },
  { name: 'exstruct_get_runtime_info' },
  { name: 'exstruct_list_ops' },
  { name: 'exstruct_describe_op', arguments: { op: 'fill_formula' } },
  {
    name: 'exstruct_make',
    arguments: {
      out_path: 'made.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: '日本語' }],
    },
  },
  {
    name: 'exstruct_patch',
    arguments: {
      xlsx_path: 'made.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 42 }],
      dry_run: true,
      return_inverse_ops: true,
    },
  },
];

describe('answers', () => {
  it('by default: one text block, no structuredContent, no outputSchema, portable 2020-12 input schemas', async () => {
    client = await spawnStdioClient(process.execPath, [BIN, '--root', dir]);
    const { tools } = await client.client.listTools();
    expect(tools.filter((t) => t.outputSchema)).toEqual([]);
    expect(toolSchemaProblems(tools)).toEqual([]);
    const out = await callTool(client.client, 'exstruct_validate_input', { xlsx_path: 'basic.xlsx' });
    expect(out.raw.structuredContent).toBeUndefined();
    expect(out.raw.content).toHaveLength(1);
    expect(out.structured).toMatchObject({ is_readable: true });
    await client.close();
    client = undefined;
  });

  it('with --structured-output: every tool declares a portable output schema and every answer validates against it', async () => {
    client = await spawnStdioClient(process.execPath, [BIN, '--root', dir, '--structured-output']);
    expect(await structuredAnswerProblems(client.client, CALLS)).toEqual([]);
    await client.close();
    client = undefined;
  });
});

describe('MCP Inspector CLI', () => {
  it('lists the tools with no schema portability finding, with and without --structured-output', async () => {
    for (const extra of [[], ['--structured-output']]) {
      const run = await runInspectorCli('tools/list', process.execPath, [BIN, '--root', dir, ...extra]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(inspectedTools(run).length).toBe(12); // 11 + exstruct_capture_sheet_images (issue 27)
      expect(run.schemaFindings).toEqual([]);
    }
  });

  it('calls a tool and accepts the answer (its client validates structuredContent against outputSchema)', async () => {
    const run = await runInspectorCli(
      'tools/call',
      process.execPath,
      [BIN, '--root', dir, '--structured-output'],
      {
        inspectorArgs: [
          '--tool-name',
          'exstruct_validate_input',
          '--tool-args-json',
          JSON.stringify({ xlsx_path: 'basic.xlsx' }),
        ],
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.result?.structuredContent).toMatchObject({ is_readable: true });
  });
});
