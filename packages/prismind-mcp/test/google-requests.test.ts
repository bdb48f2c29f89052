/**
 * How many HTTP requests each tool makes on the Google backend (against the fake, which counts them):
 * the goals (start_session ≤ 3, update_progress ≤ 2) are checked, and no tool may turn into a
 * request per row or per cell. `pnpm bench google` prints the table (PRISMIND_PRINT_REQUESTS=1).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { googleBackend, withProject, type Connected, type StoreFixture } from './harness.js';
import type { FakeGoogle } from './google-fake/server.js';

let store: StoreFixture;
let google: FakeGoogle;
let client: Connected | undefined;

beforeEach(async () => {
  store = await googleBackend.create();
  google = store.google!;
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await store.cleanup();
});

describe('Google backend: requests per tool call', () => {
  it('stays within the request budget for every tool, however much the project holds', async () => {
    const c = (client = await withProject(store));
    // A project with some history: 12 tasks in 3 phases, 6 documents, 5 knowledge entries, a session.
    for (let phase = 1; phase <= 3; phase++) {
      for (let task = 1; task <= 4; task++) {
        const id = `T${phase}${task}`;
        await c.call('update_progress', {
          task_id: id,
          new_task: { phase: `Phase ${phase}`, task_id: id, name: `タスク${phase}-${task}` },
          ...(phase === 1 ? { status: 'completed' } : {}),
        });
      }
    }
    const docs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const doc = await c.call<{ doc_id: string }>('create_document', {
        name: `設計${i}`,
        doc_type: i % 2 ? '設計書' : '仕様書',
        content: `## 概要\n\n罠 ${i} の配置と効果。\n\n- 手順 1\n- 手順 2\n`,
        phase_task: 'P2-T21',
      });
      docs.push(doc.doc_id);
    }
    for (let i = 0; i < 5; i++) {
      await c.call('add_knowledge', { content: `落とし穴 ${i} は通路の中央に置く`, category: 'tips' });
    }
    await c.call('start_session', { user: 'alice' });
    await c.call('end_session', { next_action: '続き' });

    const calls: [string, Record<string, unknown>][] = [
      ['list_projects', {}],
      ['switch_project', { project: 'trapxtrap' }],
      ['start_session', { user: 'alice' }],
      ['get_progress', {}],
      ['update_progress', { task_id: 'T21', status: 'in_progress' }],
      ['update_progress', { task_id: 'T29', new_task: { phase: 'Phase 2', task_id: 'T29', name: '追加' } }],
      ['search_catalog', { query: '罠' }],
      ['get_document', { doc_id: docs[0] }],
      ['create_document', { name: '新設計', doc_type: '設計書', content: '本文', phase_task: '共通' }],
      ['update_document', { doc_id: docs[1], content: '追記', append: true }],
      ['update_document', { doc_id: docs[1], content: '全面改訂' }],
      ['add_knowledge', { content: '罠は 2 マス', category: 'tips' }],
      ['search_knowledge', { query: '罠' }],
      ['save_session', { next_action: '次' }],
      ['end_session', { next_action: '次の次' }],
      ['update_project', { project: 'trapxtrap', description: '改訂' }],
      ['sync_catalog', {}],
      ['setup_project', { project: 'other', name: 'OtherGame' }],
      ['delete_project', { project: 'other', confirm: true }],
    ];
    const table: [string, number][] = [];
    for (const [tool, args] of calls) {
      const before = google.log.length;
      await c.call(tool, args);
      table.push([tool, google.apiRequests(before).length]);
    }
    if (process.env.PRISMIND_PRINT_REQUESTS) {
      console.log(
        [
          '| tool call | HTTP requests |',
          '| --- | --- |',
          ...table.map(([t, n]) => `| \`${t}\` | ${n} |`),
        ].join('\n'),
      );
    }
    const most = (tool: string) => Math.max(...table.filter(([t]) => t === tool).map(([, n]) => n));
    expect(most('start_session')).toBeLessThanOrEqual(3);
    expect(most('update_progress')).toBeLessThanOrEqual(2);
    // 12 tasks, 7 documents: a request per row or per document would exceed this on every tool.
    // setup_project finds or makes each folder (look, create, re-check) and the spreadsheet once: more
    // requests, but as many for an empty project as for a full one.
    for (const [tool, n] of table) expect(n, tool).toBeLessThanOrEqual(tool === 'setup_project' ? 16 : 6);
  });
});
