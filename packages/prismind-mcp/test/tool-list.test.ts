// Issue 22: the tool list every session pays for before its first call, and proof that a model that
// reads only that list (plus what the tools answer) still calls every tool right.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAsListed, toolListBudgetProblems, toolListCosts } from '@mcp-workbench/core/testing';
import { connect, localBackend, type Connected, type StoreFixture } from './harness.js';

/**
 * Each tool's own budget (o200k tokens of name + description + input schema): its size when set plus a
 * small margin, so an entry that grows is noticed. A new tool adds its line here.
 */
const BUDGETS: Record<string, number> = {
  setup_project: 250,
  switch_project: 55,
  list_projects: 45,
  update_project: 230,
  delete_project: 80,
  start_session: 120,
  end_session: 115,
  save_session: 120,
  get_document: 165,
  create_document: 325,
  update_document: 170,
  search_catalog: 210,
  sync_catalog: 75,
  get_progress: 90,
  update_progress: 300,
  add_knowledge: 150,
  search_knowledge: 125,
  update_knowledge: 130,
};

type Tool = Awaited<ReturnType<Connected['client']['listTools']>>['tools'][number];

let store: StoreFixture;
let client: Connected;
let tools: Tool[];

beforeAll(async () => {
  store = await localBackend.create();
  client = await connect(store);
  tools = (await client.client.listTools()).tools;
});
afterAll(async () => {
  try {
    await client.close();
  } finally {
    await store.cleanup();
  }
});

describe('the tool list', () => {
  it('stays within 250 tokens per tool on average, none over 500, each within its own budget', async () => {
    const costs = await toolListCosts(client.client, countTokens);
    expect(costs.map((cost) => cost.name).filter((name) => !(name in BUDGETS))).toEqual([]);
    expect(toolListBudgetProblems(costs, { average: 250, perTool: 500, tools: BUDGETS })).toEqual([]);
  });
});

describe('every tool, called from what tools/list says', () => {
  it('sets a project up, runs a session, writes and finds documents, progress and knowledge', async () => {
    const driven = new Set<string>();
    const ok = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) => {
      const result = await callAsListed<T>(client.client, tools, name, args);
      expect(result.isError, `${name}: ${result.text}`).toBe(false);
      driven.add(name);
      return result.structured;
    };

    const setup = await ok<{ success: boolean }>('setup_project', {
      project: 'trapxtrap',
      name: 'TrapxTrapCpp',
      description: '1v1トラップアクションゲーム',
    });
    expect(setup.success).toBe(true);
    await ok('setup_project', { project: 'payroll', name: '経費精算', force: true });
    expect((await ok<{ projects: unknown[] }>('list_projects')).projects).toHaveLength(2);
    await ok('switch_project', { project: 'trapxtrap' });
    const updated = await ok<{ updated_fields: string[] }>('update_project', {
      project: 'trapxtrap',
      description: '1v1 トラップ対戦',
      options: { auto_sync_catalog: true },
    });
    expect(updated.updated_fields).toEqual(['description']);

    await ok('start_session', {});
    await ok('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 4', task_id: 'T01', name: 'BTノード生成' },
    });
    await ok('update_progress', { task_id: 'P4-T01', status: 'in_progress', priority: 'high' });
    const progress = await ok<{ current_phase: string }>('get_progress', { include_completed: true });
    expect(progress.current_phase).toBe('Phase 4');

    const created = await ok<{ doc_id: string }>('create_document', {
      name: 'BTノード生成手順',
      doc_type: '実装手順書',
      content: '## 手順\n\n1. ビヘイビアツリーを開く',
      phase_task: 'P4-T01',
      feature: 'BTノード生成',
      asset_type: 'Blueprint',
      reference_timing: '実装時',
    });
    const found = await ok<{ found: boolean; document: { metadata: { content_hash: string } } }>(
      'get_document',
      { query: 'BTノード生成手順' },
    );
    expect(found.found).toBe(true);
    await ok('update_document', {
      doc_id: created.doc_id,
      content: '2. デコレータを足す',
      append: true,
      expected_hash: found.document.metadata.content_hash,
    });
    const listed = await ok<{ total_count: number }>('search_catalog', {
      query: 'デコレータ',
      doc_type: '実装手順書',
    });
    expect(listed.total_count).toBe(1);
    expect((await ok<{ synced_count: number }>('sync_catalog', {})).synced_count).toBe(1);

    const added = await ok<{ knowledge_id: string }>('add_knowledge', {
      content: '罠はトリガーボリュームで判定すると安定する',
      category: '技術Tips',
    });
    const knowledge = await ok<{ total_count: number }>('search_knowledge', { query: '罠', limit: 3 });
    expect(knowledge.total_count).toBe(1);
    const corrected = await ok<{ updated_fields: string[] }>('update_knowledge', {
      knowledge_id: added.knowledge_id,
      category: '落とし穴',
    });
    expect(corrected.updated_fields).toEqual(['category']);

    await ok('save_session', { notes: '途中' });
    await ok('end_session', { summary: 'BTノード生成の手順書を書いた', next_action: 'デコレータ' });
    expect(
      (await ok<{ success: boolean }>('delete_project', { project: 'payroll', confirm: true })).success,
    ).toBe(true);

    expect([...driven].sort()).toEqual(tools.map((tool) => tool.name).sort());
  });
});
