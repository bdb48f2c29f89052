/**
 * A document file copied by hand (`cp 原本.md コピー.md`) carries the original's doc_id: the original
 * keeps it, the copy gets its own (written into its front matter), and sync_catalog never fails.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withProject, type Connected, useLocalStore } from './harness.js';

interface Sync {
  synced_count: number;
  added_count: number;
  updated_count: number;
  archived_count: number;
  warnings?: string[];
}
interface Found {
  total_count: number;
  documents: { doc_id: string; name: string; status: string }[];
}

const local = useLocalStore();

const dir = () => path.join(local.store.home, 'Projects', 'TrapxTrapCpp', '設計書');

/** The original, and a copy of its file with another body (same front matter, same doc_id). */
async function original(c: Connected): Promise<string> {
  const { doc_id } = await c.call<{ doc_id: string }>('create_document', {
    name: '原本',
    doc_type: '設計書',
    content: '原本の本文 火山',
    phase_task: '共通',
  });
  const text = await readFile(path.join(dir(), '原本.md'), 'utf8');
  // Named so that it is listed before the original, and after it: the order must not matter.
  for (const name of ['コピー.md', '写し.md'])
    await writeFile(path.join(dir(), name), text.replace('原本の本文 火山', `${name}の本文 氷河`));
  return doc_id;
}

async function expectOriginalKeepsItsId(c: Connected, id: string) {
  const got = await c.call<{ document: { metadata: { location: string } } }>('get_document', { doc_id: id });
  expect(got.document.metadata.location).toBe('設計書/原本.md');
  const all = await c.call<Found>('search_catalog', { status: 'all' });
  const ids = all.documents.map((d) => d.doc_id);
  expect(new Set(ids).size).toBe(3);
  for (const name of ['コピー.md', '写し.md']) {
    const copy = await readFile(path.join(dir(), name), 'utf8');
    const copyId = /^doc_id: (.+)$/m.exec(copy)?.[1];
    expect(copyId).toBeDefined();
    expect(copyId).not.toBe(id);
    expect(ids).toContain(copyId);
    expect(copy).toContain(`${name}の本文 氷河`);
  }
}

describe('a document file copied by hand', () => {
  it('sync_catalog alone: the original keeps its id, each copy gets a new one, with a warning', async () => {
    local.client = await withProject(local.store);
    const id = await original(local.client);
    const sync = await local.client.call<Sync>('sync_catalog', {});
    expect(sync).toMatchObject({ synced_count: 3, added_count: 2, archived_count: 0 });
    const warned = (sync.warnings ?? []).filter((w) => w.includes(id));
    expect(warned).toHaveLength(2);
    for (const w of warned) expect(w).toContain('設計書/原本.md');
    await expectOriginalKeepsItsId(local.client, id);
    // A second sync finds nothing new and says nothing.
    const again = await local.client.call<Sync>('sync_catalog', {});
    expect(again).toMatchObject({ synced_count: 3, added_count: 0, updated_count: 0, archived_count: 0 });
    expect(again.warnings).toBeUndefined();
  });

  it('search first, then sync_catalog: never INTERNAL, and the ids stay apart', async () => {
    local.client = await withProject(local.store);
    const id = await original(local.client);
    const deadline = Date.now() + 5000;
    let found: Found & { warnings?: string[] };
    const warnings: string[] = [];
    do {
      found = await local.client.call<Found & { warnings?: string[] }>('search_catalog', { query: '氷河' });
      warnings.push(...(found.warnings ?? []));
    } while (found.total_count < 2 && Date.now() < deadline);
    expect(found.documents.map((d) => d.doc_id)).not.toContain(id);
    // The search took the copies in: each got its own id, and the answer said so, naming both files.
    expect(warnings.filter((w) => w.includes(id) && w.includes('設計書/原本.md'))).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      const sync = await local.client.call<Sync>('sync_catalog', {});
      expect(sync.synced_count).toBe(3);
      expect(sync.archived_count).toBe(0);
    }
    await expectOriginalKeepsItsId(local.client, id);
  });
});
