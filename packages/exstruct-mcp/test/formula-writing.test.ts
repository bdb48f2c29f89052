// Formulas as Excel stores them: array constants, control characters, `_xlfn.` prefixes of newer
// functions, and references to sheets that do not exist.
import { existsSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matches } from '../src/patch/ops/compare.js';
import { checkFormula } from '../src/patch/formula-check.js';
import { prepareFormula, translateFormula } from '../src/patch/formula.js';
import { readPart, readWorkbook, workspace, type Workspace, patchError } from './patch-helpers.js';

const ctx = { definedNames: new Set<string>(), macroEnabled: false, sheetNames: ['S', 'Jan', 'Feb'] };
const codes = (formula: string) =>
  checkFormula('S', 'A1', { row: 1, col: 0 }, formula, ctx).map((i) => `${i.code}/${i.level}`);

interface Out {
  out_path: string;
  patch_diff: { status: string; after: unknown }[];
  inverse_ops: Record<string, unknown>[];
  formula_issues: { cell: string; level: string; code: string; message: string }[];
  error: { op_index: number; op: string; cell: string | null; message: string } | null;
}

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

/** A workbook with sheets S and Data; `formulas` go to column A of S. */
async function book(name: string, formulas: string[] = []): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const s = wb.addWorksheet('S');
  formulas.forEach((formula, i) => (s.getCell(`A${i + 1}`).value = { formula } as ExcelJS.CellFormulaValue));
  wb.addWorksheet('Data').getCell('A1').value = 1;
  const file = path.join(ws.dir, name);
  await wb.xlsx.writeFile(file);
  return file;
}

describe('array constants ({1,2;3,4}: "," between columns, ";" between rows)', () => {
  it('pass the check and fill leaves them alone; ";" between arguments and other items do not pass', () => {
    expect(codes('SUM({1,2;3,4})')).toEqual([]);
    expect(codes('INDEX({"a";"b"},2)')).toEqual([]);
    expect(codes('VLOOKUP(E1,{0,"low";10,"high"},2,TRUE)')).toEqual([]);
    expect(codes('SUM({-1.5,2E3;TRUE,#N/A}, { 1 ; 2 })')).toEqual([]);
    expect(codes('IF(A2="x";1;2)')).toEqual(['invalid_token/error']);
    expect(codes('SUM({B1,C1})')).toEqual(['invalid_token/error']);
    expect(codes('SUM({1,2)')).toEqual(['invalid_token/error']);
    expect(translateFormula('VLOOKUP(E1,{0,"E1";10,"E2"},2)', 1, 1)).toBe('VLOOKUP(F2,{0,"E1";10,"E2"},2)');
  });

  it('in a workbook already holding one, an unrelated edit with the formula check saves', async () => {
    const file = await book('arr.xlsx', ['SUM({1,2;3,4})', 'INDEX({"a";"b"},2)']);
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [
        { op: 'set_value', sheet: 'S', cell: 'B5', value: 'hello' },
        { op: 'set_formula', sheet: 'S', cell: 'B6', formula: '=VLOOKUP(B5,{0,"low";10,"high"},2,TRUE)' },
      ],
      preflight_formula_check: true,
    });
    expect(res.structured.error).toBeNull();
    expect(res.structured.formula_issues).toEqual([]);
    const s = (await readWorkbook(res.structured.out_path)).getWorksheet('S')!;
    expect(s.getCell('A1').formula).toBe('SUM({1,2;3,4})');
    expect(s.getCell('B6').formula).toBe('VLOOKUP(B5,{0,"low";10,"high"},2,TRUE)');
  });
});

describe('characters XML cannot hold', () => {
  it('a formula with a control character is refused, naming it and CHAR(); a value is escaped', async () => {
    const file = await book('ctrl.xlsx');
    for (const op of [
      { op: 'set_formula', sheet: 'S', cell: 'B1', formula: '="a\u0001b"' },
      { op: 'fill_formula', sheet: 'S', range: 'B1:B3', base_cell: 'B1', formula: '=A1&"\u001F"' },
      { op: 'set_value', sheet: 'S', cell: 'B1', value: '="\u0008"' },
    ]) {
      const res = await ws.call<Out>('exstruct_patch', { xlsx_path: file, ops: [op], auto_formula: true });
      expect(patchError(res)).toMatchObject({ op_index: 0, op: op.op });
      expect(patchError(res)!.message).toMatch(/control character U\+00(01|1F|08).*CHAR\((1|31|8)\)/);
      expect(existsSync(path.join(ws.dir, 'ctrl_patched.xlsx'))).toBe(false);
    }
    // Values can carry them: OOXML spells them _xHHHH_.
    const res = await ws.call<Out>('exstruct_make', {
      out_path: 'v.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 'a\u0001b' }],
    });
    expect(res.structured.error).toBeNull();
    expect(await readPart(res.structured.out_path, 'xl/worksheets/sheet1.xml')).toContain('a_x0001_b');
    await readWorkbook(res.structured.out_path); // a well-formed package
  });
});

describe("formulas longer than Excel's 8,192 characters", () => {
  it('are refused at once with the limit named, nothing written; 8,192 are written', async () => {
    const file = await book('long.xlsx');
    const long = `={${'1'.repeat(32_000)}`; // the audit's op: 3.7 s each before, and no limit
    const start = performance.now();
    const refused = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: Array.from({ length: 6 }, (_, i) => ({
        op: 'set_formula',
        sheet: 'S',
        cell: `B${i + 1}`,
        formula: long,
      })),
    });
    expect(performance.now() - start).toBeLessThan(3000);
    expect(refused.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(refused.error!.message).toMatch(/ops\[0\].*32,001 characters.*at most 8,192/);
    // A value turned into a formula by auto_formula is held to the same limit.
    const asValue = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'S', cell: 'B1', value: `=${'A1+'.repeat(2800)}1` }],
      auto_formula: true,
    });
    expect(patchError(asValue)!.message).toMatch(/8,401 characters.*at most 8,192/);
    expect(existsSync(path.join(ws.dir, 'long_patched.xlsx'))).toBe(false);
    const longest = `=${'1+'.repeat(4095)}1+`.slice(0, 8193);
    const written = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_formula', sheet: 'S', cell: 'B1', formula: longest.replace(/\+$/, '0') }],
    });
    expect(written.isError, written.text).toBe(false);
  });
});

describe('functions newer than the file format (_xlfn.)', () => {
  it('get the prefix Excel writes, once, outside strings; LET/LAMBDA names get _xlpm.', () => {
    expect(prepareFormula('XLOOKUP(1,A:A,B:B)&"XLOOKUP(x)"')).toBe('_xlfn.XLOOKUP(1,A:A,B:B)&"XLOOKUP(x)"');
    expect(prepareFormula('_xlfn.XLOOKUP(1,A:A,B:B)')).toBe('_xlfn.XLOOKUP(1,A:A,B:B)');
    expect(prepareFormula('sort(FILTER(A:A,B:B>0))')).toBe('_xlfn._xlws.SORT(_xlfn._xlws.FILTER(A:A,B:B>0))');
    expect(prepareFormula('_xlfn.SORT(A1:A3)')).toBe('_xlfn._xlws.SORT(A1:A3)');
    expect(prepareFormula('SUM(A1:A3)+IFERROR(1,2)')).toBe('SUM(A1:A3)+IFERROR(1,2)');
    expect(prepareFormula('LET(x,A1,y,x*2,x+y+Data!x)')).toBe(
      '_xlfn.LET(_xlpm.x,A1,_xlpm.y,_xlpm.x*2,_xlpm.x+_xlpm.y+Data!x)',
    );
    expect(prepareFormula('_xlfn.LET(_xlpm.x,A1,x+1)')).toBe('_xlfn.LET(_xlpm.x,A1,_xlpm.x+1)');
    expect(prepareFormula('LAMBDA(a,b,a*b)(2,3)')).toBe('_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a*_xlpm.b)(2,3)');
  });

  it('are known to the check with either prefix, and compare-and-set ignores the prefixes', () => {
    expect(codes('_xlfn._xlws.SORT(A2:A9)')).toEqual([]);
    expect(codes('_xlfn.LET(_xlpm.x,2,_xlpm.x*2)')).toEqual([]);
    expect(matches({ kind: 'formula', value: '=_xlfn.XLOOKUP(1,A:A,B:B)' }, '=XLOOKUP(1, A:A, B:B)')).toBe(
      true,
    );
    expect(matches({ kind: 'formula', value: '=_xlfn.LET(_xlpm.x,1,_xlpm.x)' }, '=LET(x,1,x)')).toBe(true);
  });

  it('are written prefixed by exstruct_make and exstruct_patch, and round-trip through inverse ops', async () => {
    const made = await ws.call<Out>('exstruct_make', {
      out_path: 'new.xlsx',
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Sheet1',
          range: 'A1:B2',
          values: [
            ['a', 1],
            ['b', 2],
          ],
        },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'C1', formula: '=XLOOKUP("b",A1:A2,B1:B2)' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'C2', formula: '=TEXTJOIN(",",TRUE,SORT(A1:A2))' },
        {
          op: 'fill_formula',
          sheet: 'Sheet1',
          range: 'D1:D2',
          base_cell: 'D1',
          formula: '=IFS(B1>1,"big",TRUE,"small")',
        },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'E1', formula: '=_xlfn.CONCAT(A1,A2)' },
      ],
      preflight_formula_check: true,
    });
    expect(made.structured.error).toBeNull();
    expect(made.structured.formula_issues).toEqual([]);
    const xml = await readPart(made.structured.out_path, 'xl/worksheets/sheet1.xml');
    // XLOOKUP and SORT are dynamic-array functions: stored as Excel stores those (dynamic-array-formulas.test.ts).
    for (const f of [
      '<c r="C1" cm="1"><f t="array" ref="C1">_xlfn.XLOOKUP("b",A1:A2,B1:B2)</f>',
      '<c r="C2" cm="1"><f t="array" ref="C2">_xlfn.TEXTJOIN(",",TRUE,_xlfn._xlws.SORT(A1:A2))</f>',
      '<f>_xlfn.IFS(B2&gt;1,"big",TRUE,"small")</f>',
      '<f>_xlfn.CONCAT(A1,A2)</f>',
    ])
      expect(xml).toContain(f);

    // Compare-and-set with the name as typed matches the stored one; undo restores it.
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: made.structured.out_path,
      ops: [
        {
          op: 'set_formula_if',
          sheet: 'Sheet1',
          cell: 'C1',
          expected: '=XLOOKUP("b",A1:A2,B1:B2)',
          formula: '=XMATCH("b",A1:A2)',
        },
      ],
      return_inverse_ops: true,
    });
    expect(res.structured.patch_diff[0]!.status).toBe('applied');
    expect((await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!.getCell('C1').formula).toBe(
      '_xlfn.XMATCH("b",A1:A2)',
    );
    const undo = await ws.call<Out>('exstruct_patch', {
      xlsx_path: res.structured.out_path,
      ops: res.structured.inverse_ops,
      out_name: 'undone.xlsx',
    });
    expect(undo.structured.error).toBeNull();
    expect(await readPart(undo.structured.out_path, 'xl/worksheets/sheet1.xml')).toContain(
      '<c r="C1" cm="1"><f t="array" ref="C1">_xlfn.XLOOKUP("b",A1:A2,B1:B2)</f>',
    );
  });
});

describe("dynamic-array operators (A2#, @) that exist only in Excel's editor", () => {
  it('are stored as the functions the file format has', () => {
    expect(prepareFormula('SUM(A2#)')).toBe('SUM(_xlfn.ANCHORARRAY(A2))');
    expect(prepareFormula("COUNTA('My data'!$B$2#)*2")).toBe("COUNTA(_xlfn.ANCHORARRAY('My data'!$B$2))*2");
    expect(prepareFormula('@A1:A3+1')).toBe('_xlfn.SINGLE(A1:A3)+1');
    expect(prepareFormula('@Sheet1!A1:A3')).toBe('_xlfn.SINGLE(Sheet1!A1:A3)');
    expect(prepareFormula('IF(@INDEX(A:A,2)>0,1,0)')).toBe('IF(_xlfn.SINGLE(INDEX(A:A,2))>0,1,0)');
    // Not operators: error values, text, and "#" in a string.
    expect(prepareFormula('IFERROR(#N/A,"#")&A1')).toBe('IFERROR(#N/A,"#")&A1');
    expect(codes('SUM(A2#)')).toEqual([]);
  });

  it('written by exstruct_make, read back as stored', async () => {
    const made = await ws.call<Out>('exstruct_make', {
      out_path: 'spill.xlsx',
      ops: [
        { op: 'set_formula', sheet: 'Sheet1', cell: 'A2', formula: '=SEQUENCE(3)' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'B1', formula: '=SUM(A2#)' },
      ],
      preflight_formula_check: true,
    });
    expect(made.structured.error).toBeNull();
    expect(made.structured.formula_issues).toEqual([]);
    expect(await readPart(made.structured.out_path, 'xl/worksheets/sheet1.xml')).toContain(
      '<c r="B1" cm="1"><f t="array" ref="B1">SUM(_xlfn.ANCHORARRAY(A2))</f>',
    );
  });
});

describe('references to sheets that do not exist', () => {
  it('are ref_error, naming the sheet and the sheets there are; 3-D ends count, external ones do not', () => {
    const issue = checkFormula('S', 'A1', { row: 1, col: 0 }, 'NoSuchSheet!A1', ctx);
    expect(issue).toEqual([
      expect.objectContaining({
        code: 'ref_error',
        level: 'error',
        message: expect.stringMatching(/"NoSuchSheet".*"S", "Jan", "Feb"/),
      }),
    ]);
    expect(codes("'No Such'!A1*2+'no such'!B1")).toEqual(['ref_error/error']);
    expect(codes('SUM(Jan:Mar!B2)')).toEqual(['ref_error/error']);
    expect(codes("SUM(Jan:Feb!B2)+'s'!A2+jan!A2")).toEqual([]);
    expect(codes('[1]Sheet1!A1+[2]!Name')).toEqual([]);
    expect(codes("'C:\\x\\[Book.xlsx]Other'!A1")).toEqual([]);
  });

  it('follow the sheets the same patch added, renamed and deleted', async () => {
    const file = await book('sheets.xlsx', ['Data!A1']);
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [
        { op: 'add_sheet', sheet: 'New' },
        { op: 'set_formula', sheet: 'S', cell: 'B1', formula: '=New!A1' },
        { op: 'rename_sheet', sheet: 'Data', new_name: 'Figures' },
        { op: 'set_formula', sheet: 'S', cell: 'B2', formula: '=Figures!A1+Data!A1' },
        { op: 'delete_sheet', sheet: 'New' },
        { op: 'set_formula', sheet: 'S', cell: 'B3', formula: "='New'!A1" },
      ],
      preflight_formula_check: true,
      dry_run: true,
    });
    expect(res.structured.error).toBeNull();
    const issues = res.structured.formula_issues;
    expect(issues.map((i) => `${i.cell} ${i.code} ${i.message.split(',')[0]}`)).toEqual([
      'B1 ref_error The formula contains #REF!.', // written before New was deleted
      'B2 ref_error The formula refers to the sheet "Data"',
      'B3 ref_error The formula refers to the sheet "New"',
    ]);
    const saved = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_formula', sheet: 'S', cell: 'B1', formula: "='No Such'!A1*2" }],
      preflight_formula_check: true,
    });
    expect(patchError(saved)).toMatchObject({ op_index: 0, op: 'set_formula', cell: 'B1' });
    expect(patchError(saved)!.message).toMatch(/"No Such", which does not exist.*Sheets: "S", "Data"/);
    expect(existsSync(path.join(ws.dir, 'sheets_patched.xlsx'))).toBe(false);
  });
});

describe('formulas typed with a Japanese IME on (full-width letters, digits, operators, quotes, spaces)', () => {
  it.each([
    ['ＳＵＭ(Jan!A1:B1)', 'Ｓ for S'],
    ['Jan!A1＋1', '＋ for +'],
    ['Jan!A1*２', '２ for 2'],
    ['Jan!Ａ１', 'Ａ for A'],
    ['IF(Jan!A1>0,“黒字”,“赤字”)', '“ for "'],
    ['SUM(Jan!A1)　', 'a full-width space'],
  ])('%s is an error naming the character (%s); Excel shows #NAME?', (formula, named) => {
    const issues = checkFormula('S', 'A1', { row: 1, col: 0 }, formula, ctx);
    expect(issues.map((i) => `${i.code}/${i.level}`)).toContain('invalid_token/error');
    expect(issues.map((i) => i.message).join(' ')).toContain(named);
  });

  it('full-width text inside quotes, Japanese sheet and defined names are fine', () => {
    const named = { ...ctx, definedNames: new Set(['売上ＡＢ']), sheetNames: ['S', '売上'] };
    for (const formula of ['"ＳＵＭ＋１"&売上!A1', '売上ＡＢ*2', "'売上'!A1+1"])
      expect(checkFormula('S', 'A1', { row: 1, col: 0 }, formula, named), formula).toEqual([]);
  });
});
