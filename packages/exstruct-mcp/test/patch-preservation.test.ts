import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zipBytes } from './extract-helpers.js';
import {
  addMacroAndPivot,
  buildRichWorkbook,
  FIXTURES,
  readPart,
  readParts,
  readWorkbook,
  sheetExtras,
  validationOf,
  workspace,
  type Workspace,
} from './patch-helpers.js';

interface PatchOut {
  out_path: string;
  error: unknown;
  warnings: string[];
}

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

function changedParts(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => !before.get(n)?.equals(after.get(n) ?? Buffer.alloc(0))).sort();
}

describe('what an edit keeps', () => {
  it('a one-cell edit of a sheet with a chart and shapes changes only that sheet and workbook.xml', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 121 }],
    });
    const before = await readParts(input);
    const after = await readParts(res.structured.out_path);
    expect(changedParts(before, after)).toEqual(['xl/workbook.xml', 'xl/worksheets/sheet1.xml']);
    expect([...after.keys()]).toEqual([...before.keys()]); // same parts, same order
    // workbook.xml differs only by the recalculation flag.
    expect(after.get('xl/workbook.xml')!.toString().replace(' fullCalcOnLoad="1"', '')).toBe(
      before.get('xl/workbook.xml')!.toString(),
    );
    // The sheet differs only in the edited cell.
    expect(
      after
        .get('xl/worksheets/sheet1.xml')!
        .toString()
        .replace('<c r="C4" s="4"><v>121</v></c>', '<c r="C4" s="4"><v>120</v></c>')
        .replace('<row r="4">', '<row r="4" spans="2:5">'),
    ).toBe(before.get('xl/worksheets/sheet1.xml')!.toString());
  });

  it('copies untouched parts still compressed: the same compressed bytes', async () => {
    const input = await ws.fixture('smartart__sample_smartart.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 'x' }],
    });
    const raw = async (file: string) => {
      const { ZipArchive } = await import('../src/ooxml/zip-archive.js');
      const zip = await ZipArchive.open(file);
      const out = new Map<string, Buffer>();
      for (const e of zip.list()) {
        const chunks: Buffer[] = [];
        for await (const c of (await zip.openRawStream(e.name)).stream) chunks.push(c as Buffer);
        out.set(e.name, Buffer.concat(chunks));
      }
      zip.close();
      return out;
    };
    const before = await raw(input);
    const after = await raw(res.structured.out_path);
    const diagrams = [...before.keys()].filter(
      (n) => n.includes('diagrams/') || n.includes('drawings/') || n.includes('media/'),
    );
    expect(diagrams.length).toBeGreaterThan(0);
    for (const name of diagrams) expect(after.get(name)!.equals(before.get(name)!)).toBe(true);
  });

  it('keeps validation, conditional formats, defined names, images, merges, VBA, pivot parts and cached formula values', async () => {
    const plain = path.join(ws.dir, 'rich.xlsx');
    await buildRichWorkbook(plain);
    const input = path.join(ws.dir, 'rich.xlsm');
    const { vba } = await addMacroAndPivot(plain, input);
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'set_value', sheet: 'Data', cell: 'A2', value: 'apricot' },
        { op: 'set_bold', sheet: 'Report', cell: 'A1' },
      ],
    });
    expect(res.structured.error).toBeNull();
    expect(path.extname(res.structured.out_path)).toBe('.xlsm');
    const before = await readParts(input);
    const after = await readParts(res.structured.out_path);
    expect(changedParts(before, after)).toEqual([
      'xl/styles.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
    ]);
    expect(after.get('xl/vbaProject.bin')).toEqual(vba);
    expect(after.get('[Content_Types].xml')!.toString()).toContain('macroEnabled.main+xml');
    expect(after.get('xl/pivotCache/pivotCacheDefinition1.xml')).toEqual(
      before.get('xl/pivotCache/pivotCacheDefinition1.xml'),
    );

    // An independent reader sees everything that was there.
    const book = await readWorkbook(res.structured.out_path);
    const data = book.getWorksheet('Data')!;
    const report = book.getWorksheet('Report')!;
    expect(data.getCell('A2').value).toBe('apricot');
    expect(data.getCell('B5').value).toEqual({ formula: 'SUM(B2:B4)', result: 60 });
    expect(data.getCell('B6').value).toEqual({ formula: 'B5*2', result: 120 });
    expect(report.getCell('A2').value).toEqual({ formula: 'SUM(Data!B2:B4)', result: 60 });
    expect(validationOf(data, 'C2:C4')).toMatchObject({
      type: 'list',
      formulae: ['Lists!$A$1:$A$3'],
    });
    expect(sheetExtras(data).conditionalFormattings).toHaveLength(1);
    expect(book.definedNames.getRanges('Amounts').ranges).toEqual(['Data!$B$2:$B$4']);
    expect(report.pageSetup.printArea).toBe('A1:C3');
    expect(report.getImages()).toHaveLength(1);
    expect(report.model.merges).toEqual(['A1:C1']);
    expect(report.getCell('A1').font?.bold).toBe(true);
    expect(data.getColumn(1).width).toBe(14);
  });

  it("follows a renamed pivot source sheet, and warns when a pivot's source sheet is deleted", async () => {
    const plain = path.join(ws.dir, 'rich.xlsx');
    await buildRichWorkbook(plain);
    const input = path.join(ws.dir, 'rich.xlsm');
    await addMacroAndPivot(plain, input);
    const source = (parts: Map<string, Buffer>) =>
      /<worksheetSource[^>]*>/.exec(parts.get('xl/pivotCache/pivotCacheDefinition1.xml')!.toString())![0];
    const renamed = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'renamed.xlsm',
      ops: [{ op: 'rename_sheet', sheet: 'Data', new_name: 'Sales & Co' }],
    });
    expect(renamed.structured.error).toBeNull();
    expect(source(await readParts(renamed.structured.out_path))).toBe(
      '<worksheetSource ref="A1:B4" sheet="Sales &amp; Co"/>',
    );
    const deleted = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'deleted.xlsm',
      ops: [{ op: 'delete_sheet', sheet: 'Data' }],
    });
    expect(deleted.structured.error).toBeNull();
    expect(deleted.structured.warnings).toContainEqual(
      expect.stringContaining('pivot table reads from the deleted sheet "Data"'),
    );
  });

  it('keeps cached values of formula cells it does not edit, even in the rows it edits', async () => {
    const input = await ws.fixture('formula__formula.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B9', value: 90 }],
    });
    const sheet = (await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!;
    expect(sheet.getCell('B9').value).toBe(90);
    expect(sheet.getCell('C9').value).toMatchObject({ result: 'A' }); // stale until Excel recalculates: that is what fullCalcOnLoad is for
    expect(sheet.getCell('C5').value).toMatchObject({ result: 16000 });
    expect(sheet.getCell('C12').value).toMatchObject({ result: 'D' });
    const xml = await readPart(res.structured.out_path, 'xl/worksheets/sheet1.xml');
    expect(xml).toContain('<f t="array" ref="C5">SUM(B2:B4*C2:C4)</f><v>16000</v>');
    expect(xml).toContain('<f t="shared" si="0"/><v>B</v>');
  });

  it('drops a stale calcChain and asks Excel to recalculate when formulas change', async () => {
    const input = await ws.fixture('formula__formula.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'D2', formula: '=B2*C2' }],
    });
    const after = await readParts(res.structured.out_path);
    expect(after.has('xl/calcChain.xml')).toBe(false);
    expect(after.get('[Content_Types].xml')!.toString()).not.toContain('calcChain');
    expect(after.get('xl/_rels/workbook.xml.rels')!.toString()).not.toContain('calcChain');
    expect(after.get('xl/workbook.xml')!.toString()).toMatch(/<calcPr[^>]*fullCalcOnLoad="1"/);
  });

  it('keeps the calcChain when no formula changes', async () => {
    const input = await ws.fixture('formula__formula.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 1 }],
    });
    expect((await readParts(res.structured.out_path)).has('xl/calcChain.xml')).toBe(true);
  });

  it('overwriting the master of a shared formula keeps the other cells of the group working', async () => {
    const input = await ws.fixture('formula__formula.xlsx');
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C10', value: 'n/a' }],
    });
    const sheet = (await readWorkbook(res.structured.out_path)).getWorksheet('Sheet1')!;
    expect(sheet.getCell('C10').value).toBe('n/a');
    expect(sheet.getCell('C11').value).toEqual({
      formula: '_xlfn.IFS(B11>=85,"A",B11>=70,"B",B11>=60,"C",TRUE,"D")',
      result: 'B',
    });
    expect(sheet.getCell('C12').value).toEqual({
      formula: '_xlfn.IFS(B12>=85,"A",B12>=70,"B",B12>=60,"C",TRUE,"D")',
      result: 'D',
    });
  });
});

describe('a package whose parts are stored, not deflated', () => {
  it('edits its sheet and copies every other part byte for byte', async () => {
    // LibreOffice's workbook (two sheets, Japanese names) with every part stored. A package up to 32 MiB
    // is read into memory and its parts are handed over from there whole.
    const source = await readParts(path.join(FIXTURES, 'producers', 'libreoffice.xlsx'));
    const input = path.join(ws.dir, 'stored.xlsx');
    await writeFile(input, zipBytes([...source], { store: true }));
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: '売上', cell: 'B2', value: '日本語' }],
    });
    expect(res.isError, res.text).toBe(false);
    const after = await readParts(res.structured.out_path);
    expect(changedParts(source, after)).toEqual(['xl/workbook.xml', 'xl/worksheets/sheet1.xml']);
    const book = await readWorkbook(res.structured.out_path);
    expect(book.getWorksheet('売上')!.getCell('B2').value).toBe('日本語');
    const untouched = await readWorkbook(path.join(FIXTURES, 'producers', 'libreoffice.xlsx'));
    expect(book.getWorksheet('売上')!.getCell('A3').value).toEqual(
      untouched.getWorksheet('売上')!.getCell('A3').value,
    );
  });
});

describe('atomic writes', () => {
  it('two concurrent patches of the same file never leave a broken file', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const runs = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        ws.call<PatchOut>('exstruct_patch', {
          xlsx_path: input,
          ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: n }],
          out_name: 'same.xlsx',
          on_conflict: 'overwrite',
        }),
      ),
    );
    expect(runs.every((r) => r.structured.error === null)).toBe(true);
    const value = (await readWorkbook(path.join(ws.dir, 'same.xlsx')))
      .getWorksheet('Sheet1')!
      .getCell('C4').value;
    expect([1, 2, 3, 4]).toContain(value);
    expect((await readdir(ws.dir)).sort()).toEqual(['basic__sample.xlsx', 'same.xlsx']);
  });

  it('concurrent in-place edits of one file leave it whole', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    await Promise.all(
      [1, 2, 3].map((n) =>
        ws.call('exstruct_patch', {
          xlsx_path: input,
          ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C5', value: n }],
          out_name: 'basic__sample.xlsx',
          on_conflict: 'overwrite',
        }),
      ),
    );
    const sheet = (await readWorkbook(input)).getWorksheet('Sheet1')!;
    expect([1, 2, 3]).toContain(sheet.getCell('C5').value);
    expect(sheet.getCell('C4').value).toBe(120);
    expect(await readdir(ws.dir)).toEqual(['basic__sample.xlsx']);
  });

  it('concurrent patches with on_conflict=rename get distinct names', async () => {
    const input = await ws.fixture('basic__sample.xlsx');
    const runs = await Promise.all(
      [1, 2, 3].map((n) =>
        ws.call<PatchOut>('exstruct_patch', {
          xlsx_path: input,
          ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: n }],
          on_conflict: 'rename',
        }),
      ),
    );
    const names = runs.map((r) => path.basename(r.structured.out_path)).sort();
    expect(new Set(names).size).toBe(3);
    for (const r of runs) expect(await readFile(r.structured.out_path)).toBeTruthy();
  });
});

describe('every reference workbook survives a one-cell edit', () => {
  const files = [
    'basic__sample.xlsx',
    'en_form_sf425__sample.xlsx',
    'ja_general_form__ja_form.xlsx',
    'formula__formula.xlsx',
    'gantt_chart__en__sample.xlsx',
    'smartart__sample_smartart.xlsx',
    'flowchart__sample-shape-connector.xlsx',
    'assets__multiple_print_ranges_4sheets.xlsx',
  ];
  it.each(files)('%s', async (name) => {
    const input = await ws.fixture(name);
    const firstSheet = (await readWorkbook(input)).worksheets[0]!;
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: firstSheet.name, cell: 'Z99', value: 'edited' }],
    });
    expect(res.structured.error).toBeNull();
    const before = await readParts(input);
    const after = await readParts(res.structured.out_path);
    const sheetPart = [...after.keys()].find((n) => /worksheets\/sheet1\.xml$/.test(n))!;
    expect(changedParts(before, after)).toEqual(['xl/workbook.xml', sheetPart].sort());
    const book = await readWorkbook(res.structured.out_path);
    expect(book.worksheets[0]!.getCell('Z99').value).toBe('edited');
    expect(book.worksheets.map((s) => s.name)).toEqual(
      (await readWorkbook(input)).worksheets.map((s) => s.name),
    );
  });
});
