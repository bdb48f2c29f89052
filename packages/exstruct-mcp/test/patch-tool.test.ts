import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPart, readWorkbook, workspace, type Workspace, patchError } from './patch-helpers.js';

interface PatchOut {
  out_path: string;
  patch_diff: {
    op_index: number;
    op: string;
    sheet: string;
    cell: string | null;
    before: unknown;
    after: unknown;
    status: string;
  }[];
  inverse_ops: Record<string, unknown>[];
  formula_issues: { sheet: string; cell: string; level: string; code: string; message: string }[];
  warnings: string[];
  error: { op_index: number; op: string; sheet: string; cell: string | null; message: string } | null;
}

let ws: Workspace;
afterEach(async () => ws?.close());

describe('exstruct_patch: output path and conflicts (spec 8, 11.1, 11.2)', () => {
  beforeEach(async () => {
    ws = await workspace({ onConflict: 'skip' });
  });

  it('writes {stem}_patched{suffix} next to the input by default', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 'Title' }],
    });
    expect(res.isError).toBe(false);
    expect(res.structured.out_path).toBe(path.join(ws.dir, 'book_patched.xlsx'));
    expect((await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!.getCell('B2').value).toBe(
      'Title',
    );
  });

  it('11.5: without on_conflict the server default applies (here skip: empty diff and a warning)', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    await ws.fixture('basic__sample.xlsx', 'book_patched.xlsx');
    const before = await readFile(path.join(ws.dir, 'book_patched.xlsx'));
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 'x' }],
    });
    expect(res.structured.patch_diff).toEqual([]);
    expect(res.structured.warnings.join(' ')).toMatch(/skip/);
    expect(await readFile(path.join(ws.dir, 'book_patched.xlsx'))).toEqual(before);
  });

  it('11.5: an on_conflict argument wins over the server default', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    await ws.fixture('basic__sample.xlsx', 'book_patched.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 'over' }],
      on_conflict: 'overwrite',
    });
    expect(res.structured.patch_diff).toHaveLength(1);
    expect(
      (await readWorkbook(path.join(ws.dir, 'book_patched.xlsx'))).getWorksheet('Sheet1')!.getCell('B2')
        .value,
    ).toBe('over');
  });

  it('on_conflict=rename picks _1, then _2', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    await ws.fixture('basic__sample.xlsx', 'book_patched.xlsx');
    const ops = [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 1 }];
    const first = await ws.call<PatchOut>('exstruct_patch', { xlsx_path: input, ops, on_conflict: 'rename' });
    const second = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops,
      on_conflict: 'rename',
    });
    expect(path.basename(first.structured.out_path)).toBe('book_patched_1.xlsx');
    expect(path.basename(second.structured.out_path)).toBe('book_patched_2.xlsx');
    expect(first.structured.warnings.join(' ')).toMatch(/renamed|instead/);
  });

  it('concurrent patches with on_conflict=rename take _1, _2, … of the requested name', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((value) =>
        ws.call<PatchOut>('exstruct_patch', {
          xlsx_path: input,
          out_dir: 'conc',
          on_conflict: 'rename',
          ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value }],
        }),
      ),
    );
    const names = results.map((r) => path.basename(r.structured.out_path)).sort();
    expect(names).toEqual([
      'book_patched.xlsx',
      'book_patched_1.xlsx',
      'book_patched_2.xlsx',
      'book_patched_3.xlsx',
      'book_patched_4.xlsx',
    ]);
    expect((await readdir(path.join(ws.dir, 'conc'))).sort()).toEqual(names);
    // Whoever lost a race for a name says where its workbook went.
    for (const r of results.filter((r) => !r.structured.warnings.length))
      expect(path.basename(r.structured.out_path)).toBe('book_patched.xlsx');
    for (const r of results.filter((r) => r.structured.warnings.some((w) => /meanwhile/.test(w))))
      expect(r.structured.warnings.join(' ')).toContain(
        `wrote ${path.basename(r.structured.out_path)} instead`,
      );
    // Each file holds its own call's value (no writer replaced another's file).
    const values = await Promise.all(
      results.map(
        async (r) => (await readWorkbook(r.structured.out_path)).getWorksheet('Sheet1')!.getCell('B2').value,
      ),
    );
    expect(values).toEqual([1, 2, 3, 4, 5]);
  });

  it('11.5: an out_dir that does not exist yet is created and the file saved there', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 'x' }],
      out_dir: 'new/nested/dir',
      out_name: 'result',
    });
    expect(res.isError).toBe(false);
    expect(res.structured.out_path).toBe(path.join(ws.dir, 'new/nested/dir/result.xlsx'));
    expect((await stat(res.structured.out_path)).isFile()).toBe(true);
  });

  it('11.5: a legacy .xls is refused with a message that Excel (COM) is required', async () => {
    const input = await ws.fixture('assets__sample.xls');
    const res = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 1 }],
    });
    expect(res.isError).toBe(true);
    expect(res.error?.code).toBe('UNSUPPORTED_FORMAT');
    expect(res.error?.message).toMatch(/\.xls.*Excel \(COM\)/);
    expect(res.error?.hint).toMatch(/save it as \.xlsx/);
  });

  it('refuses an out_name that changes the file type', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    const res = await ws.call('exstruct_patch', { xlsx_path: input, ops: [], out_name: 'x.xlsm' });
    expect(res.error?.code).toBe('INVALID_ARGUMENT');
  });

  it('refuses paths outside the root', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'book.xlsx');
    const res = await ws.call('exstruct_patch', { xlsx_path: input, ops: [], out_dir: '/etc' });
    expect(res.error?.code).toBe('PATH_OUTSIDE_ROOT');
  });
});

describe('exstruct_patch and exstruct_make without an on_conflict policy', () => {
  beforeEach(async () => {
    ws = await workspace();
  });

  it('without on_conflict, says which rule kept a file (not a guess that exstruct did not write it)', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'b.xlsx');
    const ops = [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 1 }];
    // exstruct wrote b.xlsx itself (a patch onto its input, asked for), then a default patch onto it.
    await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops,
      out_name: 'b.xlsx',
      on_conflict: 'overwrite',
    });
    const onSelf = await ws.call<PatchOut>('exstruct_patch', { xlsx_path: input, ops, out_name: 'b.xlsx' });
    expect(path.basename(onSelf.structured.out_path)).toBe('b_1.xlsx');
    const warning = onSelf.structured.warnings.join(' ');
    expect(warning).not.toMatch(/not written by exstruct/);
    expect(warning).toMatch(
      /b\.xlsx exists and is not b_patched\.xlsx, the one file a patch of b\.xlsx replaces without on_conflict, so it was kept; wrote b_1\.xlsx/,
    );
    // exstruct_make onto an earlier patch output.
    const made = await ws.call<PatchOut>('exstruct_make', { out_path: 'b_1.xlsx' });
    expect(path.basename(made.structured.out_path)).toBe('b_1_1.xlsx');
    expect(made.structured.warnings.join(' ')).toMatch(
      /b_1\.xlsx exists and exstruct_make replaces no file without on_conflict, so it was kept/,
    );
  });
});

describe('exstruct_patch: ops as objects or JSON strings (spec 14.6)', () => {
  beforeEach(async () => {
    ws = await workspace();
  });

  it('object ops patch as before', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 1 }],
    });
    expect(res.structured.patch_diff[0]).toMatchObject({
      op: 'set_value',
      cell: 'C4',
      before: { kind: 'value', value: 120 },
      after: { kind: 'value', value: 1 },
      status: 'applied',
    });
  });

  it('JSON string ops patch too', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        JSON.stringify({ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 7 }),
        { op: 'set_formula', sheet: 'Sheet1', cell: 'C10', formula: '=SUM(C4:C9)' },
      ],
    });
    expect(res.isError).toBe(false);
    const sheet = (await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!;
    expect(sheet.getCell('C4').value).toBe(7);
    expect(sheet.getCell('C10').value).toMatchObject({ formula: 'SUM(C4:C9)' });
  });

  it('a malformed JSON string names ops[index] and shows an object example', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 1 }, '{"op": "set_value", sheet'],
    });
    expect(res.isError).toBe(true);
    expect(res.error?.message).toContain('ops[1]');
    expect(res.error?.hint).toContain('{"op":"set_value","sheet":"Sheet1","cell":"A1","value":"Hello"}');
  });

  it('valid JSON that is not an object says a JSON object is required', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    for (const bad of ['[1,2]', '42', '"text"']) {
      const res = await ws.call('exstruct_patch', { xlsx_path: input, ops: [bad] });
      expect(res.error?.message).toMatch(/ops\[0\].*JSON object required/);
    }
  });
});

describe('exstruct_patch: semantics (spec 4, 5, 9, 12)', () => {
  beforeEach(async () => {
    ws = await workspace();
  });

  it('12.7: dry_run leaves the input byte-identical with the same mtime, writes nothing, returns everything', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const bytes = await readFile(input);
    const { mtimeMs } = await stat(input);
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 5 },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'C11', formula: '=SUMM(1)' },
      ],
      out_name: 'basic__sample.xlsx',
      on_conflict: 'overwrite',
      dry_run: true,
      return_inverse_ops: true,
      preflight_formula_check: true,
    });
    expect(res.structured.error).toBeNull();
    expect(res.structured.out_path).toBe(input);
    expect(res.structured.patch_diff).toHaveLength(2);
    expect(res.structured.inverse_ops[1]).toEqual({
      op: 'set_value',
      sheet: 'Sheet1',
      cell: 'C4',
      value: 120,
    });
    expect(res.structured.formula_issues.map((i) => i.code)).toEqual(['name_error']);
    expect(await readFile(input)).toEqual(bytes);
    expect((await stat(input)).mtimeMs).toBe(mtimeMs);
    expect((await readdir(ws.dir)).sort()).toEqual(['basic__sample.xlsx']);
  });

  it('applies ops in order; a sheet added by an earlier op is usable later', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'add_sheet', sheet: '売上集計' },
        { op: 'set_value', sheet: '売上集計', cell: 'A1', value: '月' },
        { op: 'set_value', sheet: '売上集計', cell: 'A1', value: '月次' },
      ],
    });
    expect(res.structured.patch_diff.map((d) => d.after)).toEqual([
      { kind: 'sheet', value: '売上集計' },
      { kind: 'value', value: '月' },
      { kind: 'value', value: '月次' },
    ]);
    expect(res.structured.patch_diff[2]!.before).toEqual({ kind: 'value', value: '月' });
    const book = await readWorkbook(res.structured.out_path);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Sheet1', '売上集計']);
    expect(book.getWorksheet('売上集計')!.getCell('A1').value).toBe('月次');
  });

  it('a failing op writes nothing and names op_index, op, sheet, cell and what to do', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 'ok' },
        { op: 'set_value', sheet: 'Nope', cell: 'C3', value: 1 },
      ],
    });
    // An error result (a client must see that nothing happened), naming no file, with the spec's
    // PatchErrorDetail in its details.
    expect(res.isError).toBe(true);
    expect(res.error?.code).toBe('PATCH_FAILED');
    expect(res.error?.message).toMatch(/^op\[1\] set_value at Nope!C3 failed, so nothing was written/);
    expect(res.text).not.toMatch(/out_path|_patched/);
    expect(patchError(res)).toMatchObject({ op_index: 1, op: 'set_value', sheet: 'Nope', cell: 'C3' });
    expect(patchError(res)!.message).toMatch(/does not exist.*Sheet1.*add_sheet/);
    expect(await readdir(ws.dir)).toEqual(['basic__sample.xlsx']);
  });

  it('rejects a value starting with "=" unless auto_formula', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const rejected = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: '=1+1' }],
    });
    expect(patchError(rejected)?.message).toMatch(/starts with "=".*auto_formula=true/);
    const accepted = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: '=1+1' }],
      auto_formula: true,
    });
    expect(accepted.structured.patch_diff[0]!.after).toEqual({ kind: 'formula', value: '=1+1' });
    expect(
      (await readWorkbook(accepted.structured.out_path)).getWorksheet('Sheet1')!.getCell('B2').value,
    ).toMatchObject({ formula: '1+1' });
  });

  it('validates A1 cells and formulas with errors that name ops[i]', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const badCell = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: '3B', value: 1 }],
    });
    expect(badCell.error?.message).toMatch(/ops\[0\] \(set_value\): cell: must be an A1 cell address/);
    const badFormula = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'B3', formula: 'SUM(A1)' }],
    });
    expect(badFormula.error?.message).toMatch(/formula: must start with "="/);
    const unknownField = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B3', value: 1, colour: 'red' }],
    });
    expect(unknownField.error?.message).toMatch(/unknown field\(s\) "colour"/);
  });

  it('12.7: set_range_values detects a shape that does not match the range', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Sheet1',
          range: 'B2:D3',
          values: [
            [1, 2, 3],
            [4, 5],
          ],
        },
      ],
    });
    expect(res.isError).toBe(true);
    expect(res.error?.message).toMatch(/shape 2×3\/2 does not match range B2:D3 \(2×3\)/);
  });

  it('12.7: set_value_if and set_formula_if return skipped with a warning on mismatch, and apply on a normalised match', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'set_value_if', sheet: 'Sheet1', cell: 'C4', expected: 999, value: 1 },
        { op: 'set_formula_if', sheet: 'Sheet1', cell: 'C5', expected: 'x', formula: '=1' },
        { op: 'set_value_if', sheet: 'Sheet1', cell: 'C6', expected: '150.0', value: 2 },
        { op: 'set_formula_if', sheet: 'Sheet1', cell: 'H1', formula: '=C6*2' },
      ],
      return_inverse_ops: true,
    });
    expect(res.structured.patch_diff.map((d) => d.status)).toEqual([
      'skipped',
      'skipped',
      'applied',
      'applied',
    ]);
    expect(res.structured.patch_diff[0]).toMatchObject({
      before: { kind: 'value', value: 120 },
      after: { kind: 'value', value: 120 },
    });
    expect(res.structured.warnings.filter((w) => w.startsWith('Skipped op['))).toHaveLength(2);
    expect(res.structured.inverse_ops.map((o) => o.cell)).toEqual(['H1', 'C6']);
    const sheet = (await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!;
    expect(sheet.getCell('C4').value).toBe(120);
    expect(sheet.getCell('C6').value).toBe(2);
  });

  it('fill_formula shifts relative references and keeps $ ones', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        {
          op: 'fill_formula',
          sheet: 'Sheet1',
          range: 'F4:F6',
          base_cell: 'F4',
          formula: '=C4*$C$4+SUM(D$4:D4)',
        },
      ],
    });
    const sheet = (await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!;
    expect(['F4', 'F5', 'F6'].map((c) => (sheet.getCell(c).value as { formula: string }).formula)).toEqual([
      'C4*$C$4+SUM(D$4:D4)',
      'C5*$C$4+SUM(D$4:D5)',
      'C6*$C$4+SUM(D$4:D6)',
    ]);
    const twoD = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'fill_formula', sheet: 'Sheet1', range: 'F4:G6', base_cell: 'F4', formula: '=1' }],
    });
    expect(twoD.error?.message).toMatch(/single row or a single column/);
    // A base_cell outside the range shifted every reference (=A1 from Z1 into F4 is =#REF!).
    const outside = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'fill_formula', sheet: 'Sheet1', range: 'F4:F6', base_cell: 'Z1', formula: '=A1' }],
    });
    expect(outside.error?.code).toBe('INVALID_ARGUMENT');
    expect(outside.error?.message).toMatch(/base_cell Z1 is not in range F4:F6/);
    const last = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'fill_formula', sheet: 'Sheet1', range: 'F4:F6', base_cell: 'f6', formula: '=C6' }],
    });
    expect(last.isError).toBe(false);
    const filled = (await readWorkbook(last.structured.out_path)).getWorksheet('Sheet1')!;
    expect((filled.getCell('F4').value as { formula: string }).formula).toBe('C4');
  });

  it('12.7: preflight_formula_check reports #REF! and friends, and an error blocks saving', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'set_formula', sheet: 'Sheet1', cell: 'G4', formula: '=SUM(#REF!)' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'G5', formula: '=G5+1' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'G6', formula: '=VLOKUP(1,A:B,2)' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'G7', formula: '=SUM(A1;A2)' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'G8', formula: '=1/0+#DIV/0!+#N/A' },
      ],
      preflight_formula_check: true,
    });
    const issues = res.error?.details?.formula_issues as PatchOut['formula_issues'];
    const codes = issues.map((i) => `${i.cell}:${i.code}:${i.level}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'G4:ref_error:error',
        'G5:circular_ref_suspected:warning',
        'G6:name_error:error',
        'G7:invalid_token:error',
        'G8:div0_error:error',
        'G8:na_error:warning',
      ]),
    );
    expect(patchError(res)).toMatchObject({
      op_index: 0,
      op: 'set_formula',
      sheet: 'Sheet1',
      cell: 'G4',
    });
    expect(patchError(res)!.message).toMatch(/nothing was saved/);
    expect(await readdir(ws.dir)).toEqual(['basic__sample.xlsx']);
  });

  it('preflight judges the patch: an error the workbook already had is a warning, one the patch made blocks', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'broken.xlsx');
    // A workbook saved with a #REF! in it (made by this server, read back as the input of the next patch).
    const broken = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'had-ref.xlsx',
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'H2', formula: '=SUM(#REF!)' }],
    });
    expect(broken.isError, broken.text).toBe(false);
    const fix = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: broken.structured.out_path,
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'H3', formula: '=SUM(B2:B3)' }],
      preflight_formula_check: true,
    });
    expect(fix.isError, fix.text).toBe(false);
    expect(fix.structured.formula_issues).toEqual([
      expect.objectContaining({ cell: 'H2', code: 'ref_error', level: 'warning' }),
    ]);
    expect(fix.structured.formula_issues[0]!.message).toMatch(/had this before the patch/);
    // A new error still blocks, and the old one stays a warning beside it.
    const worse = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: broken.structured.out_path,
      out_name: 'worse.xlsx',
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'H4', formula: '=VLOKUP(1,A:B,2)' }],
      preflight_formula_check: true,
    });
    expect(patchError(worse)).toMatchObject({ op_index: 0, cell: 'H4' });
    const issues = worse.error?.details?.formula_issues as PatchOut['formula_issues'];
    expect(issues.map((i) => `${i.cell}:${i.level}`)).toEqual(['H2:warning', 'H4:error']);
    expect(await readdir(ws.dir)).not.toContain('worse.xlsx');
  });

  it('preflight names a formula no op wrote that the patch broke, without an op index', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'two.xlsx');
    const made = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'two-sheets.xlsx',
      ops: [
        { op: 'add_sheet', sheet: 'Data' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'H2', formula: '=Data!A1*2' },
      ],
    });
    expect(made.isError, made.text).toBe(false);
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: made.structured.out_path,
      ops: [{ op: 'delete_sheet', sheet: 'Data' }],
      preflight_formula_check: true,
    });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/The formula check failed at Sheet1!H2, a formula no op wrote/);
    expect(res.text).not.toMatch(/op\[-1\]/);
  });

  it('says written formulas have no value, and changed values stale dependents, until Excel or LibreOffice calculates', async () => {
    const input = await ws.fixture('basic__sample.xlsx', 'calc.xlsx');
    const withFormula = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'with-formula.xlsx',
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'H2', formula: '=SUM(B2:B3)' }],
    });
    expect(withFormula.isError, withFormula.text).toBe(false);
    expect(withFormula.structured.warnings.join(' ')).toMatch(/Formulas written have no value yet.*as saved/);
    const valuesOnly = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'values-only.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'H2', value: 3 }],
    });
    expect(valuesOnly.structured.warnings.join(' ')).not.toMatch(/no value yet/);
    expect(valuesOnly.structured.warnings.join(' ')).toMatch(/depend on changed cells keep their old value/);
    const styleOnly = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'style-only.xlsx',
      ops: [{ op: 'add_sheet', sheet: 'Empty' }],
    });
    expect(styleOnly.structured.warnings.join(' ')).not.toMatch(/old value|no value yet/);
  });

  it('preflight passes clean formulas and saves', async () => {
    const input = await ws.fixture('formula__formula.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'D2', formula: '=IFERROR(B2*C2,0)' }],
      preflight_formula_check: true,
    });
    expect(res.structured.error).toBeNull();
    expect(res.structured.formula_issues).toEqual([]);
  });

  it('refuses to write inside a merged range or part of an array formula', async () => {
    const input = await ws.fixture('formula__formula.xlsx');
    const merged = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B5', value: 1 }],
    });
    expect(patchError(merged)?.message).toMatch(/inside the merged range A5:B5.*A5/);
  });
});

describe('exstruct_patch: merge_cells over a whole sheet or column', () => {
  beforeEach(async () => {
    ws = await workspace();
  });

  // Issue 14: merging A1:XFD1048576 (17 billion addresses) took 208 s, and the file it wrote makes
  // openpyxl create an object per address. It is refused at once; a whole column is the most one merge takes.
  it('refuses A1:XFD1048576 at once, saying the limit and why', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'merge_cells', sheet: 'Sheet1', range: 'A1:XFD1048576' }],
    });
    expect(res.isError).toBe(true);
    expect(res.error?.code).toBe('INVALID_ARGUMENT');
    expect(res.error?.message).toMatch(/17,179,869,184 cells.*at most 1,048,576.*openpyxl/);
  });

  // The merge visits only the cells the sheet holds, not the 200,000 addresses of its range (a range
  // this tall also loads the sheet whole rather than row by row).
  it('merges A1:B100000, keeps only its top-left value and names the cleared cells (the first 20, then a count)', async () => {
    const input = path.join(ws.dir, 'column.xlsx');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Data');
    for (let r = 1; r <= 30; r++) sheet.addRow([r, `t${r}`, 'kept']);
    sheet.getCell('A90000').value = 'far';
    await book.xlsx.writeFile(input);
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'merge_cells', sheet: 'Data', range: 'A1:B100000' }],
    });
    expect(res.isError, res.text).toBe(false);
    const warning = res.structured.warnings.find((w) => w.startsWith('merge_cells'))!;
    expect(warning).toContain('cleared the values of B1, A2, B2, A3, B3');
    expect(warning).toContain(`B10, A11 and ${30 * 2 - 1 + 1 - 20} more`);
    const xml = await readPart(res.structured.out_path, 'xl/worksheets/sheet1.xml');
    expect(xml).toMatch(/<mergeCell ref="A1:B100000"\/>/);
    const values = [...xml.matchAll(/<c r="([A-Z]+\d+)"[^>]*>(?:<v>|<is>)/g)].map((m) => m[1]);
    expect(values).toEqual(['A1', ...Array.from({ length: 30 }, (_, i) => `C${i + 1}`)]);
  });
});

describe('workbook.xml after edits', () => {
  beforeEach(async () => {
    ws = await workspace();
  });

  it('sets fullCalcOnLoad when cell contents change', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 1 }],
    });
    expect(await readPart(res.structured.out_path, 'xl/workbook.xml')).toMatch(
      /<calcPr[^>]*fullCalcOnLoad="1"/,
    );
  });
});

describe('exstruct_patch: malformed ops get an answer that says how to fix them', () => {
  beforeEach(async () => {
    ws = await workspace();
  });

  it('names a missing or unknown op and the valid ones', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const missing = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ sheet: 'Sheet1', cell: 'A1' }],
    });
    expect(missing.error?.message).toMatch(/ops\[0\].*each op must be an object with "op"/);
    const unknown = await ws.call('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_colour', sheet: 'Sheet1' }],
    });
    expect(unknown.error?.message).toMatch(/ops\[0\]\.op "set_colour" is not a known op/);
    expect(unknown.error?.hint).toContain('set_font_color');
  });

  it('refuses whole-column and whole-row notation (A:XFD, 1:1048576) with the corners to write instead', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    for (const range of ['A:XFD', '1:1048576']) {
      const res = await ws.call('exstruct_patch', {
        xlsx_path: input,
        ops: [{ op: 'merge_cells', sheet: 'Sheet1', range }],
      });
      expect(res.isError).toBe(true);
      expect(res.error?.code).toBe('INVALID_ARGUMENT');
      expect(res.error?.message).toMatch(/ops\[0\].*range: must be an A1 range.*A1:XFD5/);
    }
  });

  it('dry_run with on_conflict=skip simulates the patch anyway and says so', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    await ws.fixture('basic__sample.xlsx', 'basic__sample_patched.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 1 }],
      on_conflict: 'skip',
      dry_run: true,
    });
    expect(res.structured.patch_diff).toHaveLength(1);
    expect(res.structured.warnings.join(' ')).toMatch(/Dry run: on_conflict=skip is ignored/);
  });
});
