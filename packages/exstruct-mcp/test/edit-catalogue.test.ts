import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OP_NAMES } from '../src/patch/op-schemas.js';
import { parseOps } from '../src/patch/parse-ops.js';
import { workspace, type Workspace } from './patch-helpers.js';

interface Summary {
  op: string;
  description: string;
  required: string[];
  optional: string[];
  rules: string[];
  example: Record<string, unknown>;
}

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => ws.close());

describe('exstruct_list_ops / exstruct_describe_op', () => {
  it('lists every op the engine accepts, with fields, and an example the engine validates', async () => {
    const res = await ws.call<{ ops: Summary[] }>('exstruct_list_ops', {});
    expect(res.structured.ops.map((o) => o.op)).toEqual(OP_NAMES);
    for (const op of res.structured.ops) {
      expect(op.description.length).toBeGreaterThan(10);
      expect(() => parseOps([op.example])).not.toThrow();
    }
    const setValue = res.structured.ops.find((o) => o.op === 'set_value')!;
    expect(setValue.required).toEqual(['sheet', 'cell', 'value']);
    const bold = res.structured.ops.find((o) => o.op === 'set_bold')!;
    expect(bold.required).toEqual(['sheet']);
    expect(bold.optional).toEqual(['cell', 'range', 'bold']);
    expect(res.structured.ops.find((o) => o.op === 'set_value_if')!.optional).toEqual(['expected']);
  });

  it('describes one op with field meanings and the JSON Schema used for validation', async () => {
    const res = await ws.call<
      Summary & {
        fields: { name: string; required: boolean; description: string }[];
        json_schema: { properties: Record<string, unknown>; required: string[] };
      }
    >('exstruct_describe_op', { op: 'fill_formula' });
    expect(res.isError).toBe(false);
    expect(res.structured.fields.map((f) => f.name)).toEqual(['sheet', 'range', 'base_cell', 'formula']);
    expect(res.structured.fields.find((f) => f.name === 'base_cell')!.description).toMatch(
      /references shift/,
    );
    expect(res.structured.json_schema.required).toEqual(
      expect.arrayContaining(['op', 'sheet', 'range', 'base_cell', 'formula']),
    );
    expect(res.structured.rules.join(' ')).toMatch(/single row or a single column/);
  });

  it('an unknown op is NOT_FOUND with the list of ops', async () => {
    const res = await ws.call('exstruct_describe_op', { op: 'set_colour' });
    expect(res.error?.code).toBe('NOT_FOUND');
    expect(res.error?.hint).toContain('set_fill_color');
  });

  it('the patch tool schema names the ops', async () => {
    const { tools } = await ws.client.client.listTools();
    const patch = tools.find((t) => t.name === 'exstruct_patch')!;
    expect(JSON.stringify(patch.inputSchema)).toContain('set_range_values');
    expect(patch.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'exstruct_list_ops')!.annotations).toMatchObject({
      readOnlyHint: true,
    });
  });
});
