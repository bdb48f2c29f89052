import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeText, localBackend, type StoreFixture } from './harness.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const SPEC_TOOLS = [
  'setup_project',
  'switch_project',
  'list_projects',
  'update_project',
  'delete_project',
  'start_session',
  'end_session',
  'save_session',
  'get_document',
  'create_document',
  'update_document',
  'search_catalog',
  'sync_catalog',
  'get_progress',
  'update_progress',
  'add_knowledge',
  'search_knowledge',
];
/** The spec's tools, then the knowledge lifecycle's 更新/削除 (issue 23). */
const TOOLS = [...SPEC_TOOLS, 'update_knowledge'];

let store: StoreFixture;
beforeAll(async () => {
  store = await localBackend.create();
});
afterAll(async () => store.cleanup());

describe('the built bin over stdio', () => {
  it("lists the spec's 17 tools and update_knowledge with annotations, serves documents as resources, keeps state across restarts", async () => {
    const first = await spawnStdioClient(process.execPath, [BIN, '--root', store.home], { env: store.env });
    let docId: string;
    try {
      const { tools } = await first.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBeTypeOf('boolean');
        expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      }
      // Only tools that never write a file or the store say so: get_document and search_catalog take
      // hand edits in (the catalog, the views, a copied file's duplicate doc_id).
      expect(tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name)).toEqual([
        'list_projects',
        'get_progress',
        'search_knowledge',
      ]);
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await callTool(first.client, name, args);
        expect(result.isError, result.text).toBe(false);
        return decodeText(result.text);
      };
      await call('setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
      await call('start_session', {});
      const created = await call('create_document', {
        name: '罠システム設計',
        doc_type: '設計書',
        content: '## 罠の種類\n\n- 落とし穴\n- スパイク',
        phase_task: '共通',
      });
      docId = created.doc_id as string;
      await call('end_session', { summary: '罠の設計を書いた', next_action: 'スパイクの当たり判定' });

      const { resources } = await first.client.listResources();
      const uri = `prismind://documents/${docId}`;
      expect(resources.map((r) => r.uri)).toEqual(
        expect.arrayContaining([
          uri,
          'prismind://projects/trapxtrap/summary',
          'prismind://projects/trapxtrap/progress',
        ]),
      );
      const read = await first.client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
      expect((read.contents[0] as { text: string }).text).toContain('# 罠システム設計');
      const summary = await first.client.readResource({ uri: 'prismind://projects/trapxtrap/summary' });
      expect((summary.contents[0] as { text: string }).text).toContain('スパイクの当たり判定');
      await expect(first.client.readResource({ uri: 'prismind://documents/doc-missing' })).rejects.toThrow(
        /not found/i,
      );
    } finally {
      await first.close();
    }
    // A new process on the same home: nothing lost.
    const second = await spawnStdioClient(process.execPath, [BIN, '--root', store.home], { env: store.env });
    try {
      const result = decodeText((await callTool(second.client, 'start_session', {})).text);
      expect(result).toMatchObject({
        project: 'trapxtrap',
        last_summary: '罠の設計を書いた',
        next_action: 'スパイクの当たり判定',
      });
    } finally {
      await second.close();
    }
    expect(second.stderr()).not.toMatch(/error/i);
  });

  it('answers every tool with CONFIG_INVALID naming the key when config.toml is broken', async () => {
    const config = path.join(store.home, 'broken.toml');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(config, '[session]\nauto_save_intervall = 5\n'),
    );
    const session = await spawnStdioClient(process.execPath, [BIN, '--config', config], { env: store.env });
    try {
      const result = await callTool(session.client, 'list_projects', {});
      expect(result.isError).toBe(true);
      const error = (decodeText(result.text) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('session.auto_save_intervall');
    } finally {
      await session.close();
    }
  });

  it('prints the AGENTS.md block, exports and imports from the command line', async () => {
    const env = { ...process.env, ...store.env };
    const { stdout } = await run(process.execPath, [BIN, 'init-agents'], { env });
    expect(stdout).toContain('TrapxTrapCpp');
    expect(stdout).toContain('start_session');
    expect(stdout).toContain('Prismind から取得せよ');

    const out = path.join(store.home, 'export');
    const exported = await run(process.execPath, [BIN, 'export', 'trapxtrap', out], { env });
    expect(exported.stdout).toMatch(/Exported trapxtrap: 1 documents/);
    const json = JSON.parse(await readFile(path.join(out, 'prismind-export.json'), 'utf8')) as {
      format: string;
    };
    expect(json.format).toBe('prismind-export');

    const again = await run(process.execPath, [BIN, 'import', out], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(again).toMatchObject({ code: 1 });
    expect((again as { stderr: string }).stderr).toContain('ALREADY_EXISTS');
    const usage = await run(process.execPath, [BIN, 'export', 'trapxtrap'], { env }).catch(
      (e: { code: number }) => e,
    );
    expect(usage).toMatchObject({ code: 2 });
  });
});
