// Do the charts create_chart writes open in Excel without a repair prompt? Each chart type and option
// is written by XlsxWriter (whose charts Excel opens) and by exstruct, on the same data, and both go
// through the chart checks of test/ooxml-schema-order.ts (required elements, axis ids, series idx and
// order, c:f references and caches, chart frames, content types). Then the elements Excel requires that
// XlsxWriter writes for a type must be in exstruct's chart of that type too.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipBytes } from './extract-helpers.js';
import { runWithOpenpyxl, xlsxwriterAvailable } from './independent-reader.js';
import { packageProblems } from './ooxml-schema-order.js';
import { readParts, workspace, type Workspace } from './patch-helpers.js';

const TYPES = ['line', 'column', 'bar', 'area', 'pie', 'doughnut', 'scatter', 'radar'];

// "My Sheet" holds data, a chart and an image; "Ref" XlsxWriter's chart of every type over that data;
// "データ" Japanese data; "RC" and "C1x" (names an R1C1 reader takes for references) data only;
// "Plain" nothing.
const XLSXWRITER_CHARTS = `
import sys, base64, io, xlsxwriter
wb = xlsxwriter.Workbook(sys.argv[1])
ws = wb.add_worksheet("My Sheet")
ref = wb.add_worksheet("Ref")
for sheet in (ws, wb.add_worksheet("データ"), wb.add_worksheet("RC"), wb.add_worksheet("C1x")):
    sheet.write_row(0, 0, ["Item", "Q1", "Q2", "Q3"])
    for i, x in enumerate("abcde"):
        sheet.write_row(i + 1, 0, [x, i + 1, i * 2, 7 - i])
wb.add_worksheet("Plain")
png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
ws.insert_image("F1", "dot.png", {"image_data": io.BytesIO(png)})
ch = wb.add_chart({"type": "column"})
ch.add_series({"categories": "='My Sheet'!$A$2:$A$6", "values": "='My Sheet'!$B$2:$B$6"})
ws.insert_chart("F5", ch)
for n, t in enumerate(${JSON.stringify(TYPES)}):
    ch = wb.add_chart({"type": t})
    for c in range(1, 4):
        ch.add_series({"name": ["My Sheet", 0, c], "categories": ["My Sheet", 1, 0, 5, 0],
                       "values": ["My Sheet", 1, c, 5, c]})
    ch.set_title({"name": t})
    if t not in ("pie", "doughnut"):
        ch.set_x_axis({"name": "x"})
        ch.set_y_axis({"name": "y"})
    ref.insert_chart(n * 20, 0, ch)
wb.close()
`;

/** Data on the sheet "Data" for the charts of a made workbook. */
const SMALL_TABLE = {
  op: 'set_range_values',
  sheet: 'Data',
  range: 'A1:B3',
  values: [
    ['k', 'v'],
    ['x', 1],
    ['y', 2],
  ],
};

let ws: Workspace;
let input: string | undefined;
beforeAll(async () => {
  ws = await workspace();
  if (!(await xlsxwriterAvailable())) return;
  input = path.join(ws.dir, 'xlsxwriter-charts.xlsx');
  if ((await runWithOpenpyxl(XLSXWRITER_CHARTS, [input])) === undefined) input = undefined;
});
afterAll(async () => ws.close());

interface Node {
  name: string;
  children: Node[];
}

/** A light tree of an XML part's element names (prefixes dropped). */
function tree(xml: string): Node {
  const root: Node = { name: '', children: [] };
  const stack = [root];
  for (const m of xml.matchAll(/<(\/?)(?:\w+:)?(\w+)[^>]*?(\/?)>/g)) {
    if (m[0].startsWith('<?')) continue;
    if (m[1]) stack.pop();
    else {
      const node = { name: m[2]!, children: [] };
      stack[stack.length - 1]!.children.push(node);
      if (!m[3]) stack.push(node);
    }
  }
  return root;
}

/** Elements dml-chart.xsd requires (minOccurs=1) where their parent is present, and what they need. */
const REQUIRED = new Set(
  `chart plotArea barDir scatterStyle radarStyle ser idx order axId scaling orientation axPos crossAx
  f tx rich bodyPr p val yVal`.split(/\s+/),
);

/** The paths (from plotArea, series and axes collapsed by name) of the required elements of a chart. */
function requiredPaths(xml: string): Set<string> {
  const out = new Set<string>();
  const walk = (node: Node, at: string) => {
    for (const c of node.children) {
      const here = `${at}/${c.name}`;
      if (REQUIRED.has(c.name)) out.add(here);
      walk(c, here);
    }
  };
  walk(tree(xml), '');
  return out;
}

/** All element paths of a chart, for listing what XlsxWriter writes and exstruct does not. */
function allPaths(xml: string): Set<string> {
  const out = new Set<string>();
  const walk = (node: Node, at: string) => {
    for (const c of node.children) {
      out.add(`${at}/${c.name}`);
      walk(c, `${at}/${c.name}`);
    }
  };
  walk(tree(xml), '');
  return out;
}

/** The chart parts of a sheet's drawing, in frame order, with the frame's name. */
function chartsOf(parts: Map<string, Buffer>, drawing: string): { name: string; xml: string }[] {
  const text = (p: string) => parts.get(p)!.toString('utf8');
  const rels = text(drawing.replace(/([^/]*)$/, '_rels/$1.rels'));
  return text(drawing)
    .split(/<\/xdr:(?:twoCellAnchor|oneCellAnchor)>/)
    .map((anchor) => /<xdr:cNvPr id="\d+" name="([^"]*)"[\s\S]*<c:chart [^>]*r:id="(\w+)"/.exec(anchor))
    .filter((m) => m !== null)
    .map((m) => {
      const target = new RegExp(`Id="${m[2]}"[^>]*Target="\\.\\./charts/([^"]+)"`).exec(rels)!;
      return { name: m[1]!, xml: text(`xl/charts/${target[1]}`) };
    });
}

/** The drawing part of a sheet (by its index in workbook.xml, XlsxWriter's sheetN numbering). */
function drawingsOf(parts: Map<string, Buffer>, sheetIndex: number): string[] {
  const rels = parts.get(`xl/worksheets/_rels/sheet${sheetIndex}.xml.rels`)?.toString('utf8') ?? '';
  return [...rels.matchAll(/Type="[^"]*\/drawing" Target="\.\.\/drawings\/([^"]+)"/g)].map(
    (m) => `xl/drawings/${m[1]}`,
  );
}

async function patch(ops: Record<string, unknown>[], out: string): Promise<Map<string, Buffer>> {
  const res = await ws.call<{ out_path: string }>('exstruct_patch', {
    xlsx_path: input,
    ops,
    out_name: out,
    on_conflict: 'overwrite',
  });
  expect(res.isError, res.text).toBe(false);
  return readParts(res.structured.out_path);
}

describe('create_chart writes charts Excel opens (compared with XlsxWriter)', () => {
  it("XlsxWriter's charts of every type pass the chart checks (no false alarms)", async (ctx) => {
    if (!input) return ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
    const parts = await readParts(input);
    expect(packageProblems(parts)).toEqual([]);
    expect(drawingsOf(parts, 2).length).toBe(1);
    expect(chartsOf(parts, drawingsOf(parts, 2)[0]!).length).toBe(TYPES.length);
  });

  it('every chart type with titles, axis titles, name and size: the elements XlsxWriter has, ids, refs', async (ctx) => {
    if (!input) return ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
    const before = await readParts(input);
    const ops = TYPES.map((chart_type, i) => ({
      op: 'create_chart',
      sheet: 'My Sheet',
      chart_type,
      data_range: 'A1:D6',
      anchor_cell: `H${1 + i * 20}`,
      title: chart_type,
      x_axis_title: 'x',
      y_axis_title: 'y',
      chart_name: `${chart_type} chart`,
      width: 480,
      height: 288,
    }));
    const parts = await patch(ops, 'every-type.xlsx');
    expect(packageProblems(parts)).toEqual([]);
    // The chart went into the sheet's existing drawing (with XlsxWriter's chart and image).
    const drawings = drawingsOf(parts, 1);
    expect(drawings).toEqual(drawingsOf(before, 1));
    const drawing = parts.get(drawings[0]!)!.toString('utf8');
    const names = [...drawing.matchAll(/<xdr:cNvPr id="(\d+)" name="([^"]*)"/g)];
    expect(new Set(names.map((m) => m[1])).size).toBe(names.length);
    expect(new Set(names.map((m) => m[2])).size).toBe(names.length);
    expect(names.length).toBe(2 + TYPES.length);
    // Size: points × 12700 EMU.
    expect(drawing.match(/<xdr:ext cx="6096000" cy="3657600"\/>/g)?.length).toBe(TYPES.length);

    const reference = chartsOf(before, drawingsOf(before, 2)[0]!);
    const ours = chartsOf(parts, drawings[0]!).filter((c) => c.name.endsWith(' chart'));
    const missing: string[] = [];
    const style: Record<string, string[]> = {};
    for (const [i, type] of TYPES.entries()) {
      const theirs = reference[i]!.xml;
      const mine = ours.find((c) => c.name === `${type} chart`)!.xml;
      const have = requiredPaths(mine);
      const all = allPaths(mine);
      // Required where its parent is there (XlsxWriter's optional legend txPr needs bodyPr, not ours).
      for (const p of requiredPaths(theirs))
        if (!have.has(p) && all.has(p.slice(0, p.lastIndexOf('/')))) missing.push(`${type}: ${p}`);
      style[type] = [...allPaths(theirs)].filter((p) => !all.has(p) && !/Cache|printSettings/.test(p));
      // The same references as XlsxWriter's (which quotes "My Sheet" and writes absolute refs).
      const refs = (xml: string) => [...xml.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => m[1]).sort();
      expect(refs(mine), type).toEqual(refs(theirs));
    }
    expect(missing).toEqual([]);
    // What XlsxWriter writes on top is optional (style, not needed to open): c:lang, title and legend
    // c:layout, run properties (a:pPr, a:rPr), a legend c:txPr (pie, doughnut), a scatter series' c:spPr
    // (no line), a radar category axis' c:majorGridlines; and a scatter's text x values as c:strRef,
    // where exstruct writes c:numRef (Excel then numbers the points 1, 2, 3…).
    for (const paths of Object.values(style))
      for (const p of paths)
        expect(p).toMatch(
          /\/(lang|layout|pPr|defRPr|rPr)$|\/(txPr|spPr)(\/|$)|scatterChart\/ser\/xVal\/strRef|catAx\/majorGridlines$/,
        );
    expect(style.scatter).toContain('/chartSpace/chart/plotArea/scatterChart/ser/xVal/strRef');
  });

  it('two charts in one patch on a sheet without a drawing, other sheets, rows as series, no titles', async (ctx) => {
    if (!input) return ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
    const parts = await patch(
      [
        {
          op: 'create_chart',
          sheet: 'Plain',
          chart_type: 'bar',
          data_range: "'データ'!A1:D6",
          anchor_cell: 'B2',
        },
        {
          op: 'create_chart',
          sheet: 'Plain',
          chart_type: 'scatter',
          data_range: "'データ'!B2:D6",
          category_range: "'データ'!A2:A6",
          titles_from_data: false,
          anchor_cell: 'B30',
        },
        {
          op: 'create_chart',
          sheet: 'Plain',
          chart_type: 'line',
          data_range: "'My Sheet'!A1:D6",
          series_from_rows: true,
          anchor_cell: 'K2',
        },
      ],
      'two-charts.xlsx',
    );
    expect(packageProblems(parts)).toEqual([]);
    const drawings = drawingsOf(parts, 6);
    expect(drawings.length).toBe(1);
    const charts = chartsOf(parts, drawings[0]!);
    expect(charts.map((c) => c.name)).toEqual(['Chart 1', 'Chart 2', 'Chart 3']);
    expect(charts[0]!.xml).toContain("<c:f>'データ'!$B$1</c:f>");
    expect(charts[1]!.xml).toContain("<c:xVal><c:numRef><c:f>'データ'!$A$2:$A$6</c:f>");
    expect(charts[2]!.xml).toContain("<c:val><c:numRef><c:f>'My Sheet'!$B$2:$D$2</c:f>");
  });

  it("a chart on a sheet the patch adds, and one that takes the name of XlsxWriter's chart it deletes", async (ctx) => {
    if (!input) return ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
    const parts = await patch(
      [
        { op: 'add_sheet', sheet: 'New sheet' },
        {
          op: 'set_range_values',
          sheet: 'New sheet',
          range: 'A1:B3',
          values: [
            ['k', 'v'],
            ['x', 1],
            ['y', 2],
          ],
        },
        {
          op: 'create_chart',
          sheet: 'New sheet',
          chart_type: 'doughnut',
          data_range: 'A1:B3',
          anchor_cell: 'D2',
        },
        { op: 'delete_chart', sheet: 'My Sheet', chart_name: 'Chart 2' },
        {
          op: 'create_chart',
          sheet: 'My Sheet',
          chart_type: 'area',
          data_range: 'A1:C6',
          anchor_cell: 'F5',
          chart_name: 'Chart 2',
        },
      ],
      'added-and-replaced.xlsx',
    );
    expect(packageProblems(parts)).toEqual([]);
    const charts = chartsOf(parts, drawingsOf(parts, 1)[0]!);
    // XlsxWriter named its chart after the picture before it ("Chart 2"); the picture stays.
    expect(charts.map((c) => c.name)).toEqual(['Chart 2']);
    expect(charts[0]!.xml).toContain('<c:areaChart>');
    expect(parts.get(drawingsOf(parts, 1)[0]!)!.toString('utf8')).toContain('name="Picture 1"');
    expect([...parts.keys()].filter((p) => /^xl\/drawings\/drawing\d+\.xml$/.test(p)).length).toBe(3);
  });

  it('quotes sheet names Excel reads as R1C1 references (RC, C1x, R2C3) in c:f', async (ctx) => {
    // Unquoted, `RC!$B$2:$B$6` is "this row and column" followed by junk to Excel: it repairs the chart.
    if (!input) return ctx.skip('XlsxWriter is not installed (apt-get install -y python3-xlsxwriter)');
    const parts = await patch(
      [
        ...['RC', 'C1x'].map((sheet, i) => ({
          op: 'create_chart',
          sheet: 'Plain',
          chart_type: 'column',
          data_range: `${sheet}!A1:D6`,
          anchor_cell: `B${2 + i * 20}`,
        })),
        // Renamed after: the reference (unquoted when written) is rewritten, and quoted now.
        {
          op: 'set_range_values',
          sheet: 'Plain',
          range: 'J1:K3',
          values: [
            ['k', 'v'],
            ['x', 1],
            ['y', 2],
          ],
        },
        {
          op: 'create_chart',
          sheet: 'Plain',
          chart_type: 'pie',
          data_range: 'Plain!J1:K3',
          anchor_cell: 'B40',
        },
        { op: 'rename_sheet', sheet: 'Plain', new_name: 'R2C3' },
      ],
      'r1c1-names.xlsx',
    );
    expect(packageProblems(parts)).toEqual([]);
    const charts = chartsOf(parts, drawingsOf(parts, 6)[0]!);
    expect(charts[0]!.xml).toContain("<c:f>'RC'!$A$2:$A$6</c:f>");
    expect(charts[1]!.xml).toContain("<c:f>'C1x'!$B$1</c:f>");
    expect(charts[2]!.xml).toContain("<c:f>'R2C3'!$K$2:$K$3</c:f>");
  });
  it('a chart follows a later rename or delete, in the same patch, of the sheet its series read', async () => {
    // The chart part is written after every op: its c:f named the sheet as it was at create_chart.
    const made = await ws.call<{ out_path: string }>('exstruct_make', {
      out_path: 'renamed-later.xlsx',
      sheet: 'Data',
      ops: [
        SMALL_TABLE,
        { op: 'add_sheet', sheet: 'Charts' },
        {
          op: 'create_chart',
          sheet: 'Charts',
          chart_type: 'column',
          data_range: 'Data!A1:B3',
          anchor_cell: 'B2',
        },
        { op: 'rename_sheet', sheet: 'Data', new_name: 'Sales 2024' },
      ],
    });
    expect(made.isError, made.text).toBe(false);
    let parts = await readParts(made.structured.out_path);
    expect(packageProblems(parts)).toEqual([]);
    expect(parts.get('xl/charts/chart1.xml')!.toString('utf8')).toContain(
      "<c:f>'Sales 2024'!$B$2:$B$3</c:f>",
    );
    const res = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: made.structured.out_path,
      out_name: 'deleted-later.xlsx',
      ops: [
        {
          op: 'create_chart',
          sheet: 'Charts',
          chart_type: 'line',
          data_range: "'Sales 2024'!A1:B3",
          anchor_cell: 'B20',
        },
        { op: 'rename_sheet', sheet: 'Sales 2024', new_name: 'Old' },
        // A new sheet takes the old name: a chart made after the rename stays on it.
        { op: 'add_sheet', sheet: 'Sales 2024' },
        {
          op: 'set_range_values',
          sheet: 'Sales 2024',
          range: 'A1:B2',
          values: [
            ['k', 'v'],
            ['z', 3],
          ],
        },
        {
          op: 'create_chart',
          sheet: 'Charts',
          chart_type: 'bar',
          data_range: "'Sales 2024'!A1:B2",
          anchor_cell: 'B40',
        },
        { op: 'delete_sheet', sheet: 'Old' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    parts = await readParts(res.structured.out_path);
    expect(packageProblems(parts)).toEqual([]);
    expect(parts.get('xl/charts/chart1.xml')!.toString('utf8')).toContain('<c:f>#REF!$B$2:$B$3</c:f>');
    expect(parts.get('xl/charts/chart2.xml')!.toString('utf8')).toContain('<c:f>#REF!$B$2:$B$3</c:f>');
    expect(parts.get('xl/charts/chart3.xml')!.toString('utf8')).toContain("<c:f>'Sales 2024'!$B$2</c:f>");
  });

  it('adds a chart to a hand-edited drawing with no anchors (<xdr:wsDr/>); refuses one that is no drawing', async () => {
    const made = await ws.call<{ out_path: string }>('exstruct_make', {
      out_path: 'drawn.xlsx',
      sheet: 'Data',
      ops: [
        SMALL_TABLE,
        { op: 'create_chart', sheet: 'Data', chart_type: 'column', data_range: 'A1:B3', anchor_cell: 'D2' },
      ],
    });
    expect(made.isError, made.text).toBe(false);
    const parts = await readParts(made.structured.out_path);
    const drawing = parts.get('xl/drawings/drawing1.xml')!.toString('utf8');
    const root = /<xdr:wsDr\b[^>]*>/.exec(drawing)![0];
    const withDrawing = async (name: string, xml: string) => {
      const file = path.join(ws.dir, name);
      await writeFile(
        file,
        zipBytes([...parts].map(([part, data]) => [part, part.endsWith('drawing1.xml') ? xml : data])),
      );
      return ws.call<{ out_path: string }>('exstruct_patch', {
        xlsx_path: file,
        ops: [
          { op: 'create_chart', sheet: 'Data', chart_type: 'line', data_range: 'A1:B3', anchor_cell: 'D20' },
        ],
      });
    };

    const emptied = await withDrawing(
      'emptied.xlsx',
      drawing.replace(/<xdr:wsDr\b[\s\S]*$/, root.replace(/>$/, '/>')),
    );
    expect(emptied.isError, emptied.text).toBe(false);
    const out = await readParts(emptied.structured.out_path);
    const written = out.get('xl/drawings/drawing1.xml')!.toString('utf8');
    expect(written).toMatch(/<xdr:wsDr\b[^>]*><xdr:oneCellAnchor\b[\s\S]*<\/xdr:oneCellAnchor><\/xdr:wsDr>$/);
    expect(written.match(/<xdr:(?:one|two)CellAnchor\b/g)).toHaveLength(1);
    expect(packageProblems(out)).toEqual([]);

    const notADrawing = await withDrawing(
      'foreign.xlsx',
      drawing.replace(/<xdr:wsDr\b[\s\S]*$/, '<xdr:other xmlns:xdr="urn:x"/>'),
    );
    expect(notADrawing.isError).toBe(true);
    expect(notADrawing.text).toContain('CORRUPT_WORKBOOK');
    expect(notADrawing.text).toContain('xl/drawings/drawing1.xml');
    const broken = await withDrawing('broken.xlsx', drawing.replace(/<\/xdr:wsDr>$/, ''));
    expect(broken.isError).toBe(true);
    expect(broken.text).toContain('CORRUPT_WORKBOOK');
    expect(broken.text).toContain('xl/drawings/drawing1.xml');
  });
});
