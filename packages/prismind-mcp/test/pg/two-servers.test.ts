import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeText, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';

const BIN = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const ROUNDS = 8;
const { url, kind } = serverUrl();

let store: StoreFixture;
beforeAll(async () => {
  store = await postgresStore(url);
});
afterAll(async () => store.cleanup());

async function call(client: SpawnedClient, name: string, args: Record<string, unknown>) {
  const result = await callTool(client.client, name, args);
  if (result.isError) throw new Error(`${name}: ${result.text}`);
  return decodeText(result.text);
}

describe(`two server processes on one PostgreSQL (${kind})`, () => {
  it('concurrent update_progress on the same task and appends to one document lose no update', async () => {
    const [a, b] = await Promise.all(
      [0, 1].map(() => spawnStdioClient(process.execPath, [BIN, '--root', store.home], { env: store.env })),
    );
    try {
      await call(a!, 'setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
      await call(a!, 'update_progress', {
        task_id: 'T01',
        new_task: { phase: 'Phase 1', task_id: 'T01', name: '罠の設計' },
      });
      await call(b!, 'switch_project', { project: 'trapxtrap' });
      const doc = await call(a!, 'create_document', {
        name: '共有メモ',
        doc_type: '設計書',
        content: '両サーバの追記',
        phase_task: '共通',
      });
      // Read-modify-write of one document from both servers, all at once: every append must survive.
      const appends = [a!, b!].flatMap((server, s) =>
        Array.from({ length: ROUNDS }, (_, i) =>
          call(server, 'update_document', { doc_id: doc.doc_id, content: `- s${s}-a${i}`, append: true }),
        ),
      );
      // Each server changes its own field of the same row, call after call, both at once. A read-modify-
      // write without locking would write back the other field's stale value now and then.
      await Promise.all([
        (async () => {
          for (let i = 0; i < ROUNDS; i++)
            await call(a!, 'update_progress', { task_id: 'T01', notes: `a${i}` });
        })(),
        (async () => {
          for (let i = 0; i < ROUNDS; i++)
            await call(b!, 'update_progress', { task_id: 'T01', blockers: [`b${i}`] });
        })(),
        (async () => {
          const priorities = ['high', 'low'];
          for (let i = 0; i < ROUNDS; i++)
            await call(b!, 'update_progress', { task_id: 'P1-T01', priority: priorities[i % 2] });
        })(),
        ...appends,
      ]);
      const text = (
        (await call(b!, 'get_document', { doc_id: doc.doc_id })) as { document: { content: string } }
      ).document.content;
      for (let s = 0; s < 2; s++) for (let i = 0; i < ROUNDS; i++) expect(text).toContain(`- s${s}-a${i}`);
      for (const server of [a!, b!]) {
        const progress = (await call(server, 'get_progress', { include_completed: true })) as {
          phases: { tasks: { notes: string; blockers: string[]; priority: string }[] }[];
        };
        expect(progress.phases[0]!.tasks[0]).toMatchObject({
          notes: `a${ROUNDS - 1}`,
          blockers: [`b${ROUNDS - 1}`],
          priority: ROUNDS % 2 === 0 ? 'low' : 'high',
        });
      }
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });
});
