import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, withProject, type Connected, type StoreFixture } from './harness.js';

interface Progress {
  current_phase: string;
  phases: {
    phase: string;
    status: string;
    tasks: {
      task_id: string;
      status: string;
      completed_at: string | null;
      blocked_by: string[];
      priority: string;
      category: string;
    }[];
  }[];
}

describe.each(BACKENDS)('progress tools ($name)', (backend) => {
  let store: StoreFixture;
  let client: Connected;
  beforeEach(async () => {
    store = await backend.create();
    client = await withProject(store);
    const add = (phase: string, task_id: string, name: string, extra: Record<string, unknown> = {}) =>
      client.call('update_progress', { task_id, new_task: { phase, task_id, name, ...extra } });
    await add('Phase 3', 'T12', 'WeaponSystem統合');
    await add('Phase 4', 'T01', 'BTノード生成', { priority: 'high', category: 'feature' });
    await add('Phase 4', 'T02', 'BTノード接続', { blocked_by: ['T01'], category: 'feature' });
    await add('Phase 5', 'T01', 'AI調整');
  });
  afterEach(async () => {
    try {
      await client.close();
    } finally {
      await store.cleanup();
    }
  });

  const progress = (args: Record<string, unknown> = {}) => client.call<Progress>('get_progress', args);

  it('updates status, sets completed_at, and reports phases with the v2 fields', async () => {
    const done = await client.call('update_progress', {
      task_id: 'P3-T12',
      status: 'completed',
      notes: '統合済み',
    });
    expect(done).toMatchObject({
      success: true,
      project: 'trapxtrap',
      task_id: 'P3-T12',
      updated_fields: ['status', 'notes', 'completed_at'],
    });
    expect((await progress()).phases.map((p) => [p.phase, p.status, p.tasks.length])).toEqual([
      ['Phase 3', 'completed', 0],
      ['Phase 4', 'not_started', 2],
      ['Phase 5', 'not_started', 1],
    ]);
    const all = await progress({ include_completed: true, phase: '3' });
    expect(all.phases).toHaveLength(1);
    expect(all.phases[0]!.tasks[0]!.completed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const p4 = (await progress({ phase: 'P4' })).phases[0]!;
    expect(p4.tasks[1]).toMatchObject({
      task_id: 'T02',
      blocked_by: ['T01'],
      priority: 'medium',
      category: 'feature',
    });
    expect((await progress()).current_phase).toBe('Phase 4');
    if (backend.name === 'local') {
      const view = await readFile(path.join(store.home, 'Projects', 'TrapxTrapCpp', '進捗.md'), 'utf8');
      expect(view).toContain('| Phase 3 | T12 | WeaponSystem統合 | completed |  |');
      expect(view).toContain('| 統合済み | medium |');
    }
  });

  it("a task waits for its own phase's task of a blocked_by id, not another phase's task of that id", async () => {
    // P4-T02 waits for P4-T01 (stored as "T01"); P5-T01, another T01, is the one completed.
    await client.call('update_progress', { task_id: 'P3-T12', status: 'completed' });
    await client.call('update_progress', { task_id: 'P5-T01', status: 'completed' });
    await client.call('update_progress', { task_id: 'P4-T01', priority: 'low' });
    await client.call('update_progress', { task_id: 'P4-T02', priority: 'high' });
    const started = await client.call('start_session', {});
    expect(started).toMatchObject({ current_phase: 'Phase 4', current_task: 'T01: BTノード生成' });
    await client.call('update_progress', { task_id: 'P4-T01', status: 'completed' });
    expect((await client.call('start_session', {})).current_task).toBe('T02: BTノード接続');
    if (backend.name === 'local') {
      // The table shows every phase, so the dependency is shown with its phase.
      const view = await readFile(path.join(store.home, 'Projects', 'TrapxTrapCpp', '進捗.md'), 'utf8');
      expect(view).toMatch(/\| T02 \| BTノード接続 \|.*\| P4-T01 \|\n/);
    }
  });

  it('refuses unknown values, unknown and ambiguous tasks, and duplicate new tasks, changing nothing', async () => {
    expect((await client.fail('update_progress', { task_id: 'P4-T01', status: 'done' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await client.fail('update_progress', { task_id: 'P4-T01', priority: 'urgent' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await client.fail('update_progress', { task_id: 'P4-T01', category: 'chore' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    const ambiguous = await client.fail('update_progress', { task_id: 'T01', status: 'in_progress' });
    expect(ambiguous.code).toBe('INVALID_ARGUMENT');
    expect(ambiguous.message).toContain('P4-T01');
    expect((await client.fail('update_progress', { task_id: 'P9-T99', status: 'completed' })).code).toBe(
      'NOT_FOUND',
    );
    expect((await client.fail('update_progress', { task_id: 'P4-T02', blocked_by: ['T77'] })).code).toBe(
      'NOT_FOUND',
    );
    expect(
      (
        await client.fail('update_progress', {
          task_id: 'T01',
          new_task: { phase: 'Phase 4', task_id: 'T01', name: '重複' },
        })
      ).code,
    ).toBe('ALREADY_EXISTS');
    const after = await progress({ include_completed: true });
    expect(after.phases.flatMap((p) => p.tasks.map((t) => t.status))).toEqual([
      'not_started',
      'not_started',
      'not_started',
      'not_started',
    ]);
  });

  it('the session state follows a progress change', async () => {
    await client.call('update_progress', { task_id: 'P3-T12', status: 'completed' });
    await client.call('start_session');
    await client.call('update_progress', { task_id: 'P4-T01', status: 'in_progress' });
    await client.call('end_session', {});
    await client.call('update_progress', { task_id: 'P4-T01', status: 'completed' });
    const started = await client.call('start_session');
    expect(started).toMatchObject({
      current_task: 'T02: BTノード接続',
      last_completed: 'P4-T01: BTノード生成',
    });
  });
});
