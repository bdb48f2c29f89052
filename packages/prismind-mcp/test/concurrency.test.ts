import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeText, localBackend, type StoreFixture } from './harness.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const PROCESSES = 4;
const KNOWLEDGE_EACH = 12;
const APPENDS_EACH = 4;

let store: StoreFixture;
beforeAll(async () => {
  store = await localBackend.create();
});
afterAll(async () => store.cleanup());

async function call(client: SpawnedClient, name: string, args: Record<string, unknown>) {
  const result = await callTool(client.client, name, args);
  if (result.isError) throw new Error(`${name}: ${result.text}`);
  return decodeText(result.text);
}

describe('several server processes on one store (each MCP client starts its own)', () => {
  it('four processes writing at once lose no write and never fail with a busy database', async () => {
    const servers = await Promise.all(
      Array.from({ length: PROCESSES }, () =>
        spawnStdioClient(process.execPath, [BIN, '--root', store.home], { env: store.env }),
      ),
    );
    try {
      await call(servers[0]!, 'setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
      const shared = await call(servers[0]!, 'create_document', {
        name: '共有メモ',
        doc_type: '設計書',
        content: '各プロセスの追記',
        phase_task: '共通',
      });
      await Promise.all(
        servers.map(async (server, p) => {
          const work: Promise<unknown>[] = [];
          for (let i = 0; i < KNOWLEDGE_EACH; i++) {
            work.push(
              call(server, 'add_knowledge', {
                content: `プロセス${p}の知見${i}: 罠の同時書き込み`,
                category: '技術Tips',
                project: 'trapxtrap',
              }),
            );
          }
          work.push(
            call(server, 'update_progress', {
              task_id: `T${p}`,
              new_task: { phase: 'Phase 1', task_id: `T${p}`, name: `タスク${p}` },
            }),
          );
          work.push(
            call(server, 'create_document', {
              name: `設計${p}`,
              doc_type: '設計書',
              content: `プロセス${p}`,
              phase_task: '共通',
            }),
          );
          // Read-modify-write on one document from every process: each append must survive.
          for (let i = 0; i < APPENDS_EACH; i++) {
            work.push(
              call(server, 'update_document', {
                doc_id: shared.doc_id,
                content: `- p${p}-a${i}`,
                append: true,
              }),
            );
          }
          await Promise.all(work);
        }),
      );
      const check = servers[1]!;
      const found = await call(check, 'search_knowledge', { query: '同時書き込み', limit: 50 });
      expect(found.total_count).toBe(PROCESSES * KNOWLEDGE_EACH);
      const progress = (await call(check, 'get_progress', { include_completed: true })) as {
        phases: { tasks: unknown[] }[];
      };
      expect(progress.phases[0]!.tasks).toHaveLength(PROCESSES);
      expect((await call(check, 'search_catalog', { limit: 100 })).total_count).toBe(PROCESSES + 1);
      const doc = (await call(check, 'get_document', { doc_id: shared.doc_id })) as {
        document: { content: string };
      };
      for (let p = 0; p < PROCESSES; p++) {
        for (let i = 0; i < APPENDS_EACH; i++) expect(doc.document.content).toContain(`- p${p}-a${i}`);
      }
      for (const server of servers) expect(server.stderr()).not.toMatch(/SQLITE_BUSY|database is locked/);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
    // The WAL stays small (checkpointed and cut back), not one ever-growing file.
    const wal = path.join(store.home, 'prismind.db-wal');
    const size = (() => {
      try {
        return statSync(wal).size;
      } catch {
        return 0;
      }
    })();
    expect(size).toBeLessThan(8 * 1024 * 1024);
  });
});
