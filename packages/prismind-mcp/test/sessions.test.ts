import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, connect, withProject, type Connected, type StoreFixture } from './harness.js';

describe.each(BACKENDS)('session tools ($name)', (backend) => {
  let store: StoreFixture;
  let client: Connected;
  beforeEach(async () => {
    store = await backend.create();
  });
  afterEach(async () => {
    try {
      await client.close();
    } finally {
      await store.cleanup();
    }
  });

  it('a session round trip survives a server restart and the next session picks up where it ended', async () => {
    let clock = Date.parse('2025-01-12T09:00:00Z');
    client = await withProject(store, { now: () => new Date(clock) });
    await client.call('update_progress', {
      task_id: 'T12',
      new_task: { phase: 'Phase 3', task_id: 'T12', name: 'WeaponSystem統合' },
      status: 'completed',
    });
    await client.call('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 4', task_id: 'T01', name: 'BTノード生成', priority: 'high' },
    });
    const doc = await client.call<{ doc_id: string }>('create_document', {
      name: 'BTノード生成手順',
      doc_type: '実装手順書',
      content: '手順',
      phase_task: 'P4-T01',
      feature: 'BTノード生成',
      asset_type: 'Blueprint',
    });
    await client.call('create_document', {
      name: 'コーディング規約',
      doc_type: '規約',
      content: '命名規則',
      phase_task: '共通',
      reference_timing: 'セッション開始時',
    });

    const started = await client.call('start_session', { user: 'alice' });
    expect(started).toMatchObject({
      project: 'trapxtrap',
      project_name: 'TrapxTrapCpp',
      user: 'alice',
      current_phase: 'Phase 4',
      current_task: 'T01: BTノード生成',
      last_completed: 'P3-T12: WeaponSystem統合',
      blockers: [],
    });
    expect(started.recommended_docs).toEqual([
      { name: 'BTノード生成手順', doc_id: doc.doc_id, reason: '現在タスク (P4-T01) の実装手順書' },
      expect.objectContaining({ name: 'コーディング規約', reason: 'セッション開始時に参照する資料' }),
    ]);
    await client.call('update_progress', {
      task_id: 'P4-T01',
      status: 'blocked',
      blockers: ['UE5.7のFGraphNodeCreator問題'],
    });
    clock += 83 * 60_000 + 5_000;
    const ended = await client.call('end_session', {
      summary: 'BTノード生成の調査',
      next_action: 'FGraphNodeCreator の代替を試す',
      notes: 'エンジン差分に注意',
    });
    expect(ended).toMatchObject({
      success: true,
      session_duration: 'PT1H23M5S',
      session_duration_seconds: 4985,
      message: 'セッション状態を保存しました。',
    });
    // Where the state went: the local database file, the PostgreSQL store (URL without password), or
    // the project's summary sheet (with its local cache).
    const savedTo: Record<string, unknown[]> = {
      local: ['prismind.db'],
      postgres: [expect.stringMatching(/^postgres/)],
      google: ['prismind.db', 'Google Sheets（サマリ）'],
    };
    expect(Object.keys(savedTo)).toContain(backend.name);
    expect(ended.saved_to).toEqual(expect.arrayContaining(savedTo[backend.name] ?? []));
    await client.close();

    client = await connect(store, { now: () => new Date(clock) });
    const next = await client.call('start_session', { project: 'trapxtrap', user: 'alice' });
    expect(next).toMatchObject({
      last_summary: 'BTノード生成の調査',
      next_action: 'FGraphNodeCreator の代替を試す',
      notes: 'エンジン差分に注意',
      current_task: 'T01: BTノード生成',
      blockers: ['T01: UE5.7のFGraphNodeCreator問題'],
    });
    expect(next.message).toContain('FGraphNodeCreator の代替を試す');
    // Another user new to the project is shown the team's last handover, and whose it is.
    expect(await client.call('start_session', { user: 'bob' })).toMatchObject({
      last_summary: 'BTノード生成の調査',
      handover_from: 'alice',
    });
  });

  it("a teammate new to the project is shown the team's last handover, who saved it and when; the shared summary keeps it", async () => {
    let clock = Date.parse('2026-11-30T01:00:00Z');
    const now = () => new Date(clock);
    client = await withProject(store, { env: { PRISMIND_USER: 'alice' }, now });
    const bob = await connect(store, { env: { PRISMIND_USER: 'bob' }, now });
    try {
      await client.call('start_session', {});
      clock += 60_000;
      await client.call('end_session', {
        summary: 'T01を完了',
        next_action: 'T02に着手',
        blockers: ['決済APIのキー待ち'],
      });
      const savedAt = now().toISOString();
      clock += 60_000;

      const started = await bob.call<{ message: string }>('start_session', { project: 'trapxtrap' });
      expect(started).toMatchObject({
        user: 'bob',
        last_summary: 'T01を完了',
        next_action: 'T02に着手',
        blockers: ['決済APIのキー待ち'],
        handover_from: 'alice',
        handover_saved_at: savedAt,
      });
      expect(started.message).toContain('このプロジェクトでの初回のセッションです。');
      expect(started.message).toContain(`チームの直近の引き継ぎ（alice、${savedAt} に保存）`);
      // Bob's start did not replace the team's summary with his empty state.
      await expectSharedSummary(bob, 'T02に着手', '決済APIのキー待ち');

      // Saving only a summary keeps the handover's next action and blockers (left out = unchanged).
      clock += 60_000;
      await bob.call('save_session', { summary: '決済APIの調査中' });
      await expectSharedSummary(bob, 'T02に着手', '決済APIのキー待ち');
      const again = await bob.call('start_session', {});
      expect(again).toMatchObject({ last_summary: '決済APIの調査中', next_action: 'T02に着手' });
      expect(again).not.toHaveProperty('handover_from');

      // A newer handover by someone else stays the team's summary when Bob starts again from his own.
      clock += 60_000;
      await client.call('start_session', {});
      await client.call('end_session', { next_action: 'T03に着手', blockers: ['レビュー待ち'] });
      clock += 60_000;
      expect((await bob.call('start_session', {})).next_action).toBe('T02に着手');
      await expectSharedSummary(bob, 'T03に着手', 'レビュー待ち');
    } finally {
      await bob.close();
    }
  });

  it("automatic saves with nothing new keep a stale state from becoming the team's handover; start_session names the newer one", async () => {
    let clock = Date.parse('2026-11-30T01:00:00Z');
    const now = () => new Date(clock);
    const config = path.join(store.home, 'config.toml');
    await writeFile(config, '[session]\nauto_save_interval = 2\n');
    client = await withProject(store, { env: { PRISMIND_USER: 'alice' }, now, configFile: config });
    const bob = await connect(store, { env: { PRISMIND_USER: 'bob' }, now, configFile: config });
    const carol = await connect(store, { env: { PRISMIND_USER: 'carol' }, now, configFile: config });
    try {
      await client.call('start_session', {});
      await client.call('end_session', { next_action: 'ALICE-OLD', blockers: ['決済未決定'] });
      clock += 60_000;
      await bob.call('start_session', { project: 'trapxtrap' });
      await bob.call('end_session', { next_action: 'BOB-NEW', blockers: ['レビュー待ち'] });
      const bobSavedAt = now().toISOString();
      clock += 60_000;

      // Alice continues from her own state and is told of Bob's newer handover.
      const alice = await client.call<{ message: string }>('start_session', {});
      expect(alice).toMatchObject({
        next_action: 'ALICE-OLD',
        newer_handover_from: 'bob',
        newer_handover_saved_at: bobSavedAt,
        newer_handover_next_action: 'BOB-NEW',
      });
      expect(alice.message).toContain(`新しいチームの引き継ぎがあります（bob、${bobSavedAt} に保存）`);
      // Read-only calls trigger automatic saves with nothing new: Bob's handover stays the team's.
      for (let i = 0; i < 4; i++) {
        clock += 60_000;
        await client.call('get_progress', {});
      }
      await expectSharedSummary(bob, 'BOB-NEW', 'レビュー待ち');
      const newcomer = await carol.call('start_session', { project: 'trapxtrap' });
      expect(newcomer).toMatchObject({ next_action: 'BOB-NEW', handover_from: 'bob' });
      // The newcomer's own automatic saves copy nothing and do not make them the handover's author.
      for (let i = 0; i < 4; i++) {
        clock += 60_000;
        await carol.call('get_progress', {});
      }
      expect(await carol.call('start_session', {})).toMatchObject({ handover_from: 'bob' });
      // Something new is a handover again.
      clock += 60_000;
      await client.call('save_session', { next_action: 'ALICE-NEW' });
      await expectSharedSummary(bob, 'ALICE-NEW', '決済未決定');
    } finally {
      await bob.close();
      await carol.close();
    }
  });

  /** The project's summary as a person reads it: the MCP resource, サマリ.md, or the サマリ sheet. */
  async function expectSharedSummary(reader: Connected, nextAction: string, blocker: string) {
    const read = await reader.client.readResource({ uri: 'prismind://projects/trapxtrap/summary' });
    const resource = (read.contents[0] as { text: string }).text;
    expect(resource).toContain(`## 次のアクション\n\n${nextAction}\n`);
    expect(resource).toContain(`- ${blocker}`);
    if (backend.name === 'local') {
      const file = await readFile(path.join(store.home, 'Projects', 'TrapxTrapCpp', 'サマリ.md'), 'utf8');
      expect(file).toBe(resource);
    }
    if (backend.name === 'google') {
      const [sheet] = store.google!.byPath('Prismind/Projects/TrapxTrapCpp/TrapxTrapCpp_Prismind');
      const rows = store.google!.spreadsheets.get(sheet!.id)!.table('サマリ');
      expect(rows.find((r) => r[0] === '次のアクション')?.[1]).toBe(nextAction);
      expect(rows.find((r) => r[0] === 'ブロッカー')?.[1]).toBe(blocker);
    }
  }

  it('the progress table is the truth: a stale saved state is corrected at start and the correction reported', async () => {
    client = await withProject(store);
    await client.call('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 1', task_id: 'T01', name: '設計' },
      status: 'in_progress',
    });
    const me = (await client.call<{ user: string }>('start_session')).user;
    await client.call('end_session', {});
    // Progress moves on in another person's session: this user's saved state is now stale.
    await client.call('start_session', { user: 'bob' });
    await client.call('update_progress', { task_id: 'T01', status: 'completed' });
    await client.call('update_progress', {
      task_id: 'T02',
      new_task: { phase: 'Phase 1', task_id: 'T02', name: '実装', blocked_by: ['T01'] },
    });
    await client.call('end_session', {});
    const started = await client.call('start_session', { user: me });
    expect(started).toMatchObject({
      current_phase: 'Phase 1',
      current_task: 'T02: 実装',
      last_completed: 'P1-T01: 設計',
    });
    expect(started.message).toContain('進捗シートとの差異を修正しました');
    expect(started.message).toContain('T01: 設計 → T02: 実装');
  });

  it('save_session keeps the session running; without a project it says what to do', async () => {
    client = await connect(store);
    expect((await client.fail('save_session', { summary: 'x' })).code).toBe('NO_CURRENT_PROJECT');
    await client.call('setup_project', { project: 'p1', name: '罠ゲーム' });
    await client.call('start_session');
    const saved = await client.call('save_session', { summary: '途中経過', blockers: ['レビュー待ち'] });
    expect(saved).toMatchObject({ success: true, message: 'セッション状態を保存しました。' });
    expect(saved).not.toHaveProperty('session_duration');
    const again = await client.call('start_session');
    expect(again).toMatchObject({ last_summary: '途中経過', blockers: ['レビュー待ち'] });
  });

  it('saves every auto_save_interval tool calls and under context pressure, with the spec messages', async () => {
    const config = path.join(store.home, 'config.toml');
    await writeFile(
      config,
      '[session]\nauto_save_interval = 3\ncontext_budget_tokens = 2000\ndefault_user = "田中"\n',
    );
    client = await connect(store, { configFile: config });
    await client.call('setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
    expect((await client.call('list_projects')).message).not.toContain('保存'); // no session yet: no trigger
    const started = await client.call('start_session');
    expect(started.user).toBe('田中');
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) messages.push((await client.call('get_progress')).message as string);
    expect(messages[0]).not.toContain('セッション状態を保存しました。');
    expect(messages[2]).toMatch(/\nセッション状態を保存しました。$/);

    // Big answers: about 2,000 tokens of Japanese push the session over its budget.
    await client.call('add_knowledge', { content: '罠'.repeat(2500), category: '技術Tips' });
    const pressured = await client.call('search_knowledge', { query: '罠' });
    expect(pressured.message).toMatch(/コンテキストが逼迫しています。セッション状態を保存しました。$/);
    // The count starts again after a pressure save.
    expect((await client.call('list_projects')).message).not.toContain('逼迫');
  });

  it('two people on one store keep their own sessions; start_session names the user; an old shared state is inherited', async () => {
    client = await withProject(store, { env: { PRISMIND_USER: 'alice' } });
    const bob = await connect(store, { env: { PRISMIND_USER: 'bob' } });
    const someone = await connect(store);
    try {
      const alice = await client.call<{ user: string; message: string }>('start_session', {});
      expect(alice.user).toBe('alice');
      expect(alice.message).toContain('ユーザー: alice（環境変数 PRISMIND_USER）');
      await client.call('end_session', { next_action: 'アリスの続き' });
      expect((await bob.call<{ user: string }>('start_session', { project: 'trapxtrap' })).user).toBe('bob');
      await bob.call('end_session', { next_action: 'ボブの続き' });
      expect((await client.call('start_session', {})).next_action).toBe('アリスの続き');
      expect((await bob.call('start_session', {})).next_action).toBe('ボブの続き');
      // Without a name of its own, the server works for the OS account, and says so.
      const own = await someone.call<{ user: string; message: string }>('start_session', {
        project: 'trapxtrap',
      });
      expect(own.user).toBe(os.userInfo().username);
      expect(own.message).toContain('OS のアカウント名');
      // A state saved by an older version under the shared user: each person starts from it once.
      await someone.call('start_session', { user: 'default' });
      await someone.call('end_session', { next_action: '以前の続き' });
      const carol = await connect(store, { env: { PRISMIND_USER: 'carol' } });
      try {
        const inherited = await carol.call<{ next_action: string; message: string }>('start_session', {
          project: 'trapxtrap',
        });
        expect(inherited.next_action).toBe('以前の続き');
        expect(inherited.message).toContain('引き継ぎました');
      } finally {
        await carol.close();
      }
    } finally {
      await bob.close();
      await someone.close();
    }
  });
});
