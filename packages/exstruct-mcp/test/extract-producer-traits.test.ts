// Extraction of workbooks as each producer writes them (issue 16): every workbook here is rewritten from
// a small Excel workbook (basic__sample.xlsx: a bordered table of months and three products) to carry
// one trait, then extracted by the fast byte parser and by the tokenizer in one pass and in row batches,
// which must agree.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { FIXTURES, tempDir, type TempDir } from './extract-helpers.js';
import { mutateWorkbook, type PartEdits } from './workbook-traits.js';

let tmp: TempDir;
let source: string;
beforeAll(async () => {
  tmp = await tempDir('exstruct-traits-');
  source = path.join(tmp.dir, 'basic.xlsx');
  await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), source);
});
afterAll(() => tmp.remove());

let count = 0;
async function variant(edits: PartEdits): Promise<string> {
  const target = path.join(tmp.dir, `trait${++count}.xlsx`);
  await mutateWorkbook(source, target, edits);
  return target;
}

/** `{B4: value, …}` of the only sheet, checked to be the same in all three ways of reading rows. */
async function cellsOf(file: string): Promise<Record<string, unknown>> {
  const read = async (batches: false | { minBytes: number }, fastRows = false) => {
    const extraction = await extractWorkbook(file, { alphaCol: true, batches, fastRows });
    const sheet = Object.values(extraction.workbook.sheets)[0]!;
    const out: Record<string, unknown> = {};
    for (const row of sheet.rows ?? [])
      for (const [col, v] of Object.entries(row.c)) out[`${col}${row.r}`] = v;
    return { cells: out, tables: sheet.table_candidates };
  };
  const onePass = await read(false);
  expect(await read({ minBytes: 1 })).toEqual(onePass);
  expect(await read(false, true)).toEqual(onePass);
  return onePass.cells;
}

const original = () => cellsOf(source);

describe('extraction of producer traits', () => {
  it('reads the untouched workbook as before (the baseline of every variant)', async () => {
    const cells = await original();
    expect(cells).toMatchObject({ B3: '月', C3: '製品A', B4: '2025-01-01', C4: 120 });
  });

  it('keeps cells holding an empty or whitespace-only string, as strings', async () => {
    const file = await variant({
      'xl/sharedStrings.xml': (xml) =>
        xml.replace('</sst>', '<si><t xml:space="preserve">  </t></si><si><t/></si></sst>'),
      'xl/worksheets/sheet1.xml': (xml) =>
        xml.replace(
          '<c r="E3" s="7" t="s"><v>3</v></c>',
          '<c r="E3" s="7" t="s"><v>3</v></c><c r="G3" t="s"><v>4</v></c><c r="H3" t="s"><v>5</v></c>' +
            '<c r="I3" t="inlineStr"><is><t xml:space="preserve"> </t></is></c><c r="J3" t="str"><f>""</f><v></v></c>',
        ),
    });
    const cells = await cellsOf(file);
    expect(cells).toEqual({ ...(await original()), G3: '  ', H3: '', I3: ' ', J3: '' });
    // Blank strings make no table: the candidates are those of the original workbook.
    const tables = async (f: string) => (await extractWorkbook(f)).workbook.sheets.Sheet1!.table_candidates;
    expect(await tables(file)).toEqual(await tables(source));
  });

  it('does not take [Red]General or [$-409]General for a date format', async () => {
    const file = await variant({
      'xl/styles.xml': (xml) =>
        xml
          .replace(
            '<fonts',
            '<numFmts count="2"><numFmt numFmtId="164" formatCode="[Red]General"/>' +
              '<numFmt numFmtId="165" formatCode="[$-409]General;[Red]\\-General"/></numFmts><fonts',
          )
          // The number cells of rows 4 (s=4) and 5+ (s=2) get one format each.
          .replace(/(<xf numFmtId=")0(" fontId="0" fillId="0" borderId="1")/, '$1164$2')
          .replace(/(<xf numFmtId=")0(" fontId="0" fillId="0" borderId="2")/, '$1165$2'),
    });
    const cells = await cellsOf(file);
    expect(cells.C4).toBe(120);
    expect(cells.C5).toBe(135);
    expect(cells).toEqual(await original());
  });

  it('counts from 1904 when <x15:workbookPr> follows in extLst (Excel 2013 and later)', async () => {
    const file = await variant({
      'xl/workbook.xml': (xml) => {
        expect(xml).toContain('<x15:workbookPr');
        return xml.replace('<workbookPr/>', '<workbookPr date1904="1"/>');
      },
    });
    const cells = await cellsOf(file);
    // Serial 45658 is 2025-01-01 counted from 1900, 1,462 days later counted from 1904.
    expect(cells.B4).toBe('2029-01-02');
  });

  it('does not let a <numFmt> of <dxfs> (conditional formats) replace the cells’ own', async () => {
    const file = await variant({
      'xl/styles.xml': (xml) =>
        xml
          .replace('<fonts', '<numFmts count="1"><numFmt numFmtId="164" formatCode="0.0"/></numFmts><fonts')
          .replace(/(<xf numFmtId=")0(" fontId="0" fillId="0" borderId="1")/, '$1164$2')
          .replace(
            '<dxfs count="0"/>',
            '<dxfs count="1"><dxf><numFmt numFmtId="164" formatCode="yyyy/mm/dd"/>' +
              '<fill><patternFill><bgColor rgb="FFFF0000"/></patternFill></fill></dxf></dxfs>',
          ),
    });
    expect(await cellsOf(file)).toEqual(await original());
  });

  it('reads <c t="s"><v/></c> as a cell without a value, not as shared string 0', async () => {
    const file = await variant({
      'xl/worksheets/sheet1.xml': (xml) =>
        xml
          .replace('<c r="C3" s="6" t="s"><v>1</v></c>', '<c r="C3" s="6" t="s"><v/></c>')
          .replace('<c r="D3" s="6" t="s"><v>2</v></c>', '<c r="D3" s="6" t="s"><v></v></c>'),
    });
    const cells = await cellsOf(file);
    const { C3: _c, D3: _d, ...rest } = await original();
    expect(cells).toEqual(rest);
  });
});
