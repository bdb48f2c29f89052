// Dynamic-array formulas (UNIQUE, FILTER, SORT, XLOOKUP, …) are written as Excel and XlsxWriter write
// them: `<c cm="N"><f t="array" ref="B1">` plus the XLDAPR block of xl/metadata.xml. A plain `<f>`
// opens in Excel as `=@UNIQUE(…)` with one value instead of the spilled array (ClosedXML #2616).
// XlsxWriter (Debian's python3-xlsxwriter) is the reference; openpyxl makes and reads the workbooks.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { parseTree, walk } from '../src/patch/xml.js';
import { zipBytes } from './extract-helpers.js';
import { runWithOpenpyxl, xlsxwriterAvailable } from './independent-reader.js';
import { convertWithLibreOffice, libreOfficeAvailable } from './libreoffice.js';
import { readParts, workspace, type Workspace } from './patch-helpers.js';

interface Out {
  out_path: string;
  inverse_ops: Record<string, unknown>[];
  formula_issues: unknown[];
  error: unknown;
}

const VALUES = [3, 1, 4, 1, 5, 9, 2, 6, 5];

const OPENPYXL_BOOK = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "S"
for i, v in enumerate(${JSON.stringify(VALUES)}, 1):
    ws.cell(i, 1, v)
wb.save(sys.argv[1])
`;

/** XlsxWriter's own output: argv[2:] are cell, formula pairs written with write_formula. */
const XLSXWRITER_BOOK = `
import sys, xlsxwriter
wb = xlsxwriter.Workbook(sys.argv[1])
ws = wb.add_worksheet("S")
for i, v in enumerate(${JSON.stringify(VALUES)}):
    ws.write(i, 0, v)
for cell, formula in zip(sys.argv[2::2], sys.argv[3::2]):
    ws.write_formula(cell, formula)
wb.close()
`;

/** Each argv cell's formula text as openpyxl loads it (3.0 gives the text, 3.1 an ArrayFormula). */
const OPENPYXL_FORMULAS = `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["S"]
print(json.dumps({c: getattr(ws[c].value, "text", ws[c].value) for c in sys.argv[2:]}))
`;

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

/** Runs a producer script writing `file`; skips the test when Debian's python libraries are missing. */
async function python(ctx: TestContext, script: string, args: string[]): Promise<string> {
  const out = await runWithOpenpyxl(script, args);
  if (out === undefined) ctx.skip('openpyxl is not installed (apt-get install -y python3-openpyxl)');
  return out;
}

async function openpyxlBook(ctx: TestContext, name: string): Promise<string> {
  const file = path.join(ws.dir, name);
  await python(ctx, OPENPYXL_BOOK, [file]);
  return file;
}

async function xlsxwriterBook(ctx: TestContext, name: string, formulas: [string, string][]): Promise<string> {
  if (!(await xlsxwriterAvailable()))
    ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
  const file = path.join(ws.dir, name);
  await python(ctx, XLSXWRITER_BOOK, [file, ...formulas.flat()]);
  return file;
}

async function patch(file: string, ops: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const res = await ws.call<Out>('exstruct_patch', { xlsx_path: file, ops, ...extra });
  expect(res.isError, res.text).toBe(false);
  expect(res.structured.error).toBeNull();
  return res.structured;
}

interface Package {
  parts: Map<string, Buffer>;
  text(part: string): string;
}

async function open(file: string): Promise<Package> {
  const parts = await readParts(file);
  return { parts, text: (part) => parts.get(part)?.toString('utf8') ?? '' };
}

/** A cell of the first sheet as written: its attributes and its `<f>` (attributes and text). */
function cellOf(pkg: Package, ref: string) {
  const c = [...walk(parseTree(pkg.text('xl/worksheets/sheet1.xml')))].find(
    (n) => n.local === 'c' && n.attrs.get('r') === ref,
  );
  if (!c) throw new Error(`no cell ${ref}`);
  const f = c.children.find((n) => n.local === 'f');
  const xml = pkg.text('xl/worksheets/sheet1.xml');
  return {
    attrs: Object.fromEntries(c.attrs),
    f: f && { attrs: Object.fromEntries(f.attrs), text: xml.slice(f.openEnd, f.closeStart) },
  };
}

/** The metadata part found as a reader finds it: the workbook's sheetMetadata relationships, its override. */
function metadataOf(pkg: Package) {
  const rels = [...walk(parseTree(pkg.text('xl/_rels/workbook.xml.rels')))].filter((n) =>
    n.attrs.get('Type')?.endsWith('/relationships/sheetMetadata'),
  );
  const parts = rels.map((r) => `xl/${r.attrs.get('Target')!.replace(/^\/?xl\//, '')}`);
  const overrides = [...walk(parseTree(pkg.text('[Content_Types].xml')))].filter((n) =>
    n.attrs.get('ContentType')?.endsWith('.sheetMetadata+xml'),
  );
  const entries = [...pkg.parts.keys()].filter(
    (name) => /metadata\d*\.xml$/i.test(name) && name.startsWith('xl/'),
  );
  return {
    rels: rels.length,
    parts,
    overrides: overrides.map((o) => o.attrs.get('PartName')),
    entries,
    xml: parts[0] === undefined ? undefined : pkg.text(parts[0]),
  };
}

/** The elements and attributes of a part, namespace declarations left out. */
function shape(xml: string): string[] {
  return [...walk(parseTree(xml))].map((n) =>
    [
      n.local,
      ...[...n.attrs]
        .filter(([key]) => key !== 'xmlns' && !key.startsWith('xmlns:'))
        .map(([key, value]) => `${key}=${value}`),
    ].join(' '),
  );
}

/** The cm of the cell-metadata block that points at XLDAPR's dynamic (not collapsed) block. */
function dynamicIndex(xml: string): number {
  const root = parseTree(xml).find((n) => n.local === 'metadata')!;
  const types = root.children.find((n) => n.local === 'metadataTypes')!.children;
  const t = types.findIndex((n) => n.attrs.get('name') === 'XLDAPR') + 1;
  const future = root.children.find((n) => n.local === 'futureMetadata' && n.attrs.get('name') === 'XLDAPR')!;
  const v = future.children.findIndex((bk) =>
    [...walk([bk])].some((n) => n.local === 'dynamicArrayProperties' && n.attrs.get('fDynamic') === '1'),
  );
  const cells = root.children.find((n) => n.local === 'cellMetadata')!.children;
  return (
    cells.findIndex((bk) => {
      const rc = bk.children.find((n) => n.local === 'rc');
      return rc?.attrs.get('t') === String(t) && rc.attrs.get('v') === String(v);
    }) + 1
  );
}

describe('dynamic-array formulas are written as Excel writes them', () => {
  it('set_formula on an openpyxl workbook: cm, t="array" ref=cell and a metadata part, as XlsxWriter writes them', async (ctx) => {
    const src = await openpyxlBook(ctx, 'src.xlsx');
    const formulas: [string, string][] = [
      ['B1', '=UNIQUE(A1:A9)'],
      ['C1', '=SORT(FILTER(A1:A9,A1:A9>2))'],
    ];
    const out = await patch(src, [
      ...formulas.map(([cell, formula]) => ({ op: 'set_formula', sheet: 'S', cell, formula })),
      { op: 'set_formula', sheet: 'S', cell: 'D1', formula: '=SUM(A1:A9)' },
    ]);
    const ours = await open(out.out_path);
    const theirs = await open(await xlsxwriterBook(ctx, 'xw.xlsx', formulas));

    const meta = metadataOf(ours);
    expect(meta).toMatchObject({ rels: 1, parts: ['xl/metadata.xml'], overrides: ['/xl/metadata.xml'] });
    expect(meta.entries).toEqual(['xl/metadata.xml']);
    const reference = metadataOf(theirs);
    expect(shape(meta.xml!)).toEqual(shape(reference.xml!));
    const cm = dynamicIndex(meta.xml!);
    expect(cm).toBe(1);
    for (const [cell] of formulas) {
      const mine = cellOf(ours, cell);
      const ref = cellOf(theirs, cell);
      expect(mine.attrs.cm).toBe(String(cm));
      expect(mine.attrs.cm).toBe(ref.attrs.cm);
      expect(mine.f!.attrs).toEqual({ t: 'array', ref: cell });
      expect(mine.f!.attrs).toEqual(ref.f!.attrs);
      expect(mine.f!.text).toBe(ref.f!.text);
    }
    expect(cellOf(ours, 'B1').f!.text).toBe('_xlfn.UNIQUE(A1:A9)');
    expect(cellOf(ours, 'C1').f!.text).toBe('_xlfn._xlws.SORT(_xlfn._xlws.FILTER(A1:A9,A1:A9&gt;2))');
    // Not dynamic: the plain <f> of before, no cm.
    expect(ours.text('xl/worksheets/sheet1.xml')).toContain('<c r="D1"><f>SUM(A1:A9)</f></c>');

    // openpyxl still loads it and reads the formulas.
    const read = JSON.parse(await python(ctx, OPENPYXL_FORMULAS, [out.out_path, 'B1', 'C1', 'D1']));
    expect(read).toEqual({
      B1: '=_xlfn.UNIQUE(A1:A9)',
      C1: '=_xlfn._xlws.SORT(_xlfn._xlws.FILTER(A1:A9,A1:A9>2))',
      D1: '=SUM(A1:A9)',
    });
    // Extraction reads the formula text (no implicit-intersection `@`) and the values as before.
    const { workbook } = await extractWorkbook(out.out_path, { mode: 'verbose' });
    const sheet = workbook.sheets['S']!;
    expect(Object.keys(sheet.formulas_map ?? {}).sort()).toEqual([
      '=SUM(A1:A9)',
      '=_xlfn.UNIQUE(A1:A9)',
      '=_xlfn._xlws.SORT(_xlfn._xlws.FILTER(A1:A9,A1:A9>2))',
    ]);
    expect(sheet.rows?.map((r) => r.c['0'])).toEqual(VALUES);

    // A non-dynamic formula alone adds no metadata part and leaves the package's wiring as it was.
    const plain = await open(
      (
        await patch(src, [{ op: 'set_formula', sheet: 'S', cell: 'D1', formula: '=SUM(A1:A9)' }], {
          out_name: 'plain.xlsx',
        })
      ).out_path,
    );
    const source = await open(src);
    expect(metadataOf(plain).entries).toEqual([]);
    expect(plain.text('[Content_Types].xml')).toBe(source.text('[Content_Types].xml'));
    expect(plain.text('xl/_rels/workbook.xml.rels')).toBe(source.text('xl/_rels/workbook.xml.rels'));
    expect(cellOf(plain, 'D1')).toEqual({ attrs: { r: 'D1' }, f: { attrs: {}, text: 'SUM(A1:A9)' } });

    // LibreOffice opens the patched workbook (converting it succeeds).
    if (await libreOfficeAvailable()) {
      const converted = await convertWithLibreOffice([out.out_path], 'xlsx');
      expect(converted.get(out.out_path)).toBeDefined();
    }
  });

  it('knows the newer spilling functions, and not a name inside a text or a name of the user', async (ctx) => {
    const src = await openpyxlBook(ctx, 'src.xlsx');
    const written: [string, string, boolean][] = [
      ['B1', '=VSTACK(A1:A2,A3:A4)', true],
      ['C1', '=TAKE(SORT(A1:A9),3)', true],
      ['D1', '=TEXTSPLIT("a,b",",")', true],
      ['E1', '=CONCAT("SORT(",A1,")")', false],
      ['F1', '=MY_SORT(A1:A9)', false],
    ];
    const out = await patch(
      src,
      written.map(([cell, formula]) => ({ op: 'set_formula', sheet: 'S', cell, formula })),
    );
    const ours = await open(out.out_path);
    for (const [cell, formula, dynamic] of written) {
      const { attrs, f } = cellOf(ours, cell);
      expect({ formula, cm: attrs.cm, t: f!.attrs.t }).toEqual(
        dynamic ? { formula, cm: '1', t: 'array' } : { formula, cm: undefined, t: undefined },
      );
    }
  });

  it('reuses the XLDAPR block of a metadata part XlsxWriter wrote, and extends one without it', async (ctx) => {
    const src = await xlsxwriterBook(ctx, 'xw.xlsx', [['B1', '=UNIQUE(A1:A9)']]);
    const before = metadataOf(await open(src));
    const out = await patch(src, [{ op: 'set_formula', sheet: 'S', cell: 'C1', formula: '=SEQUENCE(3)' }]);
    const pkg = await open(out.out_path);
    const meta = metadataOf(pkg);
    expect(meta).toMatchObject({ rels: 1, overrides: ['/xl/metadata.xml'], entries: ['xl/metadata.xml'] });
    expect(meta.xml).toBe(before.xml);
    expect(cellOf(pkg, 'C1')).toMatchObject({ attrs: { cm: '1' }, f: { attrs: { t: 'array', ref: 'C1' } } });
    expect(cellOf(pkg, 'B1').attrs.cm).toBe('1');

    // A metadata part with only rich-value metadata (pictures in cells): XLDAPR goes after what is there.
    const parts = await readParts(await openpyxlBook(ctx, 'rich-src.xlsx'));
    const richXml =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<metadata xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:xlrd="http://schemas.microsoft.com/office/spreadsheetml/2017/richdata">' +
      '<metadataTypes count="1"><metadataType name="XLRICHVALUE" minSupportedVersion="120000" copy="1" pasteAll="1" pasteValues="1" merge="1" splitFirst="1" rowColShift="1" clearFormats="1" clearComments="1" assign="1" coerce="1"/></metadataTypes>' +
      '<futureMetadata name="XLRICHVALUE" count="1"><bk><extLst><ext uri="{3e2802c4-a4d2-4d8b-9148-e3be6c30e623}"><xlrd:rvb i="0"/></ext></extLst></bk></futureMetadata>' +
      '<valueMetadata count="1"><bk><rc t="1" v="0"/></bk></valueMetadata></metadata>';
    parts.set('xl/extra/cellmeta.xml', Buffer.from(richXml));
    const edit = (part: string, from: string, to: string) =>
      parts.set(part, Buffer.from(parts.get(part)!.toString('utf8').replace(from, to)));
    edit(
      '[Content_Types].xml',
      '</Types>',
      '<Override PartName="/xl/extra/cellmeta.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheetMetadata+xml"/></Types>',
    );
    edit(
      'xl/_rels/workbook.xml.rels',
      '</Relationships>',
      '<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sheetMetadata" Target="extra/cellmeta.xml"/></Relationships>',
    );
    const rich = path.join(ws.dir, 'rich.xlsx');
    await writeFile(rich, zipBytes(Object.fromEntries(parts)));
    const extended = await open(
      (await patch(rich, [{ op: 'set_formula', sheet: 'S', cell: 'B1', formula: '=UNIQUE(A1:A9)' }]))
        .out_path,
    );
    const xml = extended.text('xl/extra/cellmeta.xml');
    expect(metadataOf(extended)).toMatchObject({ rels: 1, parts: ['xl/extra/cellmeta.xml'], entries: [] });
    expect(shape(xml)).toEqual([
      'metadata',
      'metadataTypes count=2',
      ...shape(richXml).slice(2, 3),
      'metadataType name=XLDAPR minSupportedVersion=120000 copy=1 pasteAll=1 pasteValues=1 merge=1 splitFirst=1 rowColShift=1 clearFormats=1 clearComments=1 assign=1 coerce=1 cellMeta=1',
      ...shape(richXml).slice(3, 8),
      'futureMetadata name=XLDAPR count=1',
      'bk',
      'extLst',
      'ext uri={bdbb8cdc-fa1e-496e-a857-3c3f30c029c3}',
      'dynamicArrayProperties fDynamic=1 fCollapsed=0',
      'cellMetadata count=1',
      'bk',
      'rc t=2 v=0',
      ...shape(richXml).slice(8),
    ]);
    expect(dynamicIndex(xml)).toBe(1);
    expect(cellOf(extended, 'B1').attrs.cm).toBe('1');
  });

  it('a value or a plain formula over a dynamic cell drops cm and t="array"; undo brings them back', async (ctx) => {
    const src = await xlsxwriterBook(ctx, 'xw.xlsx', [['C1', '=UNIQUE(A1:A9)']]);
    const dynamic = await patch(src, [
      { op: 'set_formula', sheet: 'S', cell: 'B1', formula: '=UNIQUE(A1:A9)' },
    ]);
    expect(cellOf(await open(dynamic.out_path), 'B1').attrs.cm).toBe('1');
    const over = await patch(
      dynamic.out_path,
      [
        { op: 'set_value', sheet: 'S', cell: 'B1', value: 5 },
        { op: 'set_formula', sheet: 'S', cell: 'C1', formula: '=SUM(A1:A9)' },
      ],
      { return_inverse_ops: true, out_name: 'over.xlsx' },
    );
    const pkg = await open(over.out_path);
    expect(cellOf(pkg, 'B1')).toEqual({ attrs: { r: 'B1' }, f: undefined });
    expect(cellOf(pkg, 'C1')).toEqual({ attrs: { r: 'C1' }, f: { attrs: {}, text: 'SUM(A1:A9)' } });
    const undone = await patch(over.out_path, over.inverse_ops, { out_name: 'undone.xlsx' });
    const back = await open(undone.out_path);
    for (const cell of ['B1', 'C1'])
      expect(cellOf(back, cell)).toMatchObject({
        attrs: { cm: '1' },
        f: { attrs: { t: 'array', ref: cell } },
      });
    expect(metadataOf(back).entries).toEqual(['xl/metadata.xml']);
  });

  it('exstruct_make writes them too (set_formula, fill_formula, auto_formula values), with a new metadata part', async () => {
    const res = await ws.call<Out>('exstruct_make', {
      out_path: 'made.xlsx',
      ops: [
        { op: 'set_range_values', sheet: 'Sheet1', range: 'A1:A3', values: [[2], [1], [2]] },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'B1', formula: '=SORT(A1:A3)' },
        {
          op: 'fill_formula',
          sheet: 'Sheet1',
          range: 'C1:C2',
          base_cell: 'C1',
          formula: '=XLOOKUP(A1,A1:A3,A1:A3)',
        },
        { op: 'set_value', sheet: 'Sheet1', cell: 'D1', value: '=UNIQUE(A1:A3)' },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'E1', formula: '=COUNT(A1:A3)' },
      ],
      auto_formula: true,
      preflight_formula_check: true,
    });
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.formula_issues).toEqual([]);
    const pkg = await open(res.structured.out_path);
    const meta = metadataOf(pkg);
    expect(meta).toMatchObject({ rels: 1, parts: ['xl/metadata.xml'], overrides: ['/xl/metadata.xml'] });
    expect(dynamicIndex(meta.xml!)).toBe(1);
    for (const cell of ['B1', 'C1', 'C2', 'D1'])
      expect(cellOf(pkg, cell)).toMatchObject({
        attrs: { cm: '1' },
        f: { attrs: { t: 'array', ref: cell } },
      });
    expect(cellOf(pkg, 'C2').f!.text).toBe('_xlfn.XLOOKUP(A2,A2:A4,A2:A4)');
    expect(cellOf(pkg, 'E1')).toEqual({ attrs: { r: 'E1' }, f: { attrs: {}, text: 'COUNT(A1:A3)' } });
  });
});
