// Issue 27 §2: create_chart (8 types), apply_table_style, auto_fit_columns (and delete_chart, create_chart's
// inverse) through a real MCP client; the workbooks are read back by openpyxl (LibreOffice draws the
// charts in render-vs-libreoffice.test.ts, within its one soffice run).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipArchive } from '../src/ooxml/zip-archive.js';
import { runWithOpenpyxl } from './independent-reader.js';
import { patchError, workspace, type Workspace } from './patch-helpers.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => {
  await ws.close();
});

const TYPES = ['line', 'column', 'bar', 'area', 'pie', 'doughnut', 'scatter', 'radar'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'];
const DATA = [['Month', 'Sales', 'Costs'], ...MONTHS.map((m, i) => [m, 100 + i * 20, 60 + i * 5])];

const READ_BACK = String.raw`
import sys, json
from openpyxl import load_workbook
out = {}
for f in sys.argv[1:]:
    wb = load_workbook(f)
    book = {}
    for ws in wb.worksheets:
        book[ws.title] = {
            'charts': [type(c).__name__ for c in ws._charts],
            'series': [len(c.series) for c in ws._charts],
            'tables': {t.displayName: [t.ref, t.tableStyleInfo.name if t.tableStyleInfo else None] for t in ws.tables.values()},
            'widths': {k: v.width for k, v in ws.column_dimensions.items() if v.width},
        }
    out[f] = book
print(json.dumps(out))
`;

async function readBack(file: string) {
  const text = await runWithOpenpyxl(READ_BACK, [file]);
  if (text === undefined) return undefined;
  return (
    JSON.parse(text) as Record<
      string,
      Record<
        string,
        {
          charts: string[];
          series: number[];
          tables: Record<string, [string, string]>;
          widths: Record<string, number>;
        }
      >
    >
  )[file];
}

describe('charts, tables and fitted columns', () => {
  let made: string;

  it('makes a workbook with a table, eight chart types over another sheet, and fitted columns', async () => {
    const res = await ws.call<{
      out_path: string;
      patch_diff: { op: string; after: { kind: string; value: string } }[];
      inverse_ops: { op: string }[];
    }>('exstruct_make', {
      out_path: 'report.xlsx',
      sheet: 'Data',
      return_inverse_ops: true,
      ops: [
        { op: 'set_range_values', sheet: 'Data', range: 'A1:C7', values: DATA },
        { op: 'set_value', sheet: 'Data', cell: 'E1', value: 'A note much longer than a default column' },
        {
          op: 'apply_table_style',
          sheet: 'Data',
          range: 'A1:C7',
          style: 'TableStyleMedium2',
          table_name: 'Sales',
        },
        { op: 'auto_fit_columns', sheet: 'Data', columns: ['A', 'E'], max_width: 30 },
        { op: 'add_sheet', sheet: 'Charts 2025' },
        ...TYPES.map((type, i) => ({
          op: 'create_chart',
          sheet: 'Charts 2025',
          chart_type: type,
          data_range: "'Data'!A1:C7",
          anchor_cell: `${i % 2 ? 'J' : 'A'}${1 + Math.floor(i / 2) * 16}`,
          title: `${type} chart`,
          ...(type === 'column' ? { x_axis_title: 'Month', y_axis_title: 'Yen' } : {}),
        })),
      ],
    });
    expect(res.isError, res.text).toBe(false);
    made = res.structured.out_path;
    const charts = res.structured.patch_diff.filter((d) => d.op === 'create_chart');
    expect(charts.map((c) => c.after.kind)).toEqual(TYPES.map(() => 'chart'));
    expect(charts[0]!.after.value).toMatch(/name=Chart 1;series=2/);
    expect(res.structured.inverse_ops.filter((o) => o.op === 'delete_chart')).toHaveLength(8);

    const zip = await ZipArchive.open(made);
    const parts = zip.list().map((e) => e.name);
    zip.close();
    expect(parts.filter((p) => /^xl\/charts\/chart\d+\.xml$/.test(p))).toHaveLength(8);
    expect(parts.filter((p) => /^xl\/tables\/table\d+\.xml$/.test(p))).toHaveLength(1);

    const back = await readBack(made);
    if (back) {
      expect(back['Charts 2025']!.charts).toEqual([
        'LineChart', 'BarChart', 'BarChart', 'AreaChart', 'PieChart', 'DoughnutChart', 'ScatterChart', 'RadarChart',
      ]); // prettier-ignore
      // Month is text: it gives the categories; Sales and Costs are the series (scatter: x = Month).
      expect(back['Charts 2025']!.series).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
      expect(back.Data!.tables).toEqual({ Sales: ['A1:C7', 'TableStyleMedium2'] });
      // A holds "Month" (bold-free, 5 letters): a narrow column; E's long note is capped at max_width.
      expect(back.Data!.widths.A).toBeGreaterThan(5);
      expect(back.Data!.widths.A).toBeLessThan(9);
      expect(back.Data!.widths.E).toBe(30);
    }
  });

  it('dry_run writes nothing; the inverse ops delete the charts again', async () => {
    const dry = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: made,
      out_name: 'dry.xlsx',
      dry_run: true,
      ops: [{ op: 'create_chart', sheet: 'Data', chart_type: 'pie', data_range: 'A1:B7', anchor_cell: 'G2' }],
    });
    expect(dry.isError, dry.text).toBe(false);
    expect(existsSync(path.join(ws.dir, 'dry.xlsx'))).toBe(false);

    const added = await ws.call<{ out_path: string; inverse_ops: Record<string, unknown>[] }>(
      'exstruct_patch',
      {
        xlsx_path: made,
        out_name: 'added.xlsx',
        return_inverse_ops: true,
        ops: [
          {
            op: 'create_chart',
            sheet: 'Data',
            chart_type: 'line',
            data_range: 'A1:C7',
            anchor_cell: 'G2',
            chart_name: 'Trend',
          },
        ],
      },
    );
    expect(added.isError, added.text).toBe(false);
    expect(added.structured.inverse_ops).toEqual([
      { op: 'delete_chart', sheet: 'Data', chart_name: 'Trend' },
    ]);
    const undone = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: added.structured.out_path,
      out_name: 'undone.xlsx',
      ops: added.structured.inverse_ops,
    });
    expect(undone.isError, undone.text).toBe(false);
    const back = await readBack(undone.structured.out_path);
    if (back) expect(back.Data!.charts).toEqual([]);
    const zip = await ZipArchive.open(undone.structured.out_path);
    expect(zip.list().filter((e) => /charts\/chart\d+\.xml$/.test(e.name))).toHaveLength(8); // the other sheet's
    zip.close();
  });

  it('refuses a table over merged cells, over another table or with a taken name, and a chart name twice', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { op: 'apply_table_style', sheet: 'Data', range: 'A1:C7', style: 'TableStyleLight1' },
        /overlaps the table "Sales"/,
      ],
      [
        {
          op: 'apply_table_style',
          sheet: 'Data',
          range: 'E1:E3',
          style: 'TableStyleLight1',
          table_name: 'sales',
        },
        /already has a table named/,
      ],
      [
        {
          op: 'create_chart',
          sheet: 'Charts 2025',
          chart_type: 'line',
          data_range: "'Data'!A1:C7",
          anchor_cell: 'A1',
          chart_name: 'chart 1',
        },
        /already has a chart named/,
      ],
      [
        {
          op: 'create_chart',
          sheet: 'Data',
          chart_type: 'line',
          data_range: "'Nope'!A1:C7",
          anchor_cell: 'A1',
        },
        /does not exist/,
      ],
    ];
    for (const [op, expected] of cases) {
      const res = await ws.call('exstruct_patch', { xlsx_path: made, out_name: 'bad.xlsx', ops: [op] });
      expect(res.isError, JSON.stringify(op)).toBe(true);
      expect(patchError(res)?.message ?? res.text).toMatch(expected);
    }
    const absent = await ws.call<{ patch_diff: { status: string }[]; warnings: string[] }>('exstruct_patch', {
      xlsx_path: made,
      out_name: 'absent.xlsx',
      dry_run: true,
      ops: [{ op: 'delete_chart', sheet: 'Data', chart_name: 'Nope' }],
    });
    expect(absent.structured.patch_diff.map((d) => d.status)).toEqual(['skipped']);
    expect(absent.structured.warnings.join(' ')).toMatch(/has no chart named "Nope"/);
    const merged = await ws.call('exstruct_patch', {
      xlsx_path: made,
      out_name: 'bad.xlsx',
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Data',
          range: 'H1:I3',
          values: [
            ['a', 'b'],
            [1, 2],
            [3, 4],
          ],
        },
        { op: 'merge_cells', sheet: 'Data', range: 'H2:I2' },
        { op: 'apply_table_style', sheet: 'Data', range: 'H1:I3', style: 'TableStyleLight1' },
      ],
    });
    expect(patchError(merged)?.message).toMatch(/merged range H2:I2/);
    const invalid = await ws.call('exstruct_patch', {
      xlsx_path: made,
      ops: [{ op: 'apply_table_style', sheet: 'Data', range: 'H1:I3', style: 'Fancy' }],
    });
    expect(invalid.text).toMatch(/INVALID_ARGUMENT.*TableStyleMedium2/);
  });
});

describe('table names Excel accepts', () => {
  /** A workbook (openpyxl) with headers in A1:B1 and the defined names "Sales" and "Table1". */
  const NAMED_BOOK = String.raw`
import sys
from openpyxl import Workbook
from openpyxl.workbook.defined_name import DefinedName
wb = Workbook()
ws = wb.active
ws.title = "Data"
ws.append(["k", "v"])
ws.append(["x", 1])
for name in ("Sales", "Table1"):
    dn = DefinedName(name, attr_text="Data!$A$1:$B$2")
    names = wb.defined_names  # a list in openpyxl 3.0, a dict in 3.1
    names.append(dn) if hasattr(names, "append") else names.add(dn)
wb.save(sys.argv[1])
`;

  it('differ from every defined name, and do not read as A1 or R1C1 references', async (ctx) => {
    const book = path.join(ws.dir, 'named.xlsx');
    if ((await runWithOpenpyxl(NAMED_BOOK, [book])) === undefined)
      return ctx.skip('openpyxl is not installed');
    const table = (extra: Record<string, unknown>) =>
      ws.call<{ out_path: string }>('exstruct_patch', {
        xlsx_path: book,
        out_name: 'tabled.xlsx',
        on_conflict: 'overwrite',
        ops: [
          { op: 'apply_table_style', sheet: 'Data', range: 'A1:B2', style: 'TableStyleLight1', ...extra },
        ],
      });

    const clash = await table({ table_name: 'sales' });
    expect(patchError(clash)?.message).toContain('defined name "sales"');
    for (const reference of ['R1C1', 'RC', 'R2', 'c', 'AB12']) {
      const refused = await table({ table_name: reference });
      expect(refused.isError, reference).toBe(true);
      expect(refused.text).toContain('must not look like a cell reference');
    }
    // Without a name: the first TableN that is neither a table nor a defined name.
    const unnamed = await table({});
    expect(unnamed.isError, unnamed.text).toBe(false);
    expect(Object.keys((await readBack(unnamed.structured.out_path))!['Data']!.tables)).toEqual(['Table2']);
  });
});
