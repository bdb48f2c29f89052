// Issue 22: the tool list every session pays for before its first call, and proof that a model that
// reads only that list (plus what the tools answer) still calls every tool right.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callAsListed,
  toolListBudgetProblems,
  toolListCosts,
  type TestClient,
} from '@mcp-workbench/core/testing';
import { workspace, type Workspace } from './patch-helpers.js';

/**
 * Each tool's own budget (o200k tokens of name + description + input schema): its size when set plus a
 * small margin, so an entry that grows is noticed. A new tool adds its line here. exstruct_patch keeps
 * room for the op names of issue 27 (its ops list grows with every op).
 */
const BUDGETS: Record<string, number> = {
  exstruct_validate_input: 115,
  exstruct_extract: 420,
  exstruct_read_json_chunk: 300,
  exstruct_read_range: 180,
  exstruct_read_cells: 150,
  exstruct_read_formulas: 120,
  exstruct_get_runtime_info: 55,
  exstruct_patch: 470,
  exstruct_make: 300,
  exstruct_list_ops: 45,
  exstruct_describe_op: 60,
  exstruct_capture_sheet_images: 170,
};

type Tool = Awaited<ReturnType<TestClient['client']['listTools']>>['tools'][number];

let ws: Workspace;
let tools: Tool[];

beforeAll(async () => {
  ws = await workspace();
  tools = (await ws.client.client.listTools()).tools;
});
afterAll(async () => {
  await ws.close();
});

describe('the tool list', () => {
  it('stays within 250 tokens per tool on average, none over 500, each within its own budget', async () => {
    const costs = await toolListCosts(ws.client.client, countTokens);
    expect(costs.map((cost) => cost.name).filter((name) => !(name in BUDGETS))).toEqual([]);
    expect(toolListBudgetProblems(costs, { average: 250, perTool: 500, tools: BUDGETS })).toEqual([]);
  });
});

describe('every tool, called from what tools/list says', () => {
  const listed = (name: string) => tools.find((tool) => tool.name === name)!;
  const call = <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) =>
    callAsListed<T>(ws.client.client, tools, name, args);

  it('reads, extracts, edits and creates a workbook', async () => {
    const driven = new Set<string>();
    const ok = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) => {
      const result = await call<T>(name, args);
      expect(result.isError, `${name}: ${result.text}`).toBe(false);
      driven.add(name);
      return result.structured;
    };
    const book = await ws.fixture('formula__formula.xlsx', 'book.xlsx');

    const info = await ok<{ roots: string[] }>('exstruct_get_runtime_info');
    expect(info.roots).toEqual([ws.dir]);
    const check = await ok<{ is_readable: boolean; sheet_names: string[] }>('exstruct_validate_input', {
      xlsx_path: 'book.xlsx',
    });
    expect(check.is_readable).toBe(true);
    const sheet = check.sheet_names[0]!;

    // verbose, as read_formulas' and read_range's descriptions ask for formulas.
    const extracted = await ok<{ out_path: string }>('exstruct_extract', {
      xlsx_path: book,
      mode: 'verbose',
      options: { alpha_col: true },
    });
    const out = extracted.out_path;
    expect(existsSync(out)).toBe(true);
    const chunk = await ok<{ chunk: { sheet_name: string } }>('exstruct_read_json_chunk', {
      out_path: out,
      sheet,
      max_bytes: 50_000,
      filter: { rows: [1, 5], cols: [1, 3] },
    });
    expect(chunk.chunk.sheet_name).toBe(sheet);
    const range = await ok<{ cells: unknown[] }>('exstruct_read_range', {
      out_path: out,
      sheet,
      range: 'A1:B3',
      include_formulas: true,
      include_empty: false,
      max_cells: 100,
    });
    expect(range.cells.length).toBeGreaterThan(0);
    const cells = await ok<{ cells: unknown[]; missing_cells: string[] }>('exstruct_read_cells', {
      out_path: out,
      sheet,
      addresses: ['A1', 'ZZ999'],
    });
    expect(cells.missing_cells).toEqual(['ZZ999']);
    const formulas = await ok<{ formulas: unknown[] }>('exstruct_read_formulas', {
      out_path: out,
      sheet,
      include_values: true,
    });
    expect(formulas.formulas.length).toBeGreaterThan(0);

    const catalogue = await ok<{ ops: Array<{ op: string }> }>('exstruct_list_ops');
    expect(catalogue.ops.map((op) => op.op)).toContain('set_value');
    const described = await ok<{ op: string; fields: unknown[] }>('exstruct_describe_op', {
      op: 'set_value',
    });
    expect(described.fields.length).toBeGreaterThan(0);

    // The ops are the examples the listed descriptions give, word for word (with the real sheet name).
    const opsText = (
      listed('exstruct_patch').inputSchema.properties as Record<string, { description: string }>
    ).ops!.description;
    const patchExample = JSON.parse(/\{"op":"set_value".*?\}/.exec(opsText)![0]) as Record<string, unknown>;
    const patched = await ok<{ out_path: string; patch_diff: Array<{ status: string }> }>('exstruct_patch', {
      xlsx_path: book,
      ops: [{ ...patchExample, sheet }],
      dry_run: false,
      return_inverse_ops: true,
    });
    expect(path.basename(patched.out_path)).toBe('book_patched.xlsx');
    expect(patched.patch_diff.map((item) => item.status)).toEqual(['applied']);
    const makeExample = JSON.parse(
      /\[\{"op".*?\}\]/.exec(listed('exstruct_make').description!)![0],
    ) as unknown[];
    const made = await ok<{ out_path: string }>('exstruct_make', {
      out_path: 'made.xlsx',
      ops: makeExample,
      preflight_formula_check: true,
    });
    expect(existsSync(made.out_path)).toBe(true);
    const images = await ok<{ image_paths: string[] }>('exstruct_capture_sheet_images', {
      xlsx_path: book,
      sheet,
      range: 'A1:C5',
      dpi: 72,
    });
    expect(images.image_paths.every((file) => existsSync(file))).toBe(true);

    expect([...driven].sort()).toEqual(tools.map((tool) => tool.name).sort());
  });
});
