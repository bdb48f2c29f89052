// Issue 22: what the tool list costs every session, and that a model reading only tools/list still calls
// each tool right.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { callAsListed, toolListBudgetProblems, toolListCosts } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, connect, workspace, type Connected } from './helpers.js';

/** Each tool's own budget: its size after issue 22 plus a small margin (README: tokens before → after). */
const BUDGETS = { session_new_id: 45, review_request: 375, review_list: 100 };

let ws: Awaited<ReturnType<typeof workspace>>;
let mcp: Connected;
beforeEach(async () => {
  ws = await workspace();
  mcp = await connect(ws.root, ws.home);
});
afterEach(async () => {
  await mcp.close();
  await ws.cleanup();
});

describe('the tool list', () => {
  it('keeps every tool within its budget (o200k tokens of name, description and input schema)', async () => {
    const costs = await toolListCosts(mcp.client, countTokens);
    expect(costs.map((c) => c.name).sort()).toEqual(Object.keys(BUDGETS).sort());
    expect(toolListBudgetProblems(costs, { tools: BUDGETS })).toEqual([]);
  });

  it('names every tool as Claude Desktop, Codex and Copilot CLI accept it (no dots)', async () => {
    const { tools } = await mcp.client.listTools();
    // Claude Desktop withholds a server's whole tool list when one name breaks this pattern.
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("refuses spec 004's dotted names like any unknown tool, naming the new ones", async () => {
    for (const old of ['session.new-id', 'review.request', 'review.list']) {
      const refused = await mcp.call(old, {});
      expect(refused.isError).toBe(true);
      expect(JSON.parse(refused.text)).toEqual({
        error: {
          code: 'NOT_FOUND',
          message: `Unknown tool "${old}".`,
          hint: 'Available tools: session_new_id, review_request, review_list.',
        },
      });
    }
  });

  it('every tool works when called with only what tools/list declares', async () => {
    const { tools } = await mcp.client.listTools();
    const id = await callAsListed(mcp.client, tools, 'session_new_id', {});
    expect(id.isError).toBe(false);
    const pending = await callAsListed(mcp.client, tools, 'review_request', {
      resume_key: id.text,
      title: 'Plan',
      root: ws.root,
      files: ['docs/plan.md'],
      working_path: ws.root,
      instructions: 'Check the order of the steps.',
      wait_seconds: 1,
    });
    expect(answer(pending)).toMatchObject({ status: 'pending', resume_key: id.text });
    const listed = await callAsListed(mcp.client, tools, 'review_list', { status: 'open', limit: 5 });
    expect(answer(listed)).toMatchObject({ total: 1, sessions: [{ resume_key: id.text, status: 'open' }] });
  });
});
