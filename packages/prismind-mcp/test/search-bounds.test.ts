// Issue 23 items 1, 2, 3 and 6 on every store: the work of a query is bounded, documents are indexed
// whole, generated keywords stay short, totals do not depend on limit, emoji are found, NUL is refused
// with a clear error, and an append cannot grow a document past its limit.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, withProject, type Connected, type StoreFixture } from './harness.js';

interface Found {
  total_count: number;
  knowledge: { content: string; relevance_score: number }[];
  warnings?: string[];
  message: string;
}
interface Catalog {
  total_count: number;
  documents: { doc_id: string; name: string; keywords: string[]; relevance_score?: number }[];
}

/** Japanese prose of about `n` characters in sentences (no term the tests look for). */
function prose(n: number): string {
  const sentences = [
    '敵の出現位置はマップの端から決める。',
    'カメラは壁に当たると手前に寄る。',
    '入力の遅延は一フレーム以内に抑える。',
    'セーブデータは章ごとに分けて保存する。',
  ];
  let text = '';
  for (let i = 0; text.length < n; i++)
    text += sentences[i % sentences.length]! + (i % 9 === 8 ? '\n\n' : '');
  return text.slice(0, n);
}

describe.each(BACKENDS)('search bounds and whole documents ($name)', (backend) => {
  let store: StoreFixture;
  let client: Connected;
  beforeAll(async () => {
    store = await backend.create();
    // A small document limit, so the append test needs no megabyte.
    const config = path.join(store.home, 'config.toml');
    await writeFile(config, '[limits]\nmax_document_bytes = 200000\n');
    client = await withProject(store, { configFile: config });
  });
  afterAll(async () => {
    try {
      await client.close();
    } finally {
      await store.cleanup();
    }
  });

  it('refuses an over-long query and a query with nothing to search, and matches by at most 32 terms', async () => {
    await client.call('add_knowledge', { content: '罠はトリガーボリュームで判定する', category: '技術Tips' });
    const long = 'あ'.repeat(10_001);
    for (const [tool, args] of [
      ['search_knowledge', { query: long }],
      ['search_catalog', { query: long }],
      ['get_document', { query: long }],
    ] as const) {
      const error = await client.fail(tool, args);
      expect(error.code, tool).toBe('LIMIT_EXCEEDED');
      expect(error.message).toContain('10000');
    }
    for (const tool of ['search_knowledge', 'search_catalog', 'get_document'] as const) {
      expect((await client.fail(tool, { query: '\u0000' })).code, tool).toBe('INVALID_ARGUMENT');
      expect((await client.fail(tool, { query: '？！…' })).code, tool).toBe('INVALID_ARGUMENT');
    }
    const nul = await client.fail('add_knowledge', { content: 'a\u0000b', category: '技術Tips' });
    expect(nul.code).toBe('INVALID_ARGUMENT');
    expect(nul.message).toContain('content');
    // A pasted page of 10,000 characters: answered, matched by its first 32 terms, said so.
    const page = Array.from({ length: 1500 }, (_, i) => `w${i}`).join(' ') + ' 罠';
    expect(page.length).toBeLessThanOrEqual(10_000);
    const found = await client.call<Found>('search_knowledge', { query: page.slice(0, 10_000) });
    expect(found.warnings?.some((w) => w.includes('32'))).toBe(true);
  });

  it('finds emoji, and counts the same total whatever the limit', async () => {
    await client.call('add_knowledge', { content: '🎮 コントローラの振動は短く', category: '技術Tips' });
    await client.call('add_knowledge', { content: 'ビルド成功の通知に ✅ を付ける', category: '技術Tips' });
    expect((await client.call<Found>('search_knowledge', { query: '🎮' })).knowledge[0]!.content).toContain(
      '🎮',
    );
    expect((await client.call<Found>('search_knowledge', { query: '✅️' })).knowledge[0]!.content).toContain(
      '✅',
    );
    for (let i = 0; i < 6; i++)
      await client.call('add_knowledge', { content: `振動モーターの調整 ${i}`, category: '技術Tips' });
    const totals: number[] = [];
    for (const limit of [1, 5, 10, 50]) {
      const found = await client.call<Found>('search_knowledge', { query: '振動 調整', limit });
      totals.push(found.total_count);
      expect(found.knowledge.length).toBeLessThanOrEqual(limit);
    }
    expect(totals).toEqual([6, 6, 6, 6]);
  });

  it('indexes documents whole: a term past the first 2,000 characters, near the end, in an appended section', async () => {
    const content = `${prose(3000)}隠し通路の仕様${prose(47_000)}終端の溶岩床。`;
    const created = await client.call<{ doc_id: string; keywords: string[] }>('create_document', {
      name: 'ステージ全体設計',
      doc_type: '設計書',
      content: `${content}\n\n${'QUJD'.repeat(2500)}\n`,
      phase_task: '共通',
    });
    // A 10,000-character token is no keyword (it used to be one, and every catalog answer carried it).
    const blob = await client.call<{ keywords: string[] }>('create_document', {
      name: '添付データ',
      doc_type: 'その他',
      content: `${'QUJD'.repeat(2500)} ライセンス`,
      phase_task: '共通',
    });
    expect(blob.keywords).toContain('ライセンス');
    for (const keyword of [...created.keywords, ...blob.keywords])
      expect(keyword.length).toBeLessThanOrEqual(40);
    const names = async (query: string) =>
      (await client.call<Catalog>('search_catalog', { query })).documents
        .filter((d) => (d.relevance_score ?? 0) >= 0.5)
        .map((d) => d.doc_id);
    expect(await names('隠し通路')).toEqual([created.doc_id]);
    expect(await names('溶岩床')).toEqual([created.doc_id]);
    expect(await names('隠し通路 溶岩床')).toEqual([created.doc_id]);
    const byQuery = await client.call<{ found: boolean; document?: { doc_id: string } }>('get_document', {
      query: '溶岩床',
    });
    expect(byQuery.document?.doc_id).toBe(created.doc_id);
    await client.call('update_document', {
      doc_id: created.doc_id,
      content: '## 追記\n\n氷結トラップ',
      append: true,
    });
    expect(await names('氷結トラップ')).toEqual([created.doc_id]);
    if (backend.name === 'local') {
      // A hand edit near the end of the file is found without sync_catalog.
      const file = path.join(store.home, 'Projects', 'TrapxTrapCpp', '設計書', 'ステージ全体設計.md');
      await writeFile(file, (await readFile(file, 'utf8')).replace('終端の溶岩床', '終端の毒沼'));
      let found: string[] = [];
      for (let i = 0; i < 50 && found.length === 0; i++) {
        found = await names('毒沼');
        if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(found).toEqual([created.doc_id]);
    }
    // After sync_catalog (the cache rebuilt from the master) the end is still found.
    await client.call('sync_catalog', {});
    expect(await names('氷結トラップ')).toEqual([created.doc_id]);
  });

  it('matches a long document term by term across its sections, the first one included', async () => {
    // Long (several sections): 「螺旋」, "lever" and 「螺旋階段」 in the first section only, 「落石」,
    // "windmill" and 「落石装置」 only near the end; the pieces of 「溶岩洞窟」 apart in the first section
    // (溶岩洞 in 溶岩洞穴, 岩洞窟 in 玄武岩洞窟), never the term.
    const long = await client.call<{ doc_id: string }>('create_document', {
      name: '地下迷宮設計',
      doc_type: '設計書',
      content: `螺旋階段の lever と溶岩洞穴と玄武岩洞窟。${prose(20_000)}落石装置の windmill。`,
      phase_task: '共通',
    });
    const strict = async (query: string) => {
      const found = await client.call<Catalog>('search_catalog', { query });
      return { total: found.total_count, first: found.documents[0]?.doc_id };
    };
    const only = { total: 1, first: long.doc_id };
    // One term: in the first section or in a later one.
    for (const query of ['螺旋', 'lever', '落石', 'windmill', '落石装置', '螺旋階段'])
      expect(await strict(query), query).toEqual(only);
    // Several: each in the first section or a later one, in any combination.
    for (const query of [
      '螺旋 落石',
      'lever windmill',
      '落石 windmill',
      'windmill 螺旋 lever',
      '螺旋階段 落石装置',
    ])
      expect(await strict(query), query).toEqual(only);
    expect((await strict('螺旋 迷子')).total).toBe(0);
    // A term of four characters or more whose pieces are all in the document counts as found on every
    // store (the local store's trigram index matches pieces), alone or beside a term of a later section.
    expect(await strict('溶岩洞窟')).toEqual(only);
    expect(await strict('溶岩洞窟 windmill')).toEqual(only);
  });

  it('refuses an append that would grow a document past the limit, and keeps the document', async () => {
    const doc = await client.call<{ doc_id: string }>('create_document', {
      name: '上限テスト',
      doc_type: '設計書',
      content: 'あ'.repeat(60_000),
      phase_task: '共通',
    });
    const error = await client.fail('update_document', {
      doc_id: doc.doc_id,
      content: 'い'.repeat(10_000),
      append: true,
    });
    expect(error.code).toBe('LIMIT_EXCEEDED');
    const kept = await client.call<{ document: { content: string } }>('get_document', { doc_id: doc.doc_id });
    expect(kept.document.content).not.toContain('い');
  });
});
