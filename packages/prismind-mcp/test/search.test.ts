import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, connect, withProject, type Connected, type StoreFixture } from './harness.js';

interface Found {
  total_count: number;
  knowledge: { content: string; relevance_score: number; tags: string[]; project: string | null }[];
  warnings?: string[];
}

const KNOWLEDGE = [
  {
    content: '罠を仕掛けるときはトリガーボリュームで当たり判定を作ると安定する',
    category: '技術Tips',
    tags: ['罠', 'UE5'],
  },
  {
    content: 'トラップ対戦ゲームではプレイヤーが罠を見抜けるように予兆エフェクトを出す',
    category: 'ベストプラクティス',
    tags: ['罠', '演出'],
  },
  {
    content: 'トラップの再配置はサーバ権限で行い、クライアントは予測だけする',
    category: '落とし穴',
    tags: ['ネットワーク'],
  },
  {
    content: 'UI のフォントはアトラスを事前生成しておくとヒッチが出ない',
    category: '技術Tips',
    tags: ['UI'],
  },
  {
    content: 'Build times drop when unity builds are disabled for the editor module',
    category: '技術Tips',
    tags: ['build'],
  },
  { content: '経費精算システムの承認フローは二段階にする', category: '問題解決', tags: ['業務'] },
];

describe.each(BACKENDS)('knowledge and catalog search ($name)', (backend) => {
  let store: StoreFixture;
  let client: Connected;
  beforeEach(async () => {
    store = await backend.create();
    client = await withProject(store);
    for (const k of KNOWLEDGE) await client.call('add_knowledge', { ...k, project: 'trapxtrap' });
    await client.call('add_knowledge', { content: '罠の説明文は短く、動詞で終える', category: '技術Tips' }); // general
  });
  afterEach(async () => {
    try {
      await client.close();
    } finally {
      await store.cleanup();
    }
  });

  const search = (args: Record<string, unknown>) =>
    client.call<Found>('search_knowledge', { limit: 10, ...args });

  it('a one-character Japanese term (「罠」) finds exactly the entries that contain it', async () => {
    const found = await search({ query: '罠' });
    const contents = found.knowledge.map((k) => k.content);
    expect(contents).toHaveLength(3);
    for (const c of contents) expect(c).toContain('罠');
    expect(contents).toContain('罠を仕掛けるときはトリガーボリュームで当たり判定を作ると安定する');
  });

  it('a long term (「トラップ」) finds 「トラップ対戦ゲーム」 as a substring', async () => {
    const found = await search({ query: 'トラップ' });
    expect(
      found.knowledge
        .map((k) => k.content)
        .slice(0, 2)
        .sort(),
    ).toEqual([KNOWLEDGE[1]!.content, KNOWLEDGE[2]!.content].sort());
    for (const k of found.knowledge.slice(0, 2)) expect(k.relevance_score).toBeGreaterThanOrEqual(0.5);
  });

  it('a short term mixed with a long one is neither dropped nor allowed to match everything', async () => {
    const found = await search({ query: '罠 トラップ' });
    // Only the entry with both terms contains every term, so it comes first, above the entries with one.
    expect(found.knowledge[0]!.content).toBe(KNOWLEDGE[1]!.content);
    expect(found.knowledge[0]!.relevance_score).toBeGreaterThanOrEqual(0.5);
    for (const k of found.knowledge.slice(1))
      expect(k.relevance_score).toBeLessThan(found.knowledge[0]!.relevance_score);
    // Entries with neither term are not results.
    const contents = found.knowledge.map((k) => k.content);
    expect(contents).not.toContain(KNOWLEDGE[3]!.content);
    expect(contents).not.toContain(KNOWLEDGE[5]!.content);
    // Sorted by score, all in [0, 1].
    const scores = found.knowledge.map((k) => k.relevance_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
  });

  it('a short Latin term matches whole words only ("UI" is not in "Build"); a longer one starts a word', async () => {
    const found = await search({ query: 'ui' });
    expect(found.knowledge.filter((k) => k.relevance_score >= 0.5).map((k) => k.content)).toEqual([
      KNOWLEDGE[3]!.content,
    ]);
    const prefix = await search({ query: 'unit BUILD' });
    expect(prefix.knowledge[0]!.content).toBe(KNOWLEDGE[4]!.content); // "unity builds"
    expect(prefix.knowledge[0]!.relevance_score).toBeGreaterThanOrEqual(0.5);
  });

  it('filters by category, project (general knowledge only without one) and tags with AND', async () => {
    expect(
      (await search({ query: '罠', category: '技術Tips' })).knowledge.map((k) => k.content).sort(),
    ).toEqual([KNOWLEDGE[0]!.content, '罠の説明文は短く、動詞で終える'].sort());
    expect((await search({ query: '罠', project: 'trapxtrap' })).knowledge).toHaveLength(2);
    expect((await search({ query: '罠', tags: ['罠', 'UE5'] })).knowledge.map((k) => k.content)).toEqual([
      KNOWLEDGE[0]!.content,
    ]);
    expect((await search({ query: '罠', tags: ['罠', '演出', 'UE5'] })).knowledge).toEqual([]);
    const general = (await search({ query: '説明文' })).knowledge[0]!;
    expect(general.project).toBeNull();
  });

  it('generates tags from Japanese content when none are given', async () => {
    const added = await client.call<{ tags: string[] }>('add_knowledge', {
      content: 'ビヘイビアツリーのデコレータで罠の発動条件を判定する',
      category: '技術Tips',
    });
    expect(added.tags).toEqual(expect.arrayContaining(['ビヘイビアツリー', 'デコレータ']));
    expect(added.tags).not.toContain('の');
    expect((await client.fail('add_knowledge', { content: '  ', category: 'x' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect(
      (await client.fail('add_knowledge', { content: 'x', category: 'x', project: 'nothere' })).code,
    ).toBe('NOT_FOUND');
    expect((await client.fail('add_knowledge', { content: 'あ'.repeat(30_000), category: 'x' })).code).toBe(
      'LIMIT_EXCEEDED',
    );
  });

  it('a word added to a query does not lose the document that matches another of its terms', async () => {
    await client.call('create_document', {
      name: '決済方式の選定',
      doc_type: '設計書',
      phase_task: '共通',
      feature: 'payment',
      content:
        '## 決定\n決済はStripeを採用する。理由: 3Dセキュア2対応。\n\n## 却下案\nPAY.JP（Webhookの再送制御が弱い）',
    });
    await client.call('create_document', {
      name: 'Inventory reservation design',
      doc_type: '設計書',
      phase_task: 'P1-T02',
      feature: 'inventory',
      content:
        '# Inventory reservation\nDecision: reserve stock for 15 minutes when an order is created; release on payment failure via a background job.',
    });
    const found = async (query: string) =>
      (await client.call<{ documents: { name: string }[] }>('search_catalog', { query })).documents.map(
        (d) => d.name,
      );
    expect(await found('payment provider')).toContain('決済方式の選定');
    // "decision" is rarer than "payment": its pieces must not crowd out those of the other terms.
    expect(await found('payment provider decision')).toEqual(
      expect.arrayContaining(['決済方式の選定', 'Inventory reservation design']),
    );
    // A document with more of the terms still comes before one with fewer.
    await client.call('create_document', {
      name: 'Payment provider comparison',
      doc_type: '設計書',
      phase_task: '共通',
      content: 'Stripe と PAY.JP の比較',
    });
    const ranked = await found('payment provider decision');
    expect(ranked.indexOf('Payment provider comparison')).toBeLessThan(ranked.indexOf('決済方式の選定'));
  });

  it('searches the catalog by short and long terms with every filter', async () => {
    await client.call('create_document', {
      name: '罠の配置設計',
      doc_type: '設計書',
      content: 'トラップ対戦ゲームの罠配置',
      phase_task: 'P2-T01',
      feature: 'TrapPlacement',
      reference_timing: '設計時',
    });
    await client.call('create_document', {
      name: '設計方針',
      doc_type: '設計書',
      content: '全体のアーキテクチャ',
      phase_task: '共通',
    });
    await client.call('create_document', {
      name: 'ビルド手順',
      doc_type: '実装手順書',
      content: 'Unity build を切る',
      phase_task: 'P2-T02',
      feature: 'Build',
      asset_type: 'C++',
    });
    const names = async (args: Record<string, unknown>) =>
      (await client.call<{ documents: { name: string }[] }>('search_catalog', args)).documents.map(
        (d) => d.name,
      );
    expect(await names({ query: '罠' })).toEqual(['罠の配置設計']);
    expect(await names({ query: '設計' })).toEqual(expect.arrayContaining(['罠の配置設計', '設計方針']));
    expect(await names({ query: 'トラップ対戦' })).toEqual(['罠の配置設計']);
    // A long term with a filter: the filter and the term both decide (PostgreSQL checks the filter first).
    const strictCount = async (args: Record<string, unknown>) =>
      (await client.call<{ total_count: number }>('search_catalog', args)).total_count;
    expect(await strictCount({ query: 'トラップ対戦', doc_type: '設計書' })).toBe(1);
    expect(await strictCount({ query: 'トラップ対戦', doc_type: '実装手順書' })).toBe(0);
    expect(await strictCount({ query: 'トラップ対決', doc_type: '設計書' })).toBe(0);
    expect(await names({ doc_type: 'design', phase_task: '共通' })).toEqual(['設計方針']);
    expect(await names({ feature: 'Build' })).toEqual(['ビルド手順']);
    expect(await names({ reference_timing: '設計時' })).toEqual(['罠の配置設計']);
    expect(await names({ project: 'trapxtrap', limit: 2 })).toHaveLength(2);
    const counted = await client.call('search_catalog', { limit: 1 });
    expect(counted.total_count).toBe(3);
    expect((await client.fail('search_catalog', { status: 'deleted' })).code).toBe('INVALID_ARGUMENT');
    expect((await client.fail('search_catalog', { reference_timing: 'いつか' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await client.fail('search_catalog', { project: 'nothere' })).code).toBe('NOT_FOUND');
  });
});

/** A local OpenAI-compatible /v1/embeddings endpoint: a bag-of-characters vector per input, with a log. */
async function fakeEmbedder(dim = 64) {
  const requests: { model: string; input: string[] }[] = [];
  let down = false;
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (down || req.url !== '/v1/embeddings' || req.method !== 'POST') {
        res.writeHead(down ? 503 : 404).end();
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      requests.push(parsed);
      const data = parsed.input.map((text, index) => {
        const v = new Array<number>(dim).fill(0);
        for (const ch of text) v[ch.codePointAt(0)! % dim]! += 1;
        return { object: 'embedding', index, embedding: v };
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model: parsed.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setDown: (value: boolean) => (down = value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(BACKENDS)('optional embeddings endpoint ($name)', (backend) => {
  it('uses the embedder for similarity, re-embeds after a model change, and degrades to n-grams with a warning', async () => {
    const store = await backend.create();
    const embedder = await fakeEmbedder();
    const config = (model: string) =>
      `[search]\nembeddings_url = "${embedder.url}"\nembeddings_model = "${model}"\nembeddings_timeout_ms = 2000\n`;
    const file = path.join(store.home, 'config.toml');
    await writeFile(file, config('fake-a'));
    let client = await connect(store, { configFile: file });
    try {
      await client.call('add_knowledge', {
        content: '罠を仕掛ける位置はスポーン地点から離す',
        category: '技術Tips',
      });
      await client.call('add_knowledge', { content: '落とし穴の深さは 2 マス', category: '技術Tips' });
      // Adding embedded each entry after its transaction.
      expect(embedder.requests.filter((r) => r.model === 'fake-a').length).toBe(2);
      const found = await client.call<Found>('search_knowledge', { query: '罠' });
      expect(found.knowledge[0]!.content).toContain('罠');
      expect(found.warnings).toBeUndefined();
      const last = embedder.requests.at(-1)!;
      expect(last.input).toEqual(['罠']); // candidates' vectors were stored: only the query is embedded
      await client.close();

      // Another model: stored vectors do not fit, so candidates are embedded again with the query.
      await writeFile(file, config('fake-b'));
      client = await connect(store, { configFile: file });
      await client.call<Found>('search_knowledge', { query: '罠' });
      expect(embedder.requests.at(-1)).toMatchObject({ model: 'fake-b' });
      expect(embedder.requests.at(-1)!.input.length).toBeGreaterThan(1);

      embedder.setDown(true);
      const degraded = await client.call<Found>('search_knowledge', { query: '罠' });
      expect(degraded.knowledge[0]!.content).toContain('罠');
      expect(degraded.warnings?.[0]).toContain('n-gram');
      // Adding still works while the embedder is down.
      expect(
        (await client.call('add_knowledge', { content: 'スパイクは 1 秒後に出る', category: '技術Tips' }))
          .success,
      ).toBe(true);
    } finally {
      await client.close();
      await embedder.close();
      await store.cleanup();
    }
  });
});
