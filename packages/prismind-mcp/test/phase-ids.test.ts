/**
 * One key per phase ("Phase 4" = "P4" = "フェーズ4" = "Phase 04"; "Phase 4.5" and "事前設計" are their own),
 * used for task ids, grouping and filters: every task is reachable by its full id, ids never collide.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLocalStore } from './harness.js';

interface Progress {
  phases: { phase: string; tasks: { task_id: string }[] }[];
}

const local = useLocalStore({ project: true });

const add = (phase: string, task_id: string, name = 'x') =>
  local.client.call<{ task_id: string }>('update_progress', { task_id, new_task: { phase, task_id, name } });

describe('phase labels and task ids', () => {
  it('spellings of one numbered phase are one phase, in get_progress and 進捗.md', async () => {
    const labels = ['Phase 4', '4', 'P4', 'phase 4', 'Phase4', 'フェーズ4', 'Phase 04'];
    for (const [i, phase] of labels.entries()) {
      expect((await add(phase, `T0${i + 1}`)).task_id).toBe(`P4-T0${i + 1}`);
    }
    const progress = await local.client.call<Progress>('get_progress', { phase: 'p4' });
    expect(progress.phases.map((p) => p.phase)).toEqual(['Phase 4']);
    expect(progress.phases[0]!.tasks).toHaveLength(7);
    const view = await readFile(path.join(local.store.home, 'Projects', 'TrapxTrapCpp', '進捗.md'), 'utf8');
    expect(view.match(/^\| Phase 4 \|/gm)).toHaveLength(7);
  });

  it('"Phase 4.5" and named phases get their own ids, each reachable by it', async () => {
    await add('Phase 4', 'T01');
    expect((await add('Phase 4.5', 'T01')).task_id).toBe('P4.5-T01');
    expect((await add('事前設計', 'T01')).task_id).toBe('事前設計-T01');
    for (const id of ['P4-T01', 'P4.5-T01', '事前設計-T01', '事前設計 T01']) {
      const done = await local.client.call<{ task_id: string }>('update_progress', {
        task_id: id,
        notes: id,
      });
      expect(done.task_id).toBe(id.replace(' ', '-'));
    }
    const ambiguous = await local.client.fail('update_progress', { task_id: 'T01', notes: 'n' });
    expect(ambiguous.message).toContain('P4-T01, P4.5-T01, 事前設計-T01');
  });

  it('a colliding id is ALREADY_EXISTS before anything is written', async () => {
    await add('Phase 4', 'T01', 'first');
    for (const [phase, id] of [
      ['P4', 'T01'],
      ['phase 4', 't01'],
      ['Phase 4', 'P4-T01'],
    ] as const) {
      expect(
        (
          await local.client.fail('update_progress', {
            task_id: id,
            new_task: { phase, task_id: id, name: 'again' },
          })
        ).code,
      ).toBe('ALREADY_EXISTS');
    }
    const progress = await local.client.call<Progress>('get_progress', {});
    expect(progress.phases.flatMap((p) => p.tasks)).toHaveLength(1);
  });

  it('a task_id that already carries its phase prefix is not prefixed twice', async () => {
    expect((await add('Phase 4', 'P4-T08')).task_id).toBe('P4-T08');
    const other = await local.client.fail('update_progress', {
      task_id: 'P3-T09',
      new_task: { phase: 'Phase 4', task_id: 'P3-T09', name: 'x' },
    });
    expect(other.code).toBe('INVALID_ARGUMENT');
  });

  it('a document\'s phase_task written as get_progress shows it ("Phase 2-T01") is that task\'s id everywhere', async () => {
    await add('Phase 2', 'T01', '決済連携');
    const created = await local.client.call<{ doc_id: string; file_name: string }>('create_document', {
      name: '決済連携手順',
      doc_type: '実装手順書',
      content: '手順',
      phase_task: 'Phase 2-T01',
      feature: '決済',
      asset_type: 'API',
    });
    expect(created.file_name).toBe('P2_T01_決済_API_001');
    for (const filter of ['P2-T01', 'Phase 2-T01', 'フェーズ2 T01', 'p2_t1']) {
      const found = await local.client.call<{ documents: { doc_id: string; phase_task: string }[] }>(
        'search_catalog',
        { phase_task: filter },
      );
      expect(found.documents.map((d) => [d.doc_id, d.phase_task])).toEqual([[created.doc_id, 'P2-T01']]);
    }
    const started = await local.client.call<{ recommended_docs: { doc_id: string; reason: string }[] }>(
      'start_session',
      {},
    );
    expect(started.recommended_docs[0]).toMatchObject({
      doc_id: created.doc_id,
      reason: '現在タスク (P2-T01) の実装手順書',
    });
    await local.client.call('update_document', {
      doc_id: created.doc_id,
      metadata: { phase_task: 'フェーズ3-T02' },
    });
    const moved = await local.client.call<{ documents: unknown[] }>('search_catalog', {
      phase_task: 'P3-T02',
    });
    expect(moved.documents).toHaveLength(1);
  });
});
