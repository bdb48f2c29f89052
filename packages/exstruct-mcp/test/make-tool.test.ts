import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPart, readWorkbook, workspace, type Workspace, patchError } from './patch-helpers.js';

interface Out {
  out_path: string;
  patch_diff: { op: string; status: string }[];
  inverse_ops: unknown[];
  formula_issues: { code: string }[];
  warnings: string[];
  error: { op_index: number; message: string } | null;
}

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

describe('exstruct_make', () => {
  it('creates a workbook from ops that an independent reader opens', async () => {
    const res = await ws.call<Out>('exstruct_make', {
      out_path: 'reports/sales.xlsx',
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Sheet1',
          range: 'A1:B3',
          values: [
            ['Month', 'Sales'],
            ['Jan', 120],
            ['Feb', 80],
          ],
        },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'B4', formula: '=SUM(B2:B3)' },
        {
          op: 'set_style',
          sheet: 'Sheet1',
          range: 'A1:B1',
          bold: true,
          fill_color: '#1F3864',
          color: '#FFFFFF',
        },
        { op: 'set_dimensions', sheet: 'Sheet1', columns: ['A'], column_width: 20 },
        { op: 'add_sheet', sheet: 'Notes' },
        { op: 'set_value', sheet: 'Notes', cell: 'A1', value: 'made by exstruct_make' },
        { op: 'merge_cells', sheet: 'Notes', range: 'A1:D1' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.out_path).toBe(path.join(ws.dir, 'reports/sales.xlsx'));
    const book = await readWorkbook(res.structured.out_path);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Sheet1', 'Notes']);
    const sheet = book.getWorksheet('Sheet1')!;
    expect(sheet.getCell('A2').value).toBe('Jan');
    expect(sheet.getCell('B4').value).toMatchObject({ formula: 'SUM(B2:B3)' });
    expect(sheet.getCell('A1').font).toMatchObject({ bold: true, color: { argb: 'FFFFFFFF' } });
    expect(sheet.getCell('B1').fill).toMatchObject({
      type: 'pattern',
      pattern: 'solid',
      fgColor: { argb: 'FF1F3864' },
    });
    expect(sheet.getColumn('A').width).toBe(20);
    expect(book.getWorksheet('Notes')!.model.merges).toEqual(['A1:D1']);
  });

  it('says nothing of dependent formulas in a new workbook (it has none), only that formulas written have no value yet', async () => {
    const values = await ws.call<Out>('exstruct_make', {
      out_path: 'values.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 3 }],
    });
    expect(values.isError, values.text).toBe(false);
    expect(values.structured.warnings).toEqual([]);
    const formula = await ws.call<Out>('exstruct_make', {
      out_path: 'formula.xlsx',
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'A1', formula: '=1+2' }],
    });
    expect(formula.structured.warnings.join(' ')).toMatch(/Formulas written have no value yet/);
  });

  it('with no ops makes an empty workbook with one sheet, named by `sheet` if given', async () => {
    const res = await ws.call<Out>('exstruct_make', { out_path: 'empty.xlsx', sheet: 'Input' });
    expect(res.structured.error).toBeNull();
    expect((await readWorkbook(res.structured.out_path)).worksheets.map((s) => s.name)).toEqual(['Input']);
  });

  it('refuses a first sheet name that add_sheet refuses, with the same reason', async () => {
    for (const name of ['History', "'q", "q'", ' ', '', 'a:b', 'x'.repeat(32)]) {
      const made = await ws.call('exstruct_make', { out_path: 'bad.xlsx', sheet: name, dry_run: true });
      const added = await ws.call<Out>('exstruct_make', {
        out_path: 'bad.xlsx',
        dry_run: true,
        ops: [{ op: 'add_sheet', sheet: name }],
      });
      const reason = added.error?.message ?? patchError(added)?.message;
      expect(made.error?.code, JSON.stringify(name)).toBe('INVALID_ARGUMENT');
      expect(reason, JSON.stringify(name)).toBeTruthy();
      if (name.trim() !== '') expect(made.error?.message).toContain(patchError(added)!.message);
    }
    // Surrounding spaces are trimmed, as add_sheet's name is.
    const trimmed = await ws.call<Out>('exstruct_make', { out_path: 'ok.xlsx', sheet: ' Input ' });
    expect((await readWorkbook(trimmed.structured.out_path)).worksheets.map((s) => s.name)).toEqual([
      'Input',
    ]);
  });

  it('makes a macro-enabled .xlsm with the right content type', async () => {
    const res = await ws.call<Out>('exstruct_make', {
      out_path: 'm.xlsm',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 1 }],
    });
    expect(await readPart(res.structured.out_path, '[Content_Types].xml')).toContain(
      'application/vnd.ms-excel.sheet.macroEnabled.main+xml',
    );
  });

  it('follows on_conflict and writes nothing on dry_run or a failing op', async () => {
    await ws.call('exstruct_make', { out_path: 'a.xlsx' });
    const original = await readFile(path.join(ws.dir, 'a.xlsx'));
    const skipped = await ws.call<Out>('exstruct_make', {
      out_path: 'a.xlsx',
      on_conflict: 'skip',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 1 }],
    });
    expect(skipped.structured.patch_diff).toEqual([]);
    expect(skipped.structured.warnings.join(' ')).toMatch(/skip/);
    expect(await readFile(path.join(ws.dir, 'a.xlsx'))).toEqual(original);
    const renamed = await ws.call<Out>('exstruct_make', { out_path: 'a.xlsx', on_conflict: 'rename' });
    expect(path.basename(renamed.structured.out_path)).toBe('a_1.xlsx');
    const dry = await ws.call<Out>('exstruct_make', {
      out_path: 'b.xlsx',
      dry_run: true,
      preflight_formula_check: true,
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'A1', formula: '=A1' }],
    });
    expect(dry.structured.formula_issues.map((i) => i.code)).toEqual(['circular_ref_suspected']);
    const failed = await ws.call<Out>('exstruct_make', {
      out_path: 'c.xlsx',
      ops: [
        { op: 'add_sheet', sheet: 'X' },
        { op: 'add_sheet', sheet: 'x' },
      ],
    });
    expect(patchError(failed)).toMatchObject({ op_index: 1 });
    expect((await readdir(ws.dir)).sort()).toEqual(['a.xlsx', 'a_1.xlsx']);
  });

  it('refuses .xls (needs Excel) and other extensions', async () => {
    const xls = await ws.call('exstruct_make', { out_path: 'old.xls' });
    expect(xls.error?.message).toMatch(/Excel \(COM\)/);
    const csv = await ws.call('exstruct_make', { out_path: 'data.csv' });
    expect(csv.error?.code).toBe('UNSUPPORTED_FORMAT');
  });
});
