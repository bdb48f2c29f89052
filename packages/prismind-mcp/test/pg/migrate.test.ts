import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { connect, localBackend, tempDir, withProject, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';

const { url: base, kind } = serverUrl();

async function cli(env: Record<string, string>, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

/** What an agent sees of the store, without what differs by nature between two stores. */
async function answers(store: StoreFixture) {
  const client = await connect(store);
  try {
    const strip = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value, (k, v: unknown) =>
          ['started_at', 'url', 'doc_url', 'message', 'source', 'location', 'storage'].includes(k)
            ? undefined
            : v,
        ),
      ) as unknown;
    await client.call('switch_project', { project: 'trapxtrap' });
    return strip({
      projects: await client.call('list_projects'),
      progress: await client.call('get_progress', { include_completed: true }),
      catalog: await client.call('search_catalog', { limit: 100, status: 'all' }),
      search: await client.call('search_catalog', { query: '罠' }),
      knowledge: await client.call('search_knowledge', { query: '罠', limit: 10 }),
      orphan: await client.call('search_knowledge', { query: '削除済み', limit: 10 }),
      document: await client.call('get_document', { query: '罠の配置' }),
      alice: await client.call('start_session', { user: 'alice' }),
    });
  } finally {
    await client.close();
  }
}

describe(`prismind-mcp migrate between the local folder and PostgreSQL (${kind})`, () => {
  let local: StoreFixture;
  let shared: StoreFixture;
  let back: string;
  beforeEach(async () => {
    local = await localBackend.create();
    shared = await postgresStore(base);
    back = await tempDir();
  });
  afterEach(async () => {
    try {
      await local.cleanup();
      await shared.cleanup();
    } finally {
      await rm(back, { recursive: true, force: true });
    }
  });

  it('--to postgres copies everything a person had alone; --to local brings it back', async () => {
    const client = await withProject(local);
    await client.call('setup_project', { project: 'gone', name: '消える計画', force: true });
    await client.call('add_knowledge', {
      content: '削除済みプロジェクトの知見',
      category: '技術Tips',
      project: 'gone',
    });
    await client.call('delete_project', { project: 'gone', confirm: true });
    await client.call('switch_project', { project: 'trapxtrap' });
    await client.call('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 1', task_id: 'T01', name: '罠の設計', priority: 'high' },
      status: 'in_progress',
    });
    await client.call('create_document', {
      name: '罠の配置',
      doc_type: '設計書',
      content: '罠はマップの端に置かない。',
      phase_task: 'P1-T01',
    });
    await client.call('add_knowledge', {
      content: '罠の判定はトリガーで作る',
      category: '技術Tips',
      project: 'trapxtrap',
    });
    await client.call('add_knowledge', { content: '罠の命名は動詞で始める', category: '規約' });
    await client.call('start_session', { user: 'alice' });
    await client.call('end_session', { summary: '罠の設計を始めた', next_action: '配置を決める' });
    await client.close();
    const before = await answers(local);

    const url = shared.env.PRISMIND_DATABASE_URL!;
    const up = await cli(local.env, 'migrate', '--to', 'postgres', '--url', url);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(
      /Copied 1 project\(s\) \(trapxtrap\): 1 documents, 1 tasks, 3 knowledge entries/,
    );
    expect(await answers(shared)).toEqual(before);

    // Again: nothing is duplicated, the project is reported as already there.
    const again = await cli(local.env, 'migrate', '--to', 'postgres', '--url', url);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Skipped (already in the target, left as they are): trapxtrap');
    expect(await answers(shared)).toEqual(before);

    const down = await cli(shared.env, 'migrate', '--to', 'local', '--home', back);
    expect(down.code, down.stderr).toBe(0);
    expect(await answers({ env: { PRISMIND_HOME: back }, home: back, cleanup: async () => {} })).toEqual(
      before,
    );

    expect((await cli(local.env, 'migrate', '--to', 'postgres')).code).toBe(2);
    expect((await cli(local.env, 'migrate', '--to', 'mysql', '--url', url)).code).toBe(2);
  });
});
