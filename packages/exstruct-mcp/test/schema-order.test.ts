// Would Excel open what the edit tools write without offering to repair it? Every op kind (as
// exstruct_list_ops lists them), alone and in combinations that insert siblings into the same parts, on
// workbooks of other producers, checked with test/ooxml-schema-order.ts: schema order of sequences,
// counts, required attributes, content types, relationships. A problem the input already has is the
// producer's, not ours: only what a patch adds fails.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWithOpenpyxl, xlsxwriterAvailable } from './independent-reader.js';
import { packageProblems, xmlPartProblems } from './ooxml-schema-order.js';
import { buildRichWorkbook, readParts, workspace, type Workspace } from './patch-helpers.js';

type Op = Record<string, unknown>;

let ws: Workspace;
let opNames: string[];
beforeAll(async () => {
  ws = await workspace();
  opNames = (await ws.call<{ ops: { op: string }[] }>('exstruct_list_ops', {})).structured.ops.map(
    (o) => o.op,
  );
});
afterAll(async () => ws.close());

/** A patch's ops for each op kind, on sheet `s`, in an area (H300:M325) no fixture uses. */
function recipes(s: string): Record<string, Op[]> {
  const q = `'${s.replace(/'/g, "''")}'`;
  const data: Op = {
    op: 'set_range_values',
    sheet: s,
    range: 'H300:K305',
    values: [
      ['Item', 'Q1', 'Q2', 'Q3'],
      ...['a', 'b', 'c', 'd', 'e'].map((x, i) => [x, i + 1, i * 2, 7 - i]),
    ],
  };
  return {
    set_value: [{ op: 'set_value', sheet: s, cell: 'H300', value: 'x' }],
    set_formula: [data, { op: 'set_formula', sheet: s, cell: 'I306', formula: '=SUM(I301:I305)' }],
    add_sheet: [{ op: 'add_sheet', sheet: 'Added' }],
    set_range_values: [data],
    fill_formula: [
      data,
      { op: 'fill_formula', sheet: s, range: 'L301:L305', base_cell: 'L301', formula: '=I301*J301' },
    ],
    set_value_if: [
      { op: 'set_value', sheet: s, cell: 'H310', value: 'draft' },
      { op: 'set_value_if', sheet: s, cell: 'H310', expected: 'draft', value: 'final' },
    ],
    set_formula_if: [{ op: 'set_formula_if', sheet: s, cell: 'H311', expected: null, formula: '=H310&"!"' }],
    set_bold: [{ op: 'set_bold', sheet: s, range: 'H300:K300' }],
    set_font_size: [{ op: 'set_font_size', sheet: s, cell: 'H300', font_size: 14 }],
    set_font_color: [{ op: 'set_font_color', sheet: s, range: 'H300:K300', color: '#1F4E79' }],
    set_fill_color: [{ op: 'set_fill_color', sheet: s, range: 'H300:K300', fill_color: '#D9E1F2' }],
    set_alignment: [
      { op: 'set_alignment', sheet: s, range: 'H300:K300', horizontal_align: 'center', wrap_text: true },
    ],
    set_style: [
      { op: 'set_style', sheet: s, range: 'H300:K300', bold: true, color: '#FFFFFF', fill_color: '#1F3864' },
    ],
    draw_grid_border: [{ op: 'draw_grid_border', sheet: s, base_cell: 'H300', row_count: 6, col_count: 4 }],
    set_dimensions: [
      { op: 'set_dimensions', sheet: s, columns: ['H', 'I'], column_width: 18, rows: [300], row_height: 24 },
    ],
    merge_cells: [{ op: 'merge_cells', sheet: s, range: 'H312:K312' }],
    unmerge_cells: [
      { op: 'merge_cells', sheet: s, range: 'H312:K312' },
      { op: 'unmerge_cells', sheet: s, range: 'H312:K312' },
    ],
    rename_sheet: [{ op: 'rename_sheet', sheet: s, new_name: 'Renamed' }],
    delete_sheet: [
      { op: 'add_sheet', sheet: 'Old data' },
      { op: 'delete_sheet', sheet: 'Old data' },
    ],
    auto_fit_columns: [data, { op: 'auto_fit_columns', sheet: s, columns: ['H', 'I'], max_width: 50 }],
    apply_table_style: [
      data,
      {
        op: 'apply_table_style',
        sheet: s,
        range: 'H300:K305',
        style: 'TableStyleMedium2',
        table_name: 'Checked',
      },
    ],
    create_chart: [
      data,
      {
        op: 'create_chart',
        sheet: s,
        chart_type: 'column',
        data_range: 'H300:K305',
        anchor_cell: 'N300',
        title: 'T',
      },
    ],
    delete_chart: [
      data,
      {
        op: 'create_chart',
        sheet: s,
        chart_type: 'line',
        data_range: 'H300:K305',
        anchor_cell: 'N300',
        chart_name: 'Gone',
      },
      { op: 'delete_chart', sheet: s, chart_name: 'Gone' },
    ],
    delete_table: [
      data,
      {
        op: 'apply_table_style',
        sheet: s,
        range: 'H300:K305',
        style: 'TableStyleLight9',
        table_name: 'Gone',
      },
      { op: 'delete_table', sheet: s, table_name: 'Gone' },
    ],
    restore_design_snapshot: [
      data,
      { op: 'set_style', sheet: s, range: 'H300:K300', bold: true, fill_color: '#FFEE00' },
      {
        op: 'restore_design_snapshot',
        sheet: s,
        design_snapshot: {
          cell_styles: [{ cell: 'H300', style_id: 0 }],
          merged_ranges: { scope: 'H312:K313', ranges: ['H312:K312'] },
          row_heights: [{ row: 300, height: 30 }],
          column_widths: [
            { column: 'H', width: null },
            { column: 'J', width: 12 },
          ],
          defined_names: [
            { name: 'CheckedWide', scope: 'workbook', value: `${q}!$H$300:$K$305` },
            { name: 'CheckedLocal', scope: 'sheet', value: `${q}!$H$301` },
          ],
        },
      },
    ],
  };
}

/** Everything at once on one sheet, touching the same parts and elements several times. */
function combination(s: string, round: number): Op[] {
  const r = recipes(s);
  const at = (cell: string) => cell.replace(/\d+/, (n) => String(Number(n) + round * 40));
  const shift = (ops: Op[]) =>
    ops.map((op) =>
      Object.fromEntries(
        Object.entries(op).map(([k, v]) => [
          k,
          ['cell', 'range', 'base_cell', 'data_range', 'anchor_cell'].includes(k) && typeof v === 'string'
            ? v.split(':').map(at).join(':')
            : v,
        ]),
      ),
    );
  return shift([
    ...r.set_range_values!,
    { op: 'merge_cells', sheet: s, range: 'H312:K312' },
    { op: 'set_value', sheet: s, cell: 'H312', value: 'merged' },
    ...r.set_style!,
    ...r.draw_grid_border!,
    {
      op: 'set_dimensions',
      sheet: s,
      columns: ['H', 'M'],
      column_width: 15,
      rows: [300, 312],
      row_height: 20,
    },
    { op: 'create_chart', sheet: s, chart_type: 'column', data_range: 'H300:K305', anchor_cell: 'N300' },
    { op: 'apply_table_style', sheet: s, range: 'H300:K305', style: 'TableStyleMedium2' },
    { op: 'create_chart', sheet: s, chart_type: 'pie', data_range: 'H300:I305', anchor_cell: 'N320' },
    { op: 'set_fill_color', sheet: s, range: 'H312:K312', fill_color: '#D9E1F2' },
    {
      op: 'set_alignment',
      sheet: s,
      range: 'H312:K312',
      horizontal_align: 'center',
      vertical_align: 'center',
    },
    { op: 'set_formula', sheet: s, cell: 'I306', formula: '=SUM(I301:I305)' },
    { op: 'fill_formula', sheet: s, range: 'L301:L305', base_cell: 'L301', formula: '=I301*J301' },
    ...r.set_font_size!,
    { op: 'auto_fit_columns', sheet: s, columns: ['H', 'I', 'J'], max_width: 40 },
    { op: 'merge_cells', sheet: s, range: 'H314:I315' },
    ...r.restore_design_snapshot!.slice(2).map((op) =>
      round
        ? {
            ...op,
            design_snapshot: { defined_names: [{ name: `Round${round}`, scope: 'workbook', value: '1' }] },
          }
        : op,
    ),
  ]);
}

const CHART_TYPES = ['line', 'column', 'bar', 'area', 'pie', 'doughnut', 'scatter', 'radar'];

const firstSheetXml = (parts: Map<string, Buffer>) =>
  parts
    .get('xl/workbook.xml')!
    .toString('utf8')
    .replace(/<(?:\w+:)?definedNames[\s\S]*$/, '');

/** The first sheet's name, from workbook.xml. */
function firstSheet(parts: Map<string, Buffer>): string {
  const m = /<(?:\w+:)?sheet\b[^>]*?\bname="([^"]*)"/.exec(parts.get('xl/workbook.xml')!.toString('utf8'))!;
  return m[1]!
    .replace(/&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const XLSXWRITER_BOOK = `
import sys, xlsxwriter
wb = xlsxwriter.Workbook(sys.argv[1])
ws = wb.add_worksheet("Data")
ws.write_row(0, 0, ["Item", "A", "B"])
for i in range(5):
    ws.write_row(i + 1, 0, ["r%d" % i, i, i * i])
ws.write_formula("B7", "=SUM(B2:B6)", None, 10)
ws.merge_range("E1:G1", "merged", wb.add_format({"bold": True, "bg_color": "#FFFF00"}))
ws.add_table("A10:C13", {"columns": [{"header": "X"}, {"header": "Y"}, {"header": "Z"}]})
ws.write_url("E3", "https://example.com", string="link")
ws.conditional_format("B2:B6", {"type": "cell", "criteria": ">", "value": 2, "format": wb.add_format({"font_color": "red"})})
ws.data_validation("C2:C6", {"validate": "integer", "criteria": ">", "value": 0})
ch = wb.add_chart({"type": "column"})
ch.add_series({"categories": "=Data!$A$2:$A$6", "values": "=Data!$B$2:$B$6"})
ws.insert_chart("E5", ch)
ws.set_column("A:A", 14)
wb.define_name("Things", "=Data!$A$2:$A$6")
wb.add_worksheet("Other").write("A1", 1)
wb.close()
`;

/** The input workbooks: other producers' and the package's fixtures. */
async function inputs(): Promise<string[]> {
  const files: string[] = [];
  for (const name of [
    'producers/openpyxl.xlsx',
    'producers/libreoffice.xlsx',
    'basic__sample.xlsx',
    'formula__formula.xlsx',
    'gantt_chart__en__sample.xlsx',
    'flowchart__sample-shape-connector.xlsx',
    'smartart__sample_smartart.xlsx',
    'en_form_sf425__sample.xlsx',
    'ja_general_form__ja_form.xlsx',
    'assets__multiple_print_ranges_4sheets.xlsx',
  ])
    files.push(await ws.fixture(name, path.basename(name)));
  const rich = path.join(ws.dir, 'exceljs-rich.xlsx');
  await buildRichWorkbook(rich);
  files.push(rich);
  if (await xlsxwriterAvailable()) {
    const file = path.join(ws.dir, 'xlsxwriter.xlsx');
    if ((await runWithOpenpyxl(XLSXWRITER_BOOK, [file])) !== undefined) files.push(file);
  }
  return files;
}

let serial = 0;

/** Patches `input` and returns the problems the output has that the input has not. */
async function introduced(input: string, ops: Op[], label: string): Promise<string[]> {
  const out = `${label.replace(/[^\w-]+/g, '_')}-${++serial}.xlsx`;
  const res = await ws.call<{ out_path: string }>('exstruct_patch', {
    xlsx_path: input,
    ops,
    out_name: out,
    on_conflict: 'overwrite',
  });
  if (res.isError) return [`${label}: patch failed: ${res.text}`];
  const before = new Set(packageProblems(await readParts(input)));
  return packageProblems(await readParts(res.structured.out_path))
    .filter((p) => !before.has(p))
    .map((p) => `${label}: ${p}`);
}

describe('what exstruct writes follows the OOXML schema (order, counts, parts)', () => {
  it('the checker itself finds order, count, content-type and relationship problems', () => {
    const sheet = (body: string) =>
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">${body}</worksheet>`;
    expect(
      xmlPartProblems(
        's.xml',
        sheet('<sheetData/><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>'),
      ),
    ).toEqual([]);
    expect(
      xmlPartProblems(
        's.xml',
        sheet(
          '<sheetData/><drawing r:id="rId1"/><mergeCells count="2"><mergeCell ref="A1:B1"/></mergeCells>',
        ),
      ),
    ).toEqual([
      's.xml: /worksheet: <mergeCells> after <drawing> (schema order)',
      's.xml: /worksheet/mergeCells: count="2" but 1 children',
    ]);
    expect(
      xmlPartProblems(
        's.xml',
        sheet('<sheetData><row r="1"><c r="A1"><v>1</v><f>1</f></c></row></sheetData>'),
      ),
    ).toEqual(['s.xml: /worksheet/sheetData/row/c: <f> after <v> (schema order)']);
    const parts = new Map<string, Buffer>([
      [
        '[Content_Types].xml',
        Buffer.from(
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="x"/><Override PartName="/xl/gone.xml" ContentType="x"/></Types>',
        ),
      ],
      [
        '_rels/.rels',
        Buffer.from(
          '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="t" Target="xl/workbook.xml"/><Relationship Id="rId2" Type="t" Target="https://x" TargetMode="External"/></Relationships>',
        ),
      ],
    ]);
    const chart = xmlPartProblems(
      'chart1.xml',
      '<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart><c:plotArea><c:layout/><c:valAx/><c:barChart/></c:plotArea></c:chart></c:chartSpace>',
    );
    expect(chart).toEqual([
      'chart1.xml: /chartSpace/chart/plotArea: <barChart> after <valAx> (schema order)',
    ]);
    expect(packageProblems(parts)).toEqual([
      '[Content_Types].xml: Override for missing part /xl/gone.xml',
      '_rels/.rels: rId1 targets missing part xl/workbook.xml',
    ]);
  });

  it('column widths on a sheet without rows (<sheetData/>) go after <sheetFormatPr>, not before it', async () => {
    // The head of such a sheet stops before <sheetData/>; <cols> was put before its last tag.
    const input = await ws.fixture('smartart__sample_smartart.xlsx', 'no-rows.xlsx');
    const res = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'set_dimensions', sheet: 'Sheet1', columns: ['B'], column_width: 20 }],
    });
    expect(res.isError, res.text).toBe(false);
    const sheet = (await readParts(res.structured.out_path))
      .get('xl/worksheets/sheet1.xml')!
      .toString('utf8');
    expect(sheet).toContain('<sheetFormatPr defaultRowHeight="18"/><cols><col min="2" max="2" width="20"');
    expect(xmlPartProblems('sheet1.xml', sheet)).toEqual([]);
  });

  it('every op kind, alone and combined twice on one sheet, on workbooks of other producers', async () => {
    const files = await inputs();
    expect(files.length).toBeGreaterThanOrEqual(11);
    const problems: string[] = [];
    for (const input of files) {
      const base = path.basename(input, '.xlsx');
      const s = firstSheet(await readParts(input));
      const r = recipes(s);
      // Every op the catalogue lists has a recipe here: a new op is checked too, or this fails.
      expect(Object.keys(r).sort()).toEqual([...opNames].sort());
      for (const [op, ops] of Object.entries(r))
        problems.push(...(await introduced(input, ops, `${base} ${op}`)));
      // Deleting the first sheet moves every later sheet's index (localSheetId of print areas, names).
      const sheetCount = (firstSheetXml(await readParts(input)).match(/<(?:\w+:)?sheet\b/g) ?? []).length;
      if (sheetCount > 1)
        problems.push(
          ...(await introduced(input, [{ op: 'delete_sheet', sheet: s }], `${base} delete first sheet`)),
        );
      const once = `${base}-combined.xlsx`;
      const first = await ws.call<{ out_path: string }>('exstruct_patch', {
        xlsx_path: input,
        ops: combination(s, 0),
        out_name: once,
        on_conflict: 'overwrite',
      });
      expect(first.isError, first.text).toBe(false);
      problems.push(...(await introduced(input, combination(s, 0), `${base} combined`)));
      // A second round on the first's output: new anchors in an existing drawing, a second table part,
      // more merges, styles and names, and deletes of what the first round made.
      problems.push(
        ...(await introduced(
          first.structured.out_path,
          [
            ...combination(s, 1),
            { op: 'delete_chart', sheet: s, chart_name: 'Chart 1' },
            { op: 'delete_table', sheet: s, table_name: 'Table1' },
            { op: 'unmerge_cells', sheet: s, range: 'H314:I315' },
          ],
          `${base} combined twice`,
        )),
      );
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it('every chart type, and charts and tables on sheets that already have them (XlsxWriter)', async (ctx) => {
    if (!(await xlsxwriterAvailable()))
      ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
    const file = path.join(ws.dir, 'xlsxwriter-charts.xlsx');
    await runWithOpenpyxl(XLSXWRITER_BOOK, [file]);
    const data = recipes('Data').set_range_values!;
    const charts = CHART_TYPES.map((chart_type, i) => ({
      op: 'create_chart',
      sheet: 'Data',
      chart_type,
      data_range: 'H300:K305',
      anchor_cell: `N${300 + i * 20}`,
      title: chart_type,
      x_axis_title: 'x',
      y_axis_title: 'y',
    }));
    const problems = [
      ...(await introduced(file, [...data, ...charts], 'every chart type')),
      ...(await introduced(
        file,
        [
          ...data,
          { op: 'delete_chart', sheet: 'Data', chart_name: 'Chart 1' },
          { op: 'delete_table', sheet: 'Data', table_name: 'Table1' },
          { op: 'apply_table_style', sheet: 'Data', range: 'H300:K305', style: 'TableStyleDark1' },
          { op: 'delete_sheet', sheet: 'Other' },
        ],
        "deletes of the producer's objects",
      )),
    ];
    expect(problems).toEqual([]);
  }, 60_000);

  it('exstruct_make writes a package that follows the schema', async () => {
    const problems: string[] = [];
    const made = await ws.call<{ out_path: string }>('exstruct_make', {
      out_path: 'made.xlsx',
      sheet: 'Sheet1',
      ops: combination('Sheet1', 0),
    });
    expect(made.isError, made.text).toBe(false);
    problems.push(...packageProblems(await readParts(made.structured.out_path)).map((p) => `make: ${p}`));
    const empty = await ws.call<{ out_path: string }>('exstruct_make', {
      out_path: 'empty.xlsx',
      sheet: 'Input',
    });
    expect(empty.isError, empty.text).toBe(false);
    problems.push(
      ...packageProblems(await readParts(empty.structured.out_path)).map((p) => `make empty: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('the untouched inputs (Excel, LibreOffice, openpyxl, XlsxWriter, exceljs files) pass the checker', async () => {
    // No false alarms on what real producers write (and so none that the comparison above hides).
    const own: Record<string, string[]> = {};
    for (const file of await inputs()) own[path.basename(file)] = packageProblems(await readParts(file));
    expect(Object.values(own).flat()).toEqual([]);
    expect(Object.keys(own).length).toBeGreaterThanOrEqual(11);
  });
});
