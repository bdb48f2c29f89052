import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { BACKENDS, connect, localBackend, tempDir, withProject, type StoreFixture } from './harness.js';

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
    try {
      await from.cleanup();
    } finally {
      await to.cleanup();
    }
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

describe('import of a hand-made or hostile export', () => {
  it('writes only into the declared project, reads no link, and merges only when asked', async () => {
    const store = await localBackend.create();
    const outside = await tempDir('prismind-outside-');
    try {
      // The victim: a project with a saved next_action and a document.
      const client = await withProject(store);
      await client.call('start_session');
      await client.call('end_session', { next_action: '本来の次の作業' });
      await client.call('create_document', {
        name: '本物',
        doc_type: '設計書',
        content: '本物',
        phase_task: '共通',
      });
      await client.close();
      const dir = path.join(store.home, 'export-src');
      expect((await cli(store, 'export', 'trapxtrap', dir)).code).toBe(0);
      const file = path.join(dir, 'prismind-export.json');
      const original = JSON.parse(await readFile(file, 'utf8')) as {
        project: { project_id: string; name: string };
        sessions: { project: string; user: string; next_action: string }[];
        catalog: { project: string; doc_id: string; name: string; location: string }[];
        knowledge: { project: string | null; knowledge_id: string; content: string }[];
        tasks: unknown[];
      };
      // A new project on the surface, with a session, a row and knowledge of the victim inside.
      const hostile = structuredClone(original);
      hostile.project = { ...hostile.project, project_id: 'newone', name: 'New' };
      hostile.sessions = [{ ...original.sessions[0]!, next_action: '乗っ取り' }];
      hostile.catalog = original.catalog.map((e) => ({ ...e, doc_id: 'doc-evil', name: '偽' }));
      await writeFile(file, JSON.stringify(hostile));
      const refused = await cli(store, 'import', dir);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('other projects');
      const check = await connect(store);
      expect((await check.call('start_session', { project: 'trapxtrap' })).next_action).toBe(
        '本来の次の作業',
      );
      expect(
        (await check.call<{ total_count: number }>('search_catalog', { status: 'all' })).total_count,
      ).toBe(1);
      expect((await check.call<{ projects: unknown[] }>('list_projects')).projects).toHaveLength(1);
      await check.close();

      // A document file that is a link: refused, the target never read.
      const linked = structuredClone(original);
      linked.project = { ...linked.project, project_id: 'linked', name: 'Linked' };
      linked.sessions = [];
      linked.catalog = original.catalog.map((e) => ({ ...e, project: 'linked', doc_id: 'doc-linked' }));
      await writeFile(file, JSON.stringify(linked));
      await writeFile(path.join(outside, 'secret.md'), '# 機密\n\nSECRET-ZQXW\n');
      const docFile = path.join(dir, 'documents', original.catalog[0]!.location);
      await rm(docFile);
      await symlink(path.join(outside, 'secret.md'), docFile);
      const viaLink = await cli(store, 'import', dir);
      expect(viaLink.code).toBe(1);
      expect(viaLink.stderr).toContain('symbolic link');

      // --merge into the existing project: what it lacks is added, nothing it has changes.
      const merge = structuredClone(original);
      merge.sessions = [{ ...original.sessions[0]!, next_action: '上書きしない' }];
      merge.catalog = [];
      merge.tasks = [
        {
          phase: 'Phase 9',
          task_id: 'T01',
          name: '追加タスク',
          description: '',
          status: 'not_started',
          blockers: [],
          completed_at: null,
          notes: '',
          priority: 'medium',
          category: '',
          blocked_by: [],
          updated_at: '2026-11-26T00:00:00.000Z',
        },
      ];
      merge.knowledge = [
        {
          ...(merge.knowledge[0] ?? {}),
          knowledge_id: 'kn-merged',
          content: '合流した知見',
          category: '技術Tips',
          project: 'trapxtrap',
          tags: [],
          source: '',
          created_at: '2026-11-26T00:00:00.000Z',
        } as never,
      ];
      await writeFile(file, JSON.stringify(merge));
      expect((await cli(store, 'import', dir)).code).toBe(1); // exists, not asked to merge
      const merged = await cli(store, 'import', dir, '--merge');
      expect(merged.stderr).toBe('');
      expect(merged.stdout).toContain('Merged into trapxtrap: 0 documents, 1 tasks, 1 knowledge entries');
      const after = await connect(store);
      expect((await after.call('start_session', { project: 'trapxtrap' })).next_action).toBe(
        '本来の次の作業',
      );
      expect(
        (await after.call<{ total_count: number }>('search_knowledge', { query: '合流' })).total_count,
      ).toBe(1);
      await after.close();
    } finally {
      await store.cleanup();
      await rm(outside, { recursive: true, force: true });
    }
  });
});
