import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, connect, type Connected, type StoreFixture } from './harness.js';

describe.each(BACKENDS)('project tools ($name)', (backend) => {
  let store: StoreFixture;
  let client: Connected;
  beforeEach(async () => {
    store = await backend.create();
    client = await connect(store);
    await client.call('setup_project', {
      project: 'trapxtrap',
      name: 'TrapxTrapCpp',
      description: '1v1トラップアクションゲーム',
      spreadsheet_id: '1abc',
      root_folder_id: '1xyz',
    });
  });
  afterEach(async () => {
    try {
      await client.close();
    } finally {
      await store.cleanup();
    }
  });

  it('case 1 of the spec: a new, unrelated project is created at once and becomes current', async () => {
    const result = await client.call('setup_project', { project: 'NewGame', name: 'NewGame' });
    expect(result).toMatchObject({
      success: true,
      project_id: 'NewGame',
      requires_confirmation: false,
      duplicate_id: false,
      similar_projects: [],
      sheets_created: ['サマリ', '進捗', '目録'],
      folders_created: ['設計書', '実装手順書'],
    });
    const list = await client.call('list_projects');
    expect(list.current_project).toBe('NewGame');
    if (backend.name === 'local') {
      for (const file of ['サマリ.md', '進捗.md', '目録.md', '設計書', '実装手順書']) {
        expect(existsSync(path.join(store.home, 'Projects', 'NewGame', file)), file).toBe(true);
      }
    }
  });

  it('case 2 of the spec: an existing id is duplicate_id with the spec message, and nothing changes', async () => {
    const result = await client.call('setup_project', { project: 'trapxtrap', name: '別の名前' });
    expect(result).toMatchObject({ success: false, duplicate_id: true });
    expect(result.message).toBe(
      "プロジェクト 'trapxtrap' は既に存在します。update_project で設定を更新するか、別のIDで作成してください。",
    );
    const list = await client.call<{ projects: { name: string }[] }>('list_projects');
    expect(list.projects.map((p) => p.name)).toEqual(['TrapxTrapCpp']);
  });

  it('case 3 of the spec: a similar project needs confirmation at the default threshold, force creates it', async () => {
    const ask = await client.call<{ similar_projects: { project_id: string; similarity: number }[] }>(
      'setup_project',
      {
        project: 'TrapGame',
        name: 'TrapGame',
        description: 'トラップ対戦ゲーム',
      },
    );
    expect(ask).toMatchObject({ success: false, requires_confirmation: true, duplicate_id: false });
    expect(ask.similar_projects[0]).toMatchObject({ project_id: 'trapxtrap', name: 'TrapxTrapCpp' });
    expect(ask.similar_projects[0]!.similarity).toBeGreaterThanOrEqual(0.7);
    expect(ask.similar_projects[0]!.similarity).toBeLessThanOrEqual(1);
    expect(ask.message).toMatch(
      /^類似のプロジェクトが見つかりました:\n- trapxtrap \(類似度: \d+%\): TrapxTrapCpp\n新規プロジェクトとして作成しますか？/,
    );
    expect((await client.call<{ projects: unknown[] }>('list_projects')).projects).toHaveLength(1);

    // A stricter threshold reports nothing and creates at once.
    const strict = await client.call('setup_project', {
      project: 'TrapGame',
      name: 'TrapGame',
      description: 'トラップ対戦ゲーム',
      similarity_threshold: 0.95,
    });
    expect(strict).toMatchObject({ success: true, requires_confirmation: false });
    const forced = await client.call('setup_project', {
      project: 'TrapGame2',
      name: 'TrapGame',
      description: 'トラップ対戦ゲーム',
      force: true,
    });
    expect(forced).toMatchObject({ success: true, duplicate_name: 'TrapGame' });
  });

  it('the same display name needs confirmation and names the project that has it', async () => {
    const result = await client.call('setup_project', { project: 'other', name: 'TrapxTrapCpp' });
    expect(result).toMatchObject({
      success: false,
      requires_confirmation: true,
      duplicate_name: 'trapxtrap',
    });
  });

  it('refuses ids that are not alphanumeric, with a stable code', async () => {
    for (const project of ['trap-x', 'トラップ', '../etc', '', 'a'.repeat(65)]) {
      const error = await client.fail('setup_project', { project, name: 'x' });
      expect(error.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('switches, lists, updates and deletes (settings only, data kept and found again)', async () => {
    await client.call('setup_project', { project: 'NewGame', name: 'NewGame' });
    expect(await client.call('switch_project', { project: 'trapxtrap' })).toMatchObject({
      success: true,
      project_id: 'trapxtrap',
      name: 'TrapxTrapCpp',
    });
    expect((await client.call('list_projects')).current_project).toBe('trapxtrap');
    expect((await client.fail('switch_project', { project: 'nothere' })).code).toBe('NOT_FOUND');

    const updated = await client.call('update_project', {
      project: 'trapxtrap',
      description: '1v1 トラップアクション（UE5）',
      options: { auto_sync_catalog: false },
      drive: { design_folder: '設計' },
    });
    expect(updated.updated_fields).toEqual([
      'description',
      'drive.design_folder',
      'options.auto_sync_catalog',
    ]);
    expect(
      (
        await client.call('update_project', {
          project: 'trapxtrap',
          description: '1v1 トラップアクション（UE5）',
        })
      ).updated_fields,
    ).toEqual([]);

    await client.call('create_document', {
      name: '全体設計',
      doc_type: '設計書',
      content: '罠の種類と配置ルール',
      phase_task: '共通',
    });
    const unconfirmed = await client.call('delete_project', { project: 'trapxtrap' });
    expect(unconfirmed.success).toBe(false);
    expect(unconfirmed.message).toContain('confirm=true');
    const deleted = await client.call('delete_project', { project: 'trapxtrap', confirm: true });
    expect(deleted.success).toBe(true);
    expect(deleted.message).toContain('残っています');
    expect(
      (await client.call<{ projects: { project_id: string }[] }>('list_projects')).projects.map(
        (p) => p.project_id,
      ),
    ).toEqual(['NewGame']);
    expect((await client.fail('get_progress', { project: 'trapxtrap' })).code).toBe('NOT_FOUND');

    // Set up again with the same id: the documents are there.
    await client.call('setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
    const found = await client.call<{ total_count: number }>('search_catalog', {
      project: 'trapxtrap',
      query: '罠',
    });
    expect(found.total_count).toBe(1);
  });

  it('says what to do when there is no current project', async () => {
    const fresh = await backend.create();
    const other = await connect(fresh);
    try {
      const error = await other.fail('start_session');
      expect(error.code).toBe('NO_CURRENT_PROJECT');
      expect(error.hint).toMatch(/setup_project/);
      expect((await other.fail('get_progress')).code).toBe('NO_CURRENT_PROJECT');
    } finally {
      await other.close();
      await fresh.cleanup();
    }
  });

  it('a new conversation without a current project is told the registered projects by id and name', async () => {
    // The project was set up by someone else: this user has no current project and knows no id.
    const newcomer = await connect(store, { env: { PRISMIND_USER: 'newcomer' } });
    try {
      const one = await newcomer.fail('start_session', {});
      expect(one.code).toBe('NO_CURRENT_PROJECT');
      expect(one.hint).toContain('trapxtrap (TrapxTrapCpp)');
      expect(one.hint).toContain('list_projects');
      expect(one.details).toEqual({ projects: [{ project_id: 'trapxtrap', name: 'TrapxTrapCpp' }] });
      // The hint is enough to go on: the named project starts the session.
      const [named] = (one.details as { projects: { project_id: string }[] }).projects;
      expect((await newcomer.call('start_session', { project: named!.project_id })).project).toBe(
        'trapxtrap',
      );

      await client.call('setup_project', { project: 'shopapi', name: 'ショップAPI' });
      const other = await connect(store, { env: { PRISMIND_USER: 'another' } });
      try {
        const few = await other.fail('save_session', { summary: 'x' });
        expect(few.hint).toContain('trapxtrap (TrapxTrapCpp)');
        expect(few.hint).toContain('shopapi (ショップAPI)');
        expect(few.hint).toContain('list_projects');
      } finally {
        await other.close();
      }
    } finally {
      await newcomer.close();
    }
  });
});
