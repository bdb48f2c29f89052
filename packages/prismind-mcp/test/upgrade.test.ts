// A local store written by version 4 (documents indexed by their first 2,000 characters, emoji not
// indexed) is indexed again once when a newer server opens it (the PostgreSQL upgrade is in
// pg/postgres.test.ts).
import { statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { catalogText } from '../src/search/texts.js';
import { shortTermTokenList } from '../src/text/grams.js';
import { normalizeText, textRuns } from '../src/text/normalize.js';
import { connect, localBackend, withProject } from './harness.js';

describe('upgrading a local store from version 4', () => {
  it('indexes long documents whole and emoji, once', async () => {
    const store = await localBackend.create();
    try {
      const body = `${'敵の出現位置はマップの端から決める。'.repeat(200)}終端の溶岩床。`;
      let client = await withProject(store);
      const doc = await client.call<{ doc_id: string }>('create_document', {
        name: 'ステージ設計',
        doc_type: '設計書',
        content: body,
        phase_task: '共通',
      });
      await client.call('add_knowledge', { content: '🎮 振動は短く', category: '技術Tips' });
      await client.close();

      // Back to what version 4 indexed, and to its schema version.
      const db = new Database(path.join(store.home, 'prismind.db'));
      const { id, ...row } = db.prepare('SELECT * FROM catalog WHERE doc_id = ?').get(doc.doc_id) as {
        id: number;
        keywords: string;
      } & Record<string, string>;
      const entry = { ...row, keywords: JSON.parse(row.keywords) as string[] } as never;
      const oldText = normalizeText(catalogText(entry, `# ステージ設計\n\n${body}`.slice(0, 2000)));
      db.prepare('DELETE FROM catalog_tri WHERE rowid = ?').run(id);
      db.prepare('INSERT INTO catalog_tri (rowid, text) VALUES (?, ?)').run(id, oldText);
      db.prepare('DELETE FROM catalog_short WHERE rowid = ?').run(id);
      db.prepare('INSERT INTO catalog_short (rowid, text) VALUES (?, ?)').run(
        id,
        shortTermTokenList(textRuns(oldText)).join(' '),
      );
      const kn = db.prepare('SELECT id FROM knowledge').get() as { id: number };
      db.prepare('DELETE FROM knowledge_short WHERE rowid = ?').run(kn.id);
      db.prepare('INSERT INTO knowledge_short (rowid, text) VALUES (?, ?)').run(kn.id, '振 動 振動');
      // A store that had been searched: its files' sizes and mtimes are recorded (the server records
      // those it writes itself too), so no search reads them.
      const file = path.join(store.home, 'Projects', 'TrapxTrapCpp', '設計書', 'ステージ設計.md');
      const stat = statSync(file);
      db.prepare(
        'INSERT OR REPLACE INTO document_files (project, location, size, mtime_ms) VALUES (?, ?, ?, ?)',
      ).run('trapxtrap', '設計書/ステージ設計.md', stat.size, stat.mtimeMs);
      db.exec('DROP TABLE meta; PRAGMA user_version = 4');
      expect(db.prepare(`SELECT rowid FROM catalog_short WHERE catalog_short MATCH '"溶岩"'`).all()).toEqual(
        [],
      );
      db.close();

      client = await connect(store);
      const found = await client.call<{ documents: { doc_id: string; relevance_score: number }[] }>(
        'search_catalog',
        { query: '溶岩床' },
      );
      expect(found.documents.filter((d) => d.relevance_score >= 0.5).map((d) => d.doc_id)).toEqual([
        doc.doc_id,
      ]);
      const emoji = await client.call<{ knowledge: { content: string }[] }>('search_knowledge', {
        query: '🎮',
      });
      expect(emoji.knowledge.map((k) => k.content)).toEqual(['🎮 振動は短く']);
      await client.close();
      const after = new Database(path.join(store.home, 'prismind.db'), { readonly: true });
      expect(after.prepare('SELECT count(*) AS n FROM meta').get()).toEqual({ n: 0 });
      after.close();
    } finally {
      await store.cleanup();
    }
  });
});
