// Editing workbooks as each producer writes them (issue 16): every workbook here is rewritten from a
// small Excel workbook to carry one producer's trait, edited through a real MCP client, read back by
// our extractor, and (through the workspace) checked by independent readers.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { readPart, workspace, type Workspace } from './patch-helpers.js';
import { mainPrefixed, mutateWorkbook, relsOnEachSheet, REL_NS, toStrict } from './workbook-traits.js';

interface PatchOut {
  out_path: string;
  inverse_ops: Record<string, unknown>[];
  warnings: string[];
}

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => {
  await ws.close();
});

async function variant(name: string, edits: Parameters<typeof mutateWorkbook>[2], add = {}): Promise<string> {
  const source = await ws.fixture('basic__sample.xlsx', `source-${name}.xlsx`);
  const target = path.join(ws.dir, `${name}.xlsx`);
  await mutateWorkbook(source, target, edits, add);
  return target;
}

async function cellsOf(file: string, sheet: string): Promise<Record<string, unknown>> {
  const extraction = await extractWorkbook(file, { alphaCol: true, sheets: [sheet] });
  const payload = extraction.sheetPayloads()[0]!;
  const out: Record<string, unknown> = {};
  for (const row of payload.sheet.rows ?? [])
    for (const [col, v] of Object.entries(row.c)) out[`${col}${row.r}`] = v;
  return out;
}

describe('add_sheet writes a <sheet> every reader can open', () => {
  it.each([
    ['r declared on each <sheet> (openpyxl, so pandas)', { 'xl/workbook.xml': relsOnEachSheet('r') }],
    ['another prefix declared on each <sheet>', { 'xl/workbook.xml': relsOnEachSheet('ns') }],
    [
      'ns:id on the children while the root declares r',
      {
        'xl/workbook.xml': (xml: string) =>
          xml.replace(/<sheet ([^>]*?)r:id=/g, `<sheet xmlns:ns="${REL_NS}" $1ns:id=`),
      },
    ],
    ['an x:-prefixed workbook (OpenXML SDK)', { 'xl/workbook.xml': mainPrefixed }],
  ])('%s', async (_label, edits) => {
    const input = await variant('trait', edits);
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'add_sheet', sheet: '集計' },
        { op: 'set_value', sheet: '集計', cell: 'A1', value: 42 },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    const workbookXml = await readPart(res.structured.out_path, 'xl/workbook.xml');
    // The new sheet's r:id prefix is declared where it is used (the workspace's strict parse checks it
    // too, and openpyxl loads the file).
    expect(workbookXml).toMatch(
      /<(x:)?sheet (xmlns:\w+="[^"]+" )?name="集計" sheetId="2" (\w+):id="rId\d+"\/>/,
    );
    expect(await cellsOf(res.structured.out_path, '集計')).toEqual({ A1: 42 });
    expect(await cellsOf(res.structured.out_path, 'Sheet1')).toMatchObject({ C4: 120 });
  });
});

describe('sheets as other producers list them', () => {
  it('<sheet …></sheet> with an end tag (ClosedXML) is edited and renamed like any other', async () => {
    const input = await variant('closedxml', {
      'xl/workbook.xml': (xml) => xml.replace(/<sheet ([^>]*?)\/>/, '<sheet $1></sheet>'),
    });
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 7 },
        { op: 'rename_sheet', sheet: 'Sheet1', new_name: 'Data' },
        { op: 'add_sheet', sheet: 'More' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    const workbookXml = await readPart(res.structured.out_path, 'xl/workbook.xml');
    expect(workbookXml).toMatch(/<sheet name="Data" sheetId="1" r:id="rId1"><\/sheet><sheet name="More"/);
    expect(await cellsOf(res.structured.out_path, 'Data')).toMatchObject({ C4: 7 });
  });

  it('a sheet with r:id="" (LibreOffice, old macro and dialog sheets) can be renamed, and says why its cells cannot be edited', async () => {
    const input = await variant('lo-dialog', {
      'xl/workbook.xml': (xml) =>
        xml.replace('</sheets>', '<sheet name="Dialog1" sheetId="2" state="hidden" r:id=""/></sheets>'),
    });
    const renamed = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'rename_sheet', sheet: 'Dialog1', new_name: 'OldDialog' }],
    });
    expect(renamed.isError, renamed.text).toBe(false);
    expect(await readPart(renamed.structured.out_path, 'xl/workbook.xml')).toContain(
      '<sheet name="OldDialog" sheetId="2" state="hidden" r:id=""/>',
    );
    const edited = await ws.call('exstruct_patch', {
      xlsx_path: input,
      out_name: 'edited.xlsx',
      ops: [{ op: 'set_value', sheet: 'Dialog1', cell: 'A1', value: 1 }],
    });
    expect(edited.error?.code).toBe('PATCH_FAILED');
    expect(edited.error?.message).toMatch(/"Dialog1" is a none|has no worksheet part|not a worksheet/);
  });

  it('state="show" (ExcelJS) is visible: the other sheet can still be deleted', async () => {
    const input = await variant('exceljs-show', {
      'xl/workbook.xml': (xml) => xml.replace('<sheet name="Sheet1"', '<sheet state="show" name="Sheet1"'),
    });
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'add_sheet', sheet: 'Temp' },
        { op: 'delete_sheet', sheet: 'Temp' },
        { op: 'add_sheet', sheet: 'Kept' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    const extraction = await extractWorkbook(res.structured.out_path);
    expect(extraction.sheetNames).toEqual(['Sheet1', 'Kept']);
  });
});

describe('Strict OOXML packages (purl.oclc.org namespaces)', () => {
  it('a new sheet is written in Strict, and a formula edit drops calcChain.xml', async () => {
    const calcChain =
      '<?xml version="1.0"?><calcChain xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main"><c r="C4" i="1"/></calcChain>';
    const input = await variant(
      'strict',
      {
        'xl/workbook.xml': toStrict,
        'xl/worksheets/sheet1.xml': toStrict,
        'xl/styles.xml': toStrict,
        'xl/sharedStrings.xml': toStrict,
        'xl/_rels/workbook.xml.rels': (xml) =>
          toStrict(xml).replace(
            '</Relationships>',
            '<Relationship Id="rId99" Type="http://purl.oclc.org/ooxml/officeDocument/relationships/calcChain" Target="calcChain.xml"/></Relationships>',
          ),
        '[Content_Types].xml': (xml) =>
          xml.replace(
            '</Types>',
            '<Override PartName="/xl/calcChain.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/></Types>',
          ),
      },
      { 'xl/calcChain.xml': calcChain },
    );
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [
        { op: 'add_sheet', sheet: 'New' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'F4', formula: '=C4*2' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    const out = res.structured.out_path;
    const rels = await readPart(out, 'xl/_rels/workbook.xml.rels');
    expect(rels).toContain('Type="http://purl.oclc.org/ooxml/officeDocument/relationships/worksheet"');
    expect(rels).not.toContain('calcChain');
    expect(rels).not.toContain('schemas.openxmlformats.org/officeDocument');
    const sheet2 = await readPart(out, 'xl/worksheets/sheet2.xml');
    expect(sheet2).toContain('xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main"');
    expect(sheet2).not.toContain('schemas.openxmlformats.org');
    await expect(readPart(out, 'xl/calcChain.xml')).rejects.toThrow();
    expect(await readPart(out, '[Content_Types].xml')).not.toContain('calcChain');
    // Styles were read (not replaced by a new part): the edited cell keeps the workbook's formats.
    expect(await readPart(out, 'xl/styles.xml')).toBe(
      toStrict(await readPart(input.replace('strict', 'source-strict'), 'xl/styles.xml')),
    );
  });
});

describe('templates', () => {
  it.each(['.xltx', '.xltm'])('%s is edited like a workbook and stays a template', async (ext) => {
    const input = await ws.fixture('basic__sample.xlsx', `template${ext}`);
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 5 }],
    });
    expect(res.isError, res.text).toBe(false);
    expect(path.basename(res.structured.out_path)).toBe(`template_patched${ext}`);
    expect(await cellsOf(res.structured.out_path, 'Sheet1')).toMatchObject({ C4: 5 });
  });
});

describe('undo restores what the cell held, read as extraction reads it', () => {
  it('CDATA, single-quoted attributes, literal CR LF and ISO date cells come back exactly', async () => {
    const row =
      '<row r="12"><c r="B12" t="inlineStr"><is><t><![CDATA[<b>bold</b> & more]]></t></is></c>' +
      "<c r='C12' t='s'><v>1</v></c>" +
      '<c r="D12" t="inlineStr"><is><t>line1\r\nline2</t></is></c>' +
      '<c r="E12" t="d"><v>2024-03-15</v></c></row>';
    const input = await variant('undo-traits', {
      'xl/worksheets/sheet1.xml': (xml) => xml.replace('</sheetData>', `${row}</sheetData>`),
    });
    const before = await cellsOf(input, 'Sheet1');
    expect(before).toMatchObject({
      B12: '<b>bold</b> & more',
      C12: '製品A',
      D12: 'line1\nline2',
      E12: '2024-03-15',
    });
    const patched = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: ['B12', 'C12', 'D12', 'E12'].map((cell) => ({ op: 'set_value', sheet: 'Sheet1', cell, value: 0 })),
      return_inverse_ops: true,
    });
    expect(patched.isError, patched.text).toBe(false);
    expect(patched.structured.inverse_ops).toEqual([
      { op: 'set_value', sheet: 'Sheet1', cell: 'E12', value: '2024-03-15', value_type: 'date' },
      // A date written back gets a date format where the cell has none: the cell's own goes back after.
      {
        op: 'restore_design_snapshot',
        sheet: 'Sheet1',
        design_snapshot: { cell_styles: [{ cell: 'E12', style_id: 0 }] },
      },
      { op: 'set_value', sheet: 'Sheet1', cell: 'D12', value: 'line1\nline2' },
      { op: 'set_value', sheet: 'Sheet1', cell: 'C12', value: '製品A' },
      { op: 'set_value', sheet: 'Sheet1', cell: 'B12', value: '<b>bold</b> & more' },
    ]);
    const undone = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: patched.structured.out_path,
      ops: patched.structured.inverse_ops,
      out_name: 'undone.xlsx',
    });
    expect(undone.isError, undone.text).toBe(false);
    expect(await cellsOf(undone.structured.out_path, 'Sheet1')).toEqual(before);
    expect(await readPart(undone.structured.out_path, 'xl/worksheets/sheet1.xml')).toContain(
      '<c r="E12" t="d"><v>2024-03-15</v></c>',
    );
  });
});
