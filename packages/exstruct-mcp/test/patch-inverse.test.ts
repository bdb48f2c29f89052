// Every op kind, through a real MCP client: apply it with return_inverse_ops, apply the inverse ops
// to the result, and compare what an independent reader (exceljs) sees with the original.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OP_NAMES } from '../src/patch/op-schemas.js';
import { buildRichWorkbook, snapshot, workspace, type Workspace } from './patch-helpers.js';

interface PatchOut {
  out_path: string;
  patch_diff: { status: string }[];
  inverse_ops: Record<string, unknown>[];
  warnings: string[];
  error: unknown;
}

const CASES: { name: string; file: string; ops: Record<string, unknown>[] }[] = [
  {
    name: 'set_value',
    file: 'basic',
    ops: [
      { op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 'text' },
      { op: 'set_value', sheet: 'Sheet1', cell: 'H20', value: 3.5 },
    ],
  },
  {
    name: 'set_value (clearing a formula)',
    file: 'formula',
    ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C9', value: null }],
  },
  {
    name: 'set_formula',
    file: 'basic',
    ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'C4', formula: '=D4*2' }],
  },
  {
    name: 'add_sheet',
    file: 'basic',
    ops: [
      { op: 'add_sheet', sheet: 'New' },
      { op: 'set_value', sheet: 'New', cell: 'A1', value: 1 },
    ],
  },
  {
    name: 'set_range_values',
    file: 'formula',
    ops: [
      {
        op: 'set_range_values',
        sheet: 'Sheet1',
        range: 'B9:C10',
        values: [
          [1, 'a'],
          [true, null],
        ],
      },
    ],
  },
  {
    name: 'fill_formula',
    file: 'basic',
    ops: [{ op: 'fill_formula', sheet: 'Sheet1', range: 'C4:E4', base_cell: 'C4', formula: '=C5+1' }],
  },
  {
    name: 'set_value_if',
    file: 'basic',
    ops: [{ op: 'set_value_if', sheet: 'Sheet1', cell: 'C4', expected: 120, value: 0 }],
  },
  {
    name: 'set_formula_if',
    file: 'basic',
    ops: [{ op: 'set_formula_if', sheet: 'Sheet1', cell: 'C4', expected: '120', formula: '=1+1' }],
  },
  { name: 'set_bold', file: 'basic', ops: [{ op: 'set_bold', sheet: 'Sheet1', range: 'B3:E4' }] },
  {
    name: 'set_font_size',
    file: 'basic',
    ops: [{ op: 'set_font_size', sheet: 'Sheet1', cell: 'B4', font_size: 16 }],
  },
  {
    name: 'set_font_color',
    file: 'basic',
    ops: [{ op: 'set_font_color', sheet: 'Sheet1', range: 'B4:C5', color: '#FF0000' }],
  },
  {
    name: 'set_fill_color',
    file: 'basic',
    ops: [{ op: 'set_fill_color', sheet: 'Sheet1', range: 'A1:C2', fill_color: '#D9E1F2' }],
  },
  {
    name: 'set_alignment',
    file: 'basic',
    ops: [
      {
        op: 'set_alignment',
        sheet: 'Sheet1',
        range: 'B3:E3',
        horizontal_align: 'center',
        vertical_align: 'top',
        wrap_text: true,
      },
    ],
  },
  {
    name: 'set_style',
    file: 'basic',
    ops: [
      {
        op: 'set_style',
        sheet: 'Sheet1',
        cell: 'E9',
        bold: true,
        font_size: 9,
        color: '#FFFFFF',
        fill_color: '#1F3864',
        horizontal_align: 'right',
      },
    ],
  },
  {
    name: 'draw_grid_border',
    file: 'basic',
    ops: [{ op: 'draw_grid_border', sheet: 'Sheet1', base_cell: 'G2', row_count: 3, col_count: 2 }],
  },
  {
    name: 'set_dimensions',
    file: 'basic',
    ops: [
      {
        op: 'set_dimensions',
        sheet: 'Sheet1',
        rows: [3, 12],
        row_height: 30,
        columns: ['B', 4],
        column_width: 25,
      },
    ],
  },
  { name: 'merge_cells', file: 'basic', ops: [{ op: 'merge_cells', sheet: 'Sheet1', range: 'C4:D5' }] },
  { name: 'unmerge_cells', file: 'formula', ops: [{ op: 'unmerge_cells', sheet: 'Sheet1', range: 'A1:C9' }] },
  {
    name: 'rename_sheet',
    file: 'rich',
    ops: [{ op: 'rename_sheet', sheet: 'Data', new_name: 'Figures2024' }],
  },
  { name: 'delete_sheet', file: 'rich', ops: [{ op: 'delete_sheet', sheet: 'Data' }] },
  {
    name: 'restore_design_snapshot',
    file: 'basic',
    ops: [
      {
        op: 'restore_design_snapshot',
        sheet: 'Sheet1',
        design_snapshot: {
          cell_styles: [{ cell: 'B4', style_id: 0 }],
          column_widths: [{ column: 'C', width: 30 }],
        },
      },
    ],
  },
];

let ws: Workspace;
const files: Record<string, string> = {};
beforeAll(async () => {
  ws = await workspace();
  files.basic = await ws.fixture('basic__sample.xlsx');
  files.formula = await ws.fixture('formula__formula.xlsx');
  files.rich = path.join(ws.dir, 'rich.xlsx');
  await buildRichWorkbook(files.rich);
});
afterAll(async () => ws.close());

describe('inverse ops restore the workbook (spec 12.7)', () => {
  it('covers every op kind', () => {
    const covered = new Set(CASES.flatMap((c) => c.ops.map((o) => o.op as string)));
    expect(OP_NAMES.filter((op) => !covered.has(op))).toEqual([]);
  });

  it.each(CASES)('$name', async ({ name, file, ops }) => {
    const input = files[file]!;
    const outName = `${name.replace(/\W+/g, '_')}.xlsx`;
    const patched = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops,
      out_name: outName,
      return_inverse_ops: true,
      on_conflict: 'overwrite',
    });
    expect(patched.isError, patched.text).toBe(false);
    expect(patched.structured.error).toBeNull();
    expect(patched.structured.patch_diff.every((d) => d.status === 'applied')).toBe(true);
    const original = await snapshot(input);
    expect(await snapshot(patched.structured.out_path)).not.toEqual(original);
    expect(patched.structured.inverse_ops.length).toBeGreaterThan(0);
    const restored = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: patched.structured.out_path,
      ops: patched.structured.inverse_ops,
      out_name: `restored_${outName}`,
      on_conflict: 'overwrite',
    });
    expect(restored.structured.error).toBeNull();
    expect(await snapshot(restored.structured.out_path)).toEqual(original);
  });
});
