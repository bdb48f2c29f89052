// exstruct_patch on workbooks whose relationships name parts they should not, or parts that are missing
// or orphaned: Excel's own fixtures with their XML edited by hand (an audit's findings, each failing on
// the code before its fix). The patch deletes only parts of the kind it means to, never writes an entry
// twice, and answers a coded error for what it cannot edit. Entry names are listed by Python's zipfile.
import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { callTool } from '@mcp-workbench/core/testing';
import { zipEntryNames } from './independent-reader.js';
import { addRelationship, readParts, workspace, type PartEdit, type Workspace } from './patch-helpers.js';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const EMPTY_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
const WB_RELS = 'xl/_rels/workbook.xml.rels';
const SHEET_RELS = 'xl/worksheets/_rels/sheet1.xml.rels';
const DRAWING_RELS = 'xl/drawings/_rels/drawing1.xml.rels';
/** basic__sample.xlsx: Sheet1 with a chart ("グラフ 1") in xl/drawings/drawing1.xml. */
const BASIC = 'basic__sample.xlsx';
/** formula__formula.xlsx: has a calculation chain. */
const FORMULAS = 'formula__formula.xlsx';
/** gantt_chart__en__sample.xlsx: its sheet has no drawing. */
const GANTT = 'gantt_chart__en__sample.xlsx';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => {
  await ws.close();
});

/** A string replace that must change something (else the fixture is not what the test thinks). */
const replace = (from: string | RegExp, to: string) => (xml: string) => {
  const out = xml.replace(from, to);
  if (out === xml) throw new Error(`fixture edit found no ${String(from)}`);
  return out;
};

/** A fixture with parts edited, and the names of the parts it holds. */
async function edited(
  fixture: string,
  edits: Record<string, PartEdit>,
): Promise<{ file: string; parts: string[] }> {
  const file = await ws.edited(fixture, edits);
  return { file, parts: [...(await readParts(file)).keys()] };
}

async function patch(file: string, ops: Record<string, unknown>[]) {
  const res = await ws.call<{ out_path: string }>('exstruct_patch', { xlsx_path: file, ops });
  expect(res.isError, res.text).toBeFalsy();
  return res.structured.out_path;
}

/** A coded error, and no file written beside the input. */
async function refused(file: string, ops: Record<string, unknown>[]) {
  const before = await readdir(ws.dir);
  const res = await ws.call('exstruct_patch', { xlsx_path: file, ops });
  expect(res.isError).toBe(true);
  expect(await readdir(ws.dir)).toEqual(before);
  return res.error!;
}

/** The output's entry names as Python's zipfile lists them; none may appear twice (even by case). */
async function entries(ctx: TestContext, file: string): Promise<string[]> {
  const names = await zipEntryNames(file);
  if (names === undefined) ctx.skip(); // .ci/run installs python3-openpyxl and requires it
  const listed = names ?? [];
  expect(listed.length, listed.join(' ')).toBe(new Set(listed.map((n) => n.toLowerCase())).size);
  return listed;
}

/** A second sheet "Two" (xl/worksheets/sheet2.xml) whose relationships hold `rels`. */
const withSecondSheet = (rels: string): Record<string, PartEdit> => ({
  'xl/workbook.xml': replace(
    '<sheet name="Sheet1" sheetId="1" r:id="rId1"/>',
    '<sheet name="Sheet1" sheetId="1" r:id="rId1"/><sheet name="Two" sheetId="2" r:id="rId98"/>',
  ),
  [WB_RELS]: addRelationship('worksheet', 'worksheets/sheet2.xml', 'rId98'),
  '[Content_Types].xml': replace(
    '</Types>',
    '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
  ),
  'xl/worksheets/sheet2.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheetData/></worksheet>`,
  'xl/worksheets/_rels/sheet2.xml.rels': addRelationship('customXml', rels, 'rId5')(EMPTY_RELS),
});

describe('parts are deleted only when they are of the kind the patch deletes', () => {
  it.for(['workbook.xml', 'styles.xml', '/[Content_Types].xml', 'worksheets/sheet1.xml'])(
    'a calculation-chain relationship to %s: a formula edit keeps that part',
    async (target, ctx) => {
      const { file, parts } = await edited(FORMULAS, {
        [WB_RELS]: replace('Target="calcChain.xml"', `Target="${target}"`),
      });
      const out = await patch(file, [{ op: 'set_formula', sheet: 'Sheet1', cell: 'Z1', formula: '=1+1' }]);
      expect(await entries(ctx, out)).toEqual(expect.arrayContaining(parts));
      expect((await readParts(out)).get(WB_RELS)!.toString('utf8')).not.toContain('/calcChain"');
    },
  );

  it.for([
    '../workbook.xml',
    '/docProps/core.xml',
    '/[Content_Types].xml',
    '../_rels/workbook.xml.rels',
    '../../_rels/.rels',
  ])(
    'delete_sheet of a sheet whose relationship names %s deletes the sheet and keeps that part',
    async (target, ctx) => {
      const { file, parts } = await edited(BASIC, withSecondSheet(target));
      const names = await entries(ctx, await patch(file, [{ op: 'delete_sheet', sheet: 'Two' }]));
      const gone = parts.filter((p) => !names.includes(p));
      expect(gone.sort()).toEqual(['xl/worksheets/_rels/sheet2.xml.rels', 'xl/worksheets/sheet2.xml']);
    },
  );

  it.for(['../workbook.xml', '/[Content_Types].xml', '../worksheets/sheet1.xml'])(
    'delete_chart whose chart relationship names %s removes the chart frame and keeps that part',
    async (target, ctx) => {
      const { file, parts } = await edited(BASIC, {
        [DRAWING_RELS]: replace('Target="../charts/chart1.xml"', `Target="${target}"`),
      });
      const out = await patch(file, [{ op: 'delete_chart', sheet: 'Sheet1', chart_name: 'グラフ 1' }]);
      expect(await entries(ctx, out)).toEqual(expect.arrayContaining(parts));
      expect((await readParts(out)).get('xl/drawings/drawing1.xml')!.toString('utf8')).not.toContain(
        'グラフ 1',
      );
    },
  );

  it('delete_chart keeps a chart another drawing still shows, and removes an unshared one with its style parts', async (ctx) => {
    const fixture = await readParts(await ws.fixture(BASIC, 'shared-src.xlsx'));
    const shared = await edited(BASIC, {
      ...withSecondSheet('../drawings/drawing2.xml'),
      'xl/worksheets/_rels/sheet2.xml.rels': addRelationship(
        'drawing',
        '../drawings/drawing2.xml',
        'rId1',
      )(EMPTY_RELS),
      'xl/drawings/drawing2.xml': fixture.get('xl/drawings/drawing1.xml')!.toString('utf8'),
      [`xl/drawings/_rels/drawing2.xml.rels`]: fixture.get(DRAWING_RELS)!.toString('utf8'),
    });
    const out = await patch(shared.file, [{ op: 'delete_chart', sheet: 'Sheet1', chart_name: 'グラフ 1' }]);
    expect(await entries(ctx, out)).toEqual(
      expect.arrayContaining(['xl/charts/chart1.xml', 'xl/charts/style1.xml']),
    );

    const alone = await patch((await edited(BASIC, {})).file, [
      { op: 'delete_chart', sheet: 'Sheet1', chart_name: 'グラフ 1' },
    ]);
    const left = await entries(ctx, alone);
    expect(left.filter((n) => n.startsWith('xl/charts/'))).toEqual([]);
    const types = (await readParts(alone)).get('[Content_Types].xml')!.toString('utf8');
    expect(types).not.toMatch(/\/xl\/charts\//);
  });

  it('two sheets naming one part are refused (CORRUPT_WORKBOOK), nothing written', async () => {
    const { file } = await edited(BASIC, {
      'xl/workbook.xml': replace(
        '<sheet name="Sheet1" sheetId="1" r:id="rId1"/>',
        '<sheet name="Sheet1" sheetId="1" r:id="rId1"/><sheet name="Two" sheetId="2" r:id="rId98"/>',
      ),
      [WB_RELS]: addRelationship('worksheet', 'worksheets/sheet1.xml', 'rId98'),
    });
    const error = await refused(file, [{ op: 'delete_sheet', sheet: 'Two' }]);
    expect(error).toMatchObject({ code: 'CORRUPT_WORKBOOK', details: { part: 'xl/worksheets/sheet1.xml' } });
  });
});

describe('new parts take names no entry has, nor their relationships', () => {
  const chart = {
    op: 'create_chart',
    sheet: 'Project Schedule',
    chart_type: 'column',
    data_range: 'A1:B3',
    anchor_cell: 'H20',
  };

  it.for(['xl/drawings/_rels/drawing1.xml.rels', 'XL/Drawings/_RELS/Drawing1.xml.rels'])(
    'an orphan %s: create_chart writes a new drawing beside it, each entry once',
    async (orphan, ctx) => {
      const { file } = await edited(GANTT, {
        [orphan]: addRelationship('image', '../media/gone.png', 'rId1')(EMPTY_RELS),
      });
      const names = await entries(ctx, await patch(file, [chart]));
      expect(names).toEqual(
        expect.arrayContaining(['xl/drawings/drawing2.xml', 'xl/drawings/_rels/drawing2.xml.rels']),
      );
    },
  );

  it('a workbook at the package root (workbook.xml, worksheets/…): add_sheet writes each entry once', async (ctx) => {
    const fixture = await readParts(await ws.fixture(BASIC, 'root-src.xlsx'));
    const edits: Record<string, PartEdit> = {};
    for (const [name, bytes] of fixture)
      if (name.startsWith('xl/')) {
        edits[name] = null;
        edits[name.slice(3)] = bytes.toString('utf8');
      }
    edits['_rels/.rels'] = replace('Target="xl/workbook.xml"', 'Target="workbook.xml"');
    edits['[Content_Types].xml'] = (xml) => xml.replaceAll('PartName="/xl/', 'PartName="/');
    const { file } = await edited(BASIC, edits);
    // Called past ws.call: openpyxl, which checks every output ws.call saw, looks for xl/ and cannot
    // read this layout (input or output); LibreOffice and Excel can.
    const res = await callTool<{ out_path: string }>(ws.client.client, 'exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'add_sheet', sheet: 'N' }],
    });
    expect(res.isError, res.text).toBeFalsy();
    const names = await entries(ctx, res.structured.out_path);
    expect(names).toEqual(expect.arrayContaining(['worksheets/sheet1.xml', 'worksheets/sheet2.xml']));
  });

  it.for([`Id='rId1'`, 'Id = "rId1"'])(
    'a drawing relationship written %s: the new chart gets another id',
    async (spelling, ctx) => {
      const { file } = await edited(BASIC, { [DRAWING_RELS]: replace('Id="rId1"', spelling) });
      const out = await patch(file, [
        {
          op: 'create_chart',
          sheet: 'Sheet1',
          chart_type: 'column',
          data_range: 'B3:E9',
          anchor_cell: 'H20',
        },
      ]);
      await entries(ctx, out);
      const rels = (await readParts(out)).get(DRAWING_RELS)!.toString('utf8');
      expect([...rels.matchAll(/Id\s*=\s*["']([^"']+)["']/g)].map((m) => m[1])).toEqual(['rId1', 'rId2']);
    },
  );

  it('a table part outside tables/ counts: the new table is not a second Table1 with id 1', async (ctx) => {
    const table = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Table1" displayName="Table1" ref="K1:K2" totalsRowShown="0"><autoFilter ref="K1:K2"/><tableColumns count="1"><tableColumn id="1" name="h"/></tableColumns></table>`;
    const { file } = await edited(BASIC, {
      [SHEET_RELS]: addRelationship('table', '../tbl/t1.xml', 'rId2'),
      'xl/tbl/t1.xml': table,
      'xl/worksheets/sheet1.xml': replace(
        '<drawing r:id="rId1"/>',
        '<drawing r:id="rId1"/><tableParts count="1"><tablePart r:id="rId2"/></tableParts>',
      ),
      '[Content_Types].xml': replace(
        '</Types>',
        '<Override PartName="/xl/tbl/t1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml"/></Types>',
      ),
    });
    const out = await patch(file, [
      { op: 'apply_table_style', sheet: 'Sheet1', range: 'B3:E9', style: 'TableStyleMedium2' },
    ]);
    await entries(ctx, out);
    const added = (await readParts(out)).get('xl/tables/table1.xml')!.toString('utf8');
    expect(/<table\b[^>]*\sid="(\d+)"[^>]*\sname="([^"]+)"/.exec(added)?.slice(1)).toEqual(['2', 'Table2']);
  });

  it('a styles relationship to a missing part before the real one: set_bold edits the real stylesheet', async (ctx) => {
    const { file } = await edited(BASIC, {
      [WB_RELS]: (xml) =>
        addRelationship(
          'styles',
          'styles.xml',
          'rId97',
        )(xml.replace('Target="styles.xml"', 'Target="gone.xml"')),
    });
    const out = await patch(file, [{ op: 'set_bold', sheet: 'Sheet1', range: 'B3' }]);
    expect(await entries(ctx, out)).not.toContain('xl/styles2.xml');
    expect((await readParts(out)).get('xl/styles.xml')!.toString('utf8')).toMatch(/<b\/>/);
  });
});

describe('what cannot be edited is a coded error naming the part, and nothing is written', () => {
  const chart = {
    op: 'create_chart',
    sheet: 'Sheet1',
    chart_type: 'column',
    data_range: 'B3:E9',
    anchor_cell: 'H20',
  };

  it.for([
    [DRAWING_RELS, '<Relationships', chart],
    [DRAWING_RELS, '<x/>', chart],
    [
      SHEET_RELS,
      '<x/>',
      { op: 'apply_table_style', sheet: 'Sheet1', range: 'B3:E9', style: 'TableStyleMedium2' },
    ],
    [WB_RELS, '<x/>', { op: 'add_sheet', sheet: 'N' }],
    ['[Content_Types].xml', '<x/>', { op: 'add_sheet', sheet: 'N' }],
  ] as const)('%s holding %s: CORRUPT_WORKBOOK', async ([part, xml, op]) => {
    const { file } = await edited(BASIC, { [part]: xml });
    const error = await refused(file, [op]);
    expect(error.code).toBe('CORRUPT_WORKBOOK');
    expect(error.message).toContain(part);
  });

  it('a styles relationship naming the workbook part: set_bold is refused naming that part, not "styles.xml"', async () => {
    const { file } = await edited(BASIC, {
      [WB_RELS]: replace('Target="styles.xml"', 'Target="workbook.xml"'),
    });
    const error = await refused(file, [{ op: 'set_bold', sheet: 'Sheet1', range: 'B3' }]);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_FORMAT', details: { part: 'xl/workbook.xml' } });
    expect(error.message).toContain('"xl/workbook.xml", which is not a stylesheet');
  });

  it("a sheet's drawing relationship to a missing part: create_chart is refused rather than give it two drawings", async () => {
    const { file } = await edited(BASIC, {
      [SHEET_RELS]: replace('Target="../drawings/drawing1.xml"', 'Target="../drawings/gone.xml"'),
    });
    const error = await refused(file, [chart]);
    expect(error).toMatchObject({ code: 'CORRUPT_WORKBOOK', details: { part: SHEET_RELS } });
  });
});
