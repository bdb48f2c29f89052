import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { BACKENDS, connect, withProject, type StoreFixture } from './harness.js';

async function cli(store: StoreFixture, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: store.env,
  });
  return { code, stdout, stderr };
}

/**
 * What an agent sees of a project, without timestamps that differ between the two stores (and, where the
 * store assigns document ids — Google Docs ids — without those).
 */
async function answers(store: StoreFixture) {
  const client = await connect(store);
  const assigned = store.google ? ['doc_id', 'location', 'content_hash'] : [];
  try {
    const strip = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value, (k, v: unknown) =>
          k === 'started_at' || k === 'url' || k === 'doc_url' || k === 'message' || assigned.includes(k)
            ? undefined
            : v,
        ),
      ) as unknown;
    await client.call('switch_project', { project: 'trapxtrap' });
    return strip({
      progress: await client.call('get_progress', { include_completed: true }),
      catalog: await client.call('search_catalog', { limit: 100, status: 'all' }),
      search: await client.call('search_catalog', { query: '罠' }),
      knowledge: await client.call('search_knowledge', { query: '罠', limit: 10 }),
      general: await client.call('search_knowledge', { query: '命名', limit: 10 }),
      document: await client.call('get_document', { query: '罠の配置' }),
      session: await client.call('start_session', {}),
    });
  } finally {
    await client.close();
  }
}

describe.each(BACKENDS)('export and import ($name)', (backend) => {
  let from: StoreFixture;
  let to: StoreFixture;
  beforeEach(async () => {
    from = await backend.create();
    to = await backend.create();
  });
  afterEach(async () => {
    await from.cleanup();
    await to.cleanup();
  });

  it('export → import into an empty home gives the same answers', async () => {
    const client = await withProject(from);
    await client.call('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 1', task_id: 'T01', name: '罠の設計', priority: 'high', category: 'design' },
      status: 'in_progress',
    });
    await client.call('create_document', {
      name: '罠の配置',
      doc_type: '設計書',
      content: '罠は通路の中央に置く',
      phase_task: 'P1-T01',
      reference_timing: '設計時',
    });
    await client.call('create_document', {
      name: '罠の実装',
      doc_type: '実装手順書',
      content: '手順 1. トリガーを置く',
      phase_task: 'P1-T01',
      feature: 'Trap',
      asset_type: 'Blueprint',
    });
    await client.call('add_knowledge', {
      content: '罠の当たり判定はトリガーボリュームで作る',
      category: '技術Tips',
      project: 'trapxtrap',
      source: 'P1-T01 の実装',
    });
    await client.call('add_knowledge', {
      content: '命名は PascalCase に揃える',
      category: 'ベストプラクティス',
    });
    await client.call('start_session');
    await client.call('end_session', {
      summary: '罠の設計を完了',
      next_action: '実装に入る',
      notes: 'レビュー待ち',
    });
    await client.close();

    const dir = path.join(from.home, 'export');
    const exported = await cli(from, 'export', 'trapxtrap', dir);
    expect(exported).toMatchObject({ code: 0 });
    expect(exported.stdout).toContain('2 documents, 1 tasks, 2 knowledge entries');
    const imported = await cli(to, 'import', dir);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);

    expect(await answers(to)).toEqual(await answers(from));
    expect((await cli(to, 'import', dir)).code).toBe(1); // the project exists now
    expect((await cli(to, 'export', 'nothere', path.join(to.home, 'x'))).code).toBe(1);
    expect((await cli(to, 'export')).code).toBe(2);
  });
});
