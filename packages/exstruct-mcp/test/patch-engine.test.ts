import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { colIndexToAlpha } from '../src/ooxml/cell-ref.js';
import { matches } from '../src/patch/ops/compare.js';
import { checkFormula } from '../src/patch/formula-check.js';
import { rewriteSheetReferences, translateFormula } from '../src/patch/formula.js';
import { ZipWriter } from '../src/patch/zip-writer.js';
import {
  buildRichWorkbook,
  readPart,
  readParts,
  readWorkbook,
  validationOf,
  workspace,
  type Workspace,
  patchError,
} from './patch-helpers.js';

const ctx = { definedNames: new Set(['MYLAMBDA']), macroEnabled: false };
const codes = (formula: string, at = { row: 1, col: 0 }) =>
  checkFormula('S', 'A1', at, formula, ctx).map((i) => `${i.code}/${i.level}`);

describe('formula translation (fill_formula, shared formulas)', () => {
  it('shifts relative parts and keeps $ parts', () => {
    expect(translateFormula('A1+$B1+C$1+$D$1', 2, 1)).toBe('B3+$B3+D$1+$D$1');
    expect(translateFormula('SUM(A:A,3:3,$B:C)', 1, 1)).toBe('SUM(B:B,4:4,$B:D)');
    expect(translateFormula("Other!A1+'My sheet'!B2", 1, 0)).toBe("Other!A2+'My sheet'!B3");
  });

  it('leaves strings, function names and names alone', () => {
    expect(translateFormula('LOG10(A1)&"A1"&Rate', 1, 0)).toBe('LOG10(A2)&"A1"&Rate');
    expect(translateFormula('Table1[Amount]*A1', 1, 0)).toBe('Table1[Amount]*A2');
  });

  it('turns references pushed off the sheet into #REF!', () => {
    expect(translateFormula('A1*2', -1, 0)).toBe('#REF!*2');
    expect(translateFormula('XFD1', 0, 1)).toBe('#REF!');
  });
});

describe('sheet references (rename_sheet, delete_sheet)', () => {
  it('renames references, quoting when the name needs it', () => {
    expect(rewriteSheetReferences('SUM(Data!A1:A3)+data!B1', 'Data', 'Figures 2024')).toBe(
      "SUM('Figures 2024'!A1:A3)+'Figures 2024'!B1",
    );
    expect(rewriteSheetReferences("'It''s'!A1", "It's", 'Plain')).toBe("'Plain'!A1");
    expect(rewriteSheetReferences('"Data!A1"&Other!A1', 'Data', 'X')).toBeUndefined();
  });

  it('turns references to a deleted sheet into #REF!', () => {
    expect(rewriteSheetReferences('Data!B2*2', 'Data', { name: 'Data' })).toBe('#REF!B2*2');
  });

  it('renames either end of a 3-D reference, quoting the pair when one name needs it', () => {
    expect(rewriteSheetReferences('SUM(Jan:Mar!B2)', 'Jan', 'January')).toBe('SUM(January:Mar!B2)');
    expect(rewriteSheetReferences('SUM(Jan:Mar!B2)', 'mar', 'Mar 2024')).toBe("SUM('Jan:Mar 2024'!B2)");
    expect(rewriteSheetReferences("SUM('Jan 24:Mar 24'!B2)", 'Jan 24', 'Q1')).toBe("SUM('Q1:Mar 24'!B2)");
    expect(rewriteSheetReferences('SUM(Jan:Mar!B2)', 'Feb', 'February')).toBeUndefined();
  });

  it('narrows a 3-D reference whose end is deleted to the neighbour inside it, as Excel does', () => {
    const jan = { name: 'Jan', next: 'Feb' };
    const mar = { name: 'Mar', previous: 'Feb', next: 'Summary' };
    expect(rewriteSheetReferences('SUM(Jan:Mar!B2)', 'Jan', jan)).toBe('SUM(Feb:Mar!B2)');
    expect(rewriteSheetReferences('SUM(Jan:Mar!B2)', 'Mar', mar)).toBe('SUM(Jan:Feb!B2)');
    expect(rewriteSheetReferences('SUM(Jan:Feb!B2)', 'Jan', jan)).toBe('SUM(Feb!B2)');
    // A sheet inside the range is simply no longer summed: the formula's text does not change.
    expect(rewriteSheetReferences('SUM(Jan:Mar!B2)', 'Feb', { name: 'Feb' })).toBeUndefined();
  });
});

describe('3-D references (Jan:Mar!B2) elsewhere', () => {
  it('are one sheet prefix for fill and for the formula check, not a column range', () => {
    expect(translateFormula('SUM(Jan:Mar!B2)', 1, 1)).toBe('SUM(Jan:Mar!C3)');
    expect(translateFormula('SUM(A:C)', 0, 1)).toBe('SUM(B:D)');
    expect(codes('SUM(Jan:Mar!B2)')).toEqual([]);
    expect(codes("SUM('Jan 24:Mar 24'!B2:B9)")).toEqual([]);
  });
});

describe('formula check', () => {
  it('finds error literals, unknown functions, bad syntax and self references', () => {
    expect(codes('SUM(1,2)')).toEqual([]);
    expect(codes('_xlfn.XLOOKUP(1,A:A,B:B)', { row: 1, col: 5 })).toEqual([]);
    expect(codes('MYLAMBDA(2)')).toEqual([]);
    expect(codes('#REF!+1')).toEqual(['ref_error/error']);
    expect(codes('IF(#VALUE!,#NAME?,1)')).toEqual(['value_error/error', 'name_error/error']);
    expect(codes('FOO(1)')).toEqual(['name_error/error']);
    expect(
      checkFormula('S', 'A1', { row: 1, col: 0 }, 'FOO(1)', { ...ctx, macroEnabled: true })[0]!.level,
    ).toBe('warning');
    expect(codes('SUM(1,2')).toEqual(['invalid_token/error']);
    expect(codes('"open')).toEqual(['invalid_token/error']);
    expect(codes('A2==1')).toEqual(['invalid_token/error']);
    expect(codes('1+')).toEqual(['invalid_token/error']);
    expect(codes('SUM(A1:A3)', { row: 2, col: 0 })).toEqual(['circular_ref_suspected/warning']);
    expect(codes('SUM(Other!A1:A3)', { row: 2, col: 0 })).toEqual([]);
  });
});

describe('compare-and-set normalisation', () => {
  it('compares numbers by value, text trimmed, empty as null, formulas by text', () => {
    expect(matches({ kind: 'value', value: 1 }, '1.0')).toBe(true);
    expect(matches({ kind: 'value', value: ' draft ' }, 'draft')).toBe(true);
    expect(matches({ kind: 'value', value: 'Draft' }, 'draft')).toBe(false);
    expect(matches(null, '')).toBe(true);
    expect(matches(null, 0)).toBe(false);
    expect(matches({ kind: 'formula', value: '=SUM(A1:A2)' }, '= sum(A1:A2)')).toBe(true);
    expect(matches({ kind: 'value', value: true }, true)).toBe(true);
  });

  it('13.8 alpha_col keys are the columns patch writes to (AA is the 27th column)', () => {
    expect([0, 25, 26, 701].map(colIndexToAlpha)).toEqual(['A', 'Z', 'AA', 'ZZ']);
  });
});

let ws: Workspace;
interface Out {
  out_path: string;
  inverse_ops: Record<string, unknown>[];
  warnings: string[];
  error: { message: string } | null;
}
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

describe('rename_sheet and delete_sheet in a real workbook', () => {
  it('rename follows formulas in other sheets, defined names, validations and chart series', async () => {
    const rich = path.join(ws.dir, 'rich.xlsx');
    await buildRichWorkbook(rich);
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: rich,
      ops: [
        { op: 'rename_sheet', sheet: 'Data', new_name: 'Figures 2024' },
        { op: 'rename_sheet', sheet: 'Lists', new_name: 'Choices' },
      ],
    });
    expect(res.structured.error).toBeNull();
    const book = await readWorkbook(res.structured.out_path);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Figures 2024', 'Report', 'Choices']);
    expect(book.getWorksheet('Report')!.getCell('A2').value).toEqual({
      formula: "SUM('Figures 2024'!B2:B4)",
      result: 60,
    });
    expect(book.definedNames.getRanges('Amounts').ranges).toEqual(["'Figures 2024'!$B$2:$B$4"]);
    const figures = book.getWorksheet('Figures 2024')!;
    expect(validationOf(figures, 'C2:C4')).toMatchObject({
      formulae: ['Choices!$A$1:$A$3'],
    });

    const basic = await ws.fixture('basic__sample.xlsx');
    const renamed = await ws.call<Out>('exstruct_patch', {
      xlsx_path: basic,
      ops: [{ op: 'rename_sheet', sheet: 'Sheet1', new_name: 'Sales' }],
    });
    const chart = await readPart(renamed.structured.out_path, 'xl/charts/chart1.xml');
    expect(chart).not.toContain('Sheet1!');
    expect(chart).toContain('Sales!$B$4:$B$9');
  });

  it("delete turns references into #REF!, drops the sheet's parts and keeps the workbook consistent", async () => {
    const rich = path.join(ws.dir, 'rich.xlsx');
    await buildRichWorkbook(rich);
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: rich,
      ops: [{ op: 'delete_sheet', sheet: 'Data' }],
      return_inverse_ops: true,
    });
    expect(res.structured.error).toBeNull();
    const parts = await readParts(res.structured.out_path);
    expect(parts.has('xl/worksheets/sheet1.xml')).toBe(false);
    expect(parts.get('[Content_Types].xml')!.toString()).not.toContain('/xl/worksheets/sheet1.xml');
    const book = await readWorkbook(res.structured.out_path);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Report', 'Lists']);
    const report = book.getWorksheet('Report')!;
    expect(report.getCell('A2').value).toMatchObject({ formula: 'SUM(#REF!B2:B4)' });
    expect(report.pageSetup.printArea).toBe('A1:C3'); // the print area moved with its sheet (localSheetId 1 → 0)
    expect(res.structured.inverse_ops[0]).toEqual({ op: 'add_sheet', sheet: 'Data', position: 0 });
    expect(res.structured.inverse_ops).toContainEqual({
      op: 'set_formula',
      sheet: 'Report',
      cell: 'A2',
      formula: '=SUM(Data!B2:B4)',
    });
  });

  it('keeps 3-D references working when their end sheets are deleted or renamed', async () => {
    const monthly = path.join(ws.dir, 'monthly.xlsx');
    const wb = new ExcelJS.Workbook();
    for (const [i, month] of ['Jan', 'Feb', 'Mar'].entries())
      wb.addWorksheet(month).getCell('B2').value = i + 1;
    wb.addWorksheet('Summary').getCell('A1').value = { formula: 'SUM(Jan:Mar!B2)', result: 6 };
    await wb.xlsx.writeFile(monthly);
    const ops = [
      { op: 'delete_sheet', sheet: 'Jan' },
      { op: 'rename_sheet', sheet: 'Feb', new_name: 'February' },
    ];
    // Summary untouched (its rows stream through), then edited (its rows are loaded): the same answer.
    for (const extra of [[], [{ op: 'set_value', sheet: 'Summary', cell: 'C1', value: 'checked' }]]) {
      const res = await ws.call<Out>('exstruct_patch', {
        xlsx_path: monthly,
        out_name: `monthly-${extra.length}.xlsx`,
        ops: [...ops, ...extra],
        return_inverse_ops: true,
      });
      expect(res.structured.error).toBeNull();
      const book = await readWorkbook(res.structured.out_path);
      expect(book.worksheets.map((s) => s.name)).toEqual(['February', 'Mar', 'Summary']);
      expect(book.getWorksheet('Summary')!.getCell('A1').formula).toBe('SUM(February:Mar!B2)');
      expect(res.structured.inverse_ops).toContainEqual({
        op: 'set_formula',
        sheet: 'Summary',
        cell: 'A1',
        formula: '=SUM(Jan:Mar!B2)',
      });
      const undone = await ws.call<Out>('exstruct_patch', {
        xlsx_path: res.structured.out_path,
        out_name: `undone-${extra.length}.xlsx`,
        ops: res.structured.inverse_ops,
      });
      expect(undone.structured.error).toBeNull();
      const back = await readWorkbook(undone.structured.out_path);
      expect(back.worksheets.map((s) => s.name)).toEqual(['Jan', 'Feb', 'Mar', 'Summary']);
      expect(back.getWorksheet('Summary')!.getCell('A1').formula).toBe('SUM(Jan:Mar!B2)');
      expect(back.getWorksheet('Jan')!.getCell('B2').value).toBe(1);
    }
  });

  it('refuses to delete the last visible sheet and checks new names', async () => {
    const basic = await ws.fixture('basic__sample.xlsx');
    const last = await ws.call<Out>('exstruct_patch', {
      xlsx_path: basic,
      ops: [{ op: 'delete_sheet', sheet: 'Sheet1' }],
    });
    expect(patchError(last)?.message).toMatch(/last visible sheet/);
    for (const name of ['a/b', 'x'.repeat(32), 'sheet1', 'History']) {
      const bad = await ws.call<Out>('exstruct_patch', {
        xlsx_path: basic,
        ops: [{ op: 'add_sheet', sheet: name }],
      });
      expect(bad.structured.error, name).not.toBeNull();
    }
    // A control character would reach formulas and XML that cannot carry it: refused, nothing written.
    const control = await ws.call<Out>('exstruct_patch', {
      xlsx_path: basic,
      out_name: 'control.xlsx',
      ops: [{ op: 'rename_sheet', sheet: 'Sheet1', new_name: 'Tab\u0001X' }],
    });
    expect(patchError(control)?.message).toMatch(/control character U\+0001/);
    expect(existsSync(path.join(ws.dir, 'control.xlsx'))).toBe(false);
  });
});

/** Rewrites every part of a package with a function (to make unusual but valid variants). */
async function variant(
  src: string,
  dst: string,
  change: (name: string, text: string) => string,
): Promise<void> {
  const parts = await readParts(src);
  const handle = await open(dst, 'w');
  try {
    const zip = new ZipWriter(handle);
    for (const [name, body] of parts)
      await zip.addDeflated(name, name.endsWith('.xml') ? change(name, body.toString('utf8')) : body);
    await zip.finish();
  } finally {
    await handle.close();
  }
}

describe('worksheets as other programs write them', () => {
  it('edits a sheet that uses a namespace prefix (x:row, x:c)', async () => {
    const made = await ws.call<Out>('exstruct_make', {
      out_path: 'plain.xlsx',
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Sheet1',
          range: 'A1:B2',
          values: [
            [1, 2],
            [3, 4],
          ],
        },
      ],
    });
    const prefixed = path.join(ws.dir, 'prefixed.xlsx');
    await variant(made.structured.out_path, prefixed, (name, text) =>
      name.includes('worksheets/')
        ? text
            .replace('<worksheet xmlns="', '<x:worksheet xmlns:x="')
            .replace(/<(\/?)(?!x:|\?)(\w+)/g, '<$1x:$2')
        : text,
    );
    expect(await readPart(prefixed, 'xl/worksheets/sheet1.xml')).toContain('<x:row');
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: prefixed,
      ops: [
        { op: 'set_value', sheet: 'Sheet1', cell: 'B1', value: 'two' },
        { op: 'set_value', sheet: 'Sheet1', cell: 'C5', value: 5 },
      ],
    });
    expect(res.structured.error).toBeNull();
    const xml = await readPart(res.structured.out_path, 'xl/worksheets/sheet1.xml');
    expect(xml).toContain('<x:c r="B1" t="inlineStr"><x:is><x:t>two</x:t></x:is></x:c>');
    expect(xml).toContain('<x:row r="5"><x:c r="C5"><x:v>5</x:v></x:c></x:row>');
  });

  it('edits a sheet whose rows and cells have no r attributes', async () => {
    const made = await ws.call<Out>('exstruct_make', {
      out_path: 'plain.xlsx',
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Sheet1',
          range: 'A1:C2',
          values: [
            [1, 2, 3],
            [4, 5, 6],
          ],
        },
      ],
    });
    const bare = path.join(ws.dir, 'bare.xlsx');
    await variant(made.structured.out_path, bare, (name, text) =>
      name.includes('worksheets/') ? text.replace(/ r="[A-Z]*\d+"/g, '') : text,
    );
    const res = await ws.call<Out & { patch_diff: { before: unknown }[] }>('exstruct_patch', {
      xlsx_path: bare,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 50 }],
    });
    expect(res.structured.patch_diff[0]!.before).toEqual({ kind: 'value', value: 5 });
    // exceljs cannot read rows without r, so look at the XML: the row got its number, B2 its address.
    const xml = await readPart(res.structured.out_path, 'xl/worksheets/sheet1.xml');
    expect(xml).toContain('<row r="2"><c><v>4</v></c><c r="B2"><v>50</v></c><c><v>6</v></c></row>');
    expect(xml).toContain('<row><c><v>1</v></c><c><v>2</v></c><c><v>3</v></c></row>');
  });

  it('writes to column AA as exceljs (an independent reader) numbers it', async () => {
    const res = await ws.call<Out>('exstruct_make', {
      out_path: 'aa.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'AA1', value: 'x' }],
    });
    expect(
      (await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!.getRow(1).getCell(27).value,
    ).toBe('x');
  });
});

describe('tables', () => {
  it('refuses to change a table header (its text is also the column name in the table part) but edits the body', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('T');
    sheet.addTable({
      name: 'Sales',
      ref: 'B2',
      headerRow: true,
      columns: [{ name: 'Month' }, { name: 'Amount' }],
      rows: [
        ['Jan', 1],
        ['Feb', 2],
      ],
    });
    const file = path.join(ws.dir, 'table.xlsx');
    await wb.xlsx.writeFile(file);
    const header = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'T', cell: 'C2', value: 'Total' }],
    });
    expect(patchError(header)?.message).toMatch(/header cell of the table "Sales"/);
    const body = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'T', cell: 'C3', value: 10 }],
    });
    expect(body.structured.error).toBeNull();
    expect((await readWorkbook(body.structured.out_path)).getWorksheet('T')!.getCell('C3').value).toBe(10);
  });
});

describe('new cells', () => {
  it('take the format their column showed while empty', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('S');
    sheet.getColumn('B').font = { bold: true };
    sheet.getCell('A1').value = 1;
    const file = path.join(ws.dir, 'colstyle.xlsx');
    await wb.xlsx.writeFile(file);
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'S', cell: 'B5', value: 'x' }],
    });
    expect((await readWorkbook(res.structured.out_path)).getWorksheet('S')!.getCell('B5').font?.bold).toBe(
      true,
    );
  });
});
