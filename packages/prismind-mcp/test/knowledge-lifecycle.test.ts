// Issue 23 item 5: wrong knowledge can be corrected or removed on every store, and search follows
// exactly (the old words no longer find it, the new ones do, tags and filters too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, withProject, type Connected, type StoreFixture } from './harness.js';

interface Found {
  total_count: number;
  knowledge: { knowledge_id: string; content: string; category: string; tags: string[]; source: string }[];
}

describe.each(BACKENDS)('correcting and deleting knowledge ($name)', (backend) => {
  let store: StoreFixture;
  let client: Connected;
  beforeAll(async () => {
    store = await backend.create();
    client = await withProject(store);
  });
  afterAll(async () => {
    try {
      await client.close();
    } finally {
      await store.cleanup();
    }
  });

  const ids = async (args: Record<string, unknown>) =>
    (await client.call<Found>('search_knowledge', { limit: 10, ...args })).knowledge
      .filter((k) => k.content.length > 0)
      .map((k) => k.knowledge_id);
  const strict = async (query: string) =>
    (await client.call<Found>('search_knowledge', { query })).total_count;

  it('updates content, category, tags and source, and removes an entry, keeping search exact', async () => {
    const wrong = await client.call<{ knowledge_id: string; tags: string[] }>('add_knowledge', {
      content: '落とし穴の当たり判定はサーバで毎フレーム確認する',
      category: '技術Tips',
      project: 'trapxtrap',
    });
    const tagged = await client.call<{ knowledge_id: string }>('add_knowledge', {
      content: 'スパイクの予兆エフェクトは 0.5 秒前に出す',
      category: 'ベストプラクティス',
      tags: ['演出', 'スパイク'],
    });
    expect(await strict('毎フレーム')).toBe(1);

    const corrected = await client.call<{ updated_fields: string[]; tags: string[] }>('update_knowledge', {
      knowledge_id: wrong.knowledge_id,
      content: '落とし穴の当たり判定はオーバーラップイベントで取り、ポーリングしない',
    });
    expect(corrected.updated_fields).toEqual(['content', 'tags']); // generated tags follow the content
    expect(corrected.tags).toContain('ポーリング');
    expect(await strict('毎フレーム')).toBe(0);
    expect(await ids({ query: 'オーバーラップイベント' })).toEqual([wrong.knowledge_id]);
    expect(await ids({ query: '落とし穴', tags: ['ポーリング'] })).toEqual([wrong.knowledge_id]);

    const moved = await client.call<{ updated_fields: string[] }>('update_knowledge', {
      knowledge_id: tagged.knowledge_id,
      category: '落とし穴',
      tags: ['演出', '予兆'],
      source: 'レビュー 11/26',
    });
    expect(moved.updated_fields).toEqual(['category', 'tags', 'source']);
    const found = (await client.call<Found>('search_knowledge', { query: 'スパイク', category: '落とし穴' }))
      .knowledge[0]!;
    expect(found).toMatchObject({ knowledge_id: tagged.knowledge_id, source: 'レビュー 11/26' });
    expect(await ids({ query: 'スパイク', category: 'ベストプラクティス' })).toEqual([]);
    expect(await ids({ query: 'スパイク', tags: ['スパイク'] })).toEqual([]);
    expect(await ids({ query: 'スパイク', tags: ['予兆'] })).toEqual([tagged.knowledge_id]);

    const removed = await client.call<{ deleted: { content: string } }>('update_knowledge', {
      knowledge_id: wrong.knowledge_id,
      delete: true,
    });
    expect(removed.deleted.content).toContain('オーバーラップイベント');
    expect(await strict('オーバーラップイベント')).toBe(0);
    expect(await ids({ query: '落とし穴' })).not.toContain(wrong.knowledge_id);
    expect(
      (await client.fail('update_knowledge', { knowledge_id: wrong.knowledge_id, delete: true })).code,
    ).toBe('NOT_FOUND');
    expect(
      (
        await client.fail('update_knowledge', {
          knowledge_id: tagged.knowledge_id,
          delete: true,
          content: 'x',
        })
      ).code,
    ).toBe('INVALID_ARGUMENT');
    expect((await client.fail('update_knowledge', { knowledge_id: tagged.knowledge_id })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect(
      (
        await client.fail('update_knowledge', {
          knowledge_id: tagged.knowledge_id,
          content: 'あ'.repeat(30_000),
        })
      ).code,
    ).toBe('LIMIT_EXCEEDED');
  });
});
