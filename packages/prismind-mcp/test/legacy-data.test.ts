/**
 * Data written before these rules still reads and updates: progress rows of one phase under two labels
 * ("Phase 4", "P4"), beside a document whose catalog row holds its body's hash.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/model/names.js';
import { parseMarkdown } from '../src/store/local/front-matter.js';
import { connect, withProject, useLocalStore } from './harness.js';

const local = useLocalStore();

describe('data written by earlier versions', () => {
  it('a body-hash catalog row and two labels of one phase keep working', async () => {
    local.client = await withProject(local.store);
    await local.client.call('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 4', task_id: 'T01', name: 'first' },
    });
    const { doc_id } = await local.client.call<{ doc_id: string }>('create_document', {
      name: '旧文書',
      doc_type: '設計書',
      content: '本文',
      phase_task: '共通',
    });
    await local.client.close();
    local.client = undefined;
    const file = path.join(local.store.home, 'Projects', 'TrapxTrapCpp', '設計書', '旧文書.md');
    const body = parseMarkdown(await readFile(file, 'utf8')).body;
    const db = new Database(path.join(local.store.home, 'prismind.db'));
    db.prepare('UPDATE catalog SET content_hash = ? WHERE doc_id = ?').run(sha256(body), doc_id);
    db.prepare(
      `INSERT INTO tasks (project, phase, task_id, name, description, status, blockers, completed_at, notes,
         priority, category, blocked_by, updated_at)
       SELECT project, 'P4', task_id, 'second', description, status, blockers, completed_at, notes, priority,
         category, blocked_by, updated_at FROM tasks`,
    ).run();
    db.close();

    local.client = await connect(local.store);
    const updated = await local.client.call<{ updated_fields: string[] }>('update_document', {
      doc_id,
      content: '新しい本文',
    });
    expect(updated.updated_fields).toContain('content');
    const progress = await local.client.call<{ phases: { phase: string; tasks: unknown[] }[] }>(
      'get_progress',
      {},
    );
    expect(progress.phases.map((p) => [p.phase, p.tasks.length])).toEqual([['Phase 4', 2]]);
    for (const id of ['Phase 4-T01', 'P4-T01']) {
      await local.client.call('update_progress', { task_id: id, notes: id });
    }
    const ambiguous = await local.client.fail('update_progress', { task_id: 'T01', notes: 'x' });
    expect(ambiguous.message).toContain('Phase 4-T01, P4-T01');
  });
});
