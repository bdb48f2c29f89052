// Text-first answers, portable schemas and --structured-output, checked on the built server over stdio
// and with the official MCP Inspector CLI.
import { fileURLToPath } from 'node:url';
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
import { copyFixture, removeDir } from './helpers.js';

const BIN = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));
let dir: string;
let client: SpawnedClient | undefined;

beforeAll(async () => {
  dir = await copyFixture();
});
afterAll(async () => {
  await client?.close();
  await removeDir(dir);
});

/** One successful call of every tool, in both answer formats where the tool has them. */
const CALLS: ToolCallSpec[] = [
  { name: 'list_files', arguments: { extensions: ['ts'] } },
  { name: 'list_files', arguments: { count_only: true, output_format: 'json' } },
  { name: 'search_content', arguments: { query: 'TODO' } },
  { name: 'search_content', arguments: { query: 'TODO', group_by_file: true, output_format: 'json' } },
  { name: 'extract_code_section', arguments: { file_path: 'notes.txt', start_line: 1, end_line: 2 } },
  {
    name: 'extract_code_section',
    arguments: {
      requests: [{ file_path: 'notes.txt', sections: [{ start_line: 1 }, { start_line: 500 }] }],
      output_format: 'json',
    },
  },
  { name: 'check_code_scale', arguments: { file_path: 'src/ts/service.ts', include_details: true } },
  { name: 'analyze_code_structure', arguments: { file_path: 'src/py/inventory.py' } },
  { name: 'get_code_outline', arguments: { file_path: 'src/ts/service.ts', output_format: 'json' } },
  { name: 'query_code', arguments: { file_path: 'src/ts/service.ts', query_key: 'methods' } },
  { name: 'set_project_path', arguments: { project_path: '.' } },
];

describe('answers', () => {
  it('by default: one text block, no structuredContent, no outputSchema, portable 2020-12 input schemas', async () => {
    client = await spawnStdioClient(process.execPath, [BIN, '--root', dir]);
    const { tools } = await client.client.listTools();
    expect(tools.filter((t) => t.outputSchema)).toEqual([]);
    expect(toolSchemaProblems(tools)).toEqual([]);
    const out = await callTool(client.client, 'search_content', { query: 'TODO' });
    expect(out.raw.structuredContent).toBeUndefined();
    expect(out.raw.content).toHaveLength(1);
    expect(out.format).toBe('toon');
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
      expect(inspectedTools(run).length).toBe(8);
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
          'search_content',
          '--tool-args-json',
          JSON.stringify({ query: 'TODO' }),
        ],
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.result?.structuredContent).toMatchObject({ total_matches: expect.any(Number) });
  });
});
