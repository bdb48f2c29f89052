// Issue 27 §1: our sheet images against LibreOffice's rendering of the same range (soffice → PDF →
// pdftoppm), by a tolerant structural measure: the grid lines LibreOffice prints are where our column and
// row edges are, and the cells that have text in one image have text in the other. Five workbooks made
// by openpyxl (another producer) and three of the shared fixtures re-saved by openpyxl, each with a print
// area, printed gridlines and fit-to-page, converted in one soffice run (cached by file hash).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../src/ooxml/cell-ref.js';
import { WorkbookReader } from '../src/ooxml/workbook-reader.js';
import { TextMeasurer } from '../src/render/fonts/text-measure.js';
import { rasterize } from '../src/render/rasterize.js';
import { fitRowHeights, renderRegion } from '../src/render/render-region.js';
import { loadSheet, readWorkbookLook } from '../src/render/sheet-source.js';
import { CHART_TYPES } from '../src/patch/ops/chart-ops.js';
import { parseOps } from '../src/patch/parse-ops.js';
import { runPatch } from '../src/patch/run-patch.js';
import { FIXTURES } from './extract-helpers.js';
import { runWithOpenpyxl } from './independent-reader.js';
import { convertWithLibreOffice, libreOfficeAvailable, readPgm, type GreyImage } from './libreoffice.js';

const CASES: { file: string; range: string; source?: string }[] = [
  { file: 'sales.xlsx', range: 'A1:E16' },
  { file: 'ja_form.xlsx', range: 'A1:F14' },
  { file: 'sizes.xlsx', range: 'A1:G10' },
  { file: 'grid.xlsx', range: 'A1:F8' },
  { file: 'notes.xlsx', range: 'A1:F10' },
  { file: 'fx_basic.xlsx', range: 'A1:F12', source: 'basic__sample.xlsx' },
  { file: 'fx_ja.xlsx', range: 'A1:K20', source: 'ja_general_form__ja_form.xlsx' },
  { file: 'fx_gantt.xlsx', range: 'A6:F20', source: 'gantt_chart__en__sample.xlsx' },
];

const MAKE_WORKBOOKS = String.raw`
import sys, datetime
from openpyxl import Workbook, load_workbook
from openpyxl.styles import Font, PatternFill, Border, Side, Alignment
from openpyxl.worksheet.properties import PageSetupProperties
out = sys.argv[1]
def prep(ws, area):
    ws.print_area = area
    ws.print_options.gridLines = True
    ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 1
    for side in ('left', 'right', 'top', 'bottom'): setattr(ws.page_margins, side, 0.3)
    ws.page_margins.header = ws.page_margins.footer = 0
wb = Workbook(); ws = wb.active; ws.title = 'Sales'
ws.append(['Region', 'Month', 'Units', 'Revenue', 'Share'])
for i in range(15):
    ws.append([['North','South','East','West'][i%4], datetime.date(2025, 1+i%12, 1), 10+i*7, 1234.5*(i+1), (i+1)/120])
for r in range(2, 17):
    ws.cell(r, 2).number_format = 'yyyy-mm-dd'; ws.cell(r, 4).number_format = '#,##0.00'; ws.cell(r, 5).number_format = '0.0%'
for c in 'ABCDE': ws.column_dimensions[c].width = 14
prep(ws, 'A1:E16'); wb.save(out + '/sales.xlsx')
wb = Workbook(); ws = wb.active; ws.title = '申請書'
ws['A1'] = '介護保険負担限度額認定申請書'; ws.merge_cells('A1:F1'); ws['A1'].alignment = Alignment(horizontal='center')
for i, l in enumerate(['氏名', 'フリガナ', '住所', '電話番号', '生年月日', '備考']):
    ws.cell(3+i*2, 1, l); ws.merge_cells(start_row=3+i*2, start_column=1, end_row=4+i*2, end_column=1)
    ws.cell(3+i*2, 2, '記入してください' if i % 2 else '東京都千代田区一丁目'); ws.merge_cells(start_row=3+i*2, start_column=2, end_row=3+i*2, end_column=6)
for c, w in zip('ABCDEF', [12, 10, 10, 10, 10, 10]): ws.column_dimensions[c].width = w
prep(ws, 'A1:F14'); wb.save(out + '/ja_form.xlsx')
wb = Workbook(); ws = wb.active; ws.title = 'Sizes'
for c, w in zip('ABCDEFG', [4, 18, 8, 25, 6, 12, 10]): ws.column_dimensions[c].width = w
for r, h in [(2, 30), (5, 8), (7, 40)]: ws.row_dimensions[r].height = h
for r in range(1, 11):
    for c in range(1, 8):
        if (r + c) % 3 == 0: ws.cell(r, c, 'R%dC%d' % (r, c))
prep(ws, 'A1:G10'); wb.save(out + '/sizes.xlsx')
wb = Workbook(); ws = wb.active; ws.title = 'Grid'
thin = Side(style='thin'); medium = Side(style='medium')
for r in range(1, 9):
    for c in range(1, 7):
        cell = ws.cell(r, c, r * c if r > 1 else 'Col%d' % c)
        cell.border = Border(left=thin, right=thin, top=medium if r == 1 else thin, bottom=thin)
        if r == 1: cell.fill = PatternFill('solid', fgColor='1F3864'); cell.font = Font(bold=True, color='FFFFFF')
        elif r % 2 == 0: cell.fill = PatternFill('solid', fgColor='D9E1F2')
prep(ws, 'A1:F8'); wb.save(out + '/grid.xlsx')
wb = Workbook(); ws = wb.active; ws.title = 'Notes'
ws['A1'] = 'A long note that overflows into the empty cells to its right'
ws['A3'] = 'short'; ws['B3'] = 'blocks'; ws['C5'] = 'right aligned'; ws['C5'].alignment = Alignment(horizontal='right')
ws['A7'] = 'Wrapped text in a narrow cell that needs several lines'; ws['A7'].alignment = Alignment(wrap_text=True)
ws.row_dimensions[7].height = 60
ws['D9'] = 12345678.9; ws['E9'] = 'Total'; ws['E9'].font = Font(bold=True, size=14)
prep(ws, 'A1:F10'); wb.save(out + '/notes.xlsx')
wb = Workbook(); ws = wb.active; ws.title = 'Charts'
ws.append(['Month', 'Sales', 'Costs'])
for i, m in enumerate(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun']): ws.append([m, 100 + i * 20, 60 + i * 5])
ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
ws.page_setup.fitToWidth = 1; ws.page_setup.fitToHeight = 1
wb.save(out + '/charts-data.xlsx')
for spec in sys.argv[2:]:
    src, name, area = spec.split('|')
    wb = load_workbook(src); ws = wb.worksheets[0]
    prep(ws, area); wb.save(out + '/' + name)
print('ok')
`;

let dir: string;
let references: Map<string, string> | undefined;

beforeAll(async () => {
  if (!(await libreOfficeAvailable())) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-vs-lo-'));
  const specs = CASES.filter((c) => c.source).map(
    (c) => `${path.join(FIXTURES, c.source!)}|${c.file}|${c.range}`,
  );
  const made = await runWithOpenpyxl(MAKE_WORKBOOKS, [dir, ...specs]);
  if (made === undefined) return;
  // create_chart's eight types over the data, through the patch engine: LibreOffice must draw them
  // (converted in the same soffice run as the comparison workbooks).
  await runPatch({
    input: path.join(dir, 'charts-data.xlsx'),
    output: path.join(dir, 'charts.xlsx'),
    onConflict: 'overwrite',
    ops: parseOps(
      CHART_TYPES.map((type, i) => ({
        op: 'create_chart',
        sheet: 'Charts',
        chart_type: type,
        data_range: 'A1:C7',
        anchor_cell: `${i % 2 ? 'K' : 'E'}${1 + Math.floor(i / 2) * 14}`,
        width: 300,
        height: 180,
      })),
    ),
  });
  references = await convertWithLibreOffice(
    [
      ...CASES.map((c) => path.join(dir, c.file)),
      path.join(dir, 'charts-data.xlsx'),
      path.join(dir, 'charts.xlsx'),
    ],
    'pdf',
  );
}, 120_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Positions (0…1 across the box) of grid lines: columns (or rows) holding a continuous dark stretch at
 * least 18 px (a row of cells) or 40 % of the box long (glyph strokes are shorter), of pixels with light
 * 3 px to one side (so the inside of a dark fill is no line). Adjacent ones form one line; a band thicker
 * than 6 px counts by its two edges.
 */
function lines(image: Grey, box: Box, vertical: boolean, threshold: number): number[] {
  const [from, to] = vertical ? [box.x0, box.x1] : [box.y0, box.y1];
  const [alongFrom, alongTo] = vertical ? [box.y0, box.y1] : [box.x0, box.x1];
  const need = Math.min(18, 0.4 * (alongTo - alongFrom + 1));
  const found: number[] = [];
  let band: number[] = [];
  const close = () => {
    if (band.length === 0) return;
    if (band.length > 6) found.push(band[0]!, band.at(-1)!);
    else found.push((band[0]! + band.at(-1)!) / 2);
    band = [];
  };
  for (let i = from; i <= to; i++) {
    let longest = 0;
    let current = 0;
    for (let j = alongFrom; j <= alongTo; j++) {
      // A line pixel is dark with light on one side across the line (inside a dark fill it is not).
      const at = (k: number) => (vertical ? image.at(k, j) : image.at(j, k));
      const dark = at(i) < threshold;
      const thin =
        dark &&
        (i - 3 < 0 ||
          at(i - 3) >= threshold ||
          i + 3 >= (vertical ? image.width : image.height) ||
          at(i + 3) >= threshold);
      current = thin ? current + 1 : 0;
      longest = Math.max(longest, current);
    }
    if (longest >= need) band.push(i);
    else close();
  }
  close();
  return found.map((p) => (p - from) / (to - from));
}

interface Grey {
  width: number;
  height: number;
  at(x: number, y: number): number;
}
interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function fromPgm(pgm: GreyImage): Grey {
  return { width: pgm.width, height: pgm.height, at: (x, y) => pgm.data[y * pgm.width + x]! };
}

function fromPng(png: PNG): Grey {
  return {
    width: png.width,
    height: png.height,
    at: (x, y) => {
      const i = (y * png.width + x) * 4;
      return Math.min(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!);
    },
  };
}

/** The box around every pixel darker than `threshold`. */
function inkBox(image: Grey, threshold: number): Box {
  const box = { x0: image.width, y0: image.height, x1: -1, y1: -1 };
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++)
      if (image.at(x, y) < threshold) {
        box.x0 = Math.min(box.x0, x);
        box.x1 = Math.max(box.x1, x);
        box.y0 = Math.min(box.y0, y);
        box.y1 = Math.max(box.y1, y);
      }
  return box;
}

function inkShare(image: Grey, x0: number, y0: number, x1: number, y1: number, threshold: number): number {
  let dark = 0;
  let all = 0;
  for (let y = Math.ceil(y0); y < Math.floor(y1); y++)
    for (let x = Math.ceil(x0); x < Math.floor(x1); x++) {
      all++;
      if (image.at(x, y) < threshold) dark++;
    }
  return all ? dark / all : 0;
}

/** Share of `of` that has a position of `in_` within `tolerance`. */
function matched(of: number[], in_: number[], tolerance: number): number {
  if (of.length === 0) return 1;
  return of.filter((p) => in_.some((q) => Math.abs(p - q) <= tolerance)).length / of.length;
}

describe('sheet images against LibreOffice', () => {
  it.for(CASES)(
    '$file $range: grid lines and text boxes where LibreOffice has them',
    async ({ file, range }, ctx) => {
      // libreOfficeAvailable() failed the run when CI requires LibreOffice; here it is simply not installed.
      if (!references) {
        ctx.skip('LibreOffice (soffice) or poppler (pdftoppm) is not installed');
        return;
      }
      const reader = await WorkbookReader.open(path.join(dir, file));
      const measurer = new TextMeasurer();
      let ours: Grey;
      let edges: { cols: number[]; rows: number[] };
      try {
        const look = await readWorkbookLook(reader);
        const { source } = await loadSheet(reader, reader.workbook.sheets[0]!, look, () => undefined);
        const region = parseRange(range);
        fitRowHeights(source, region, measurer);
        const drawn = renderRegion(source, region, measurer);
        const png = PNG.sync.read((await rasterize(drawn.svg, 96, measurer.facesInUse())).png);
        const full = fromPng(png);
        // The grid only: the headings are ours, not LibreOffice's.
        ours = {
          width: png.width - drawn.gridLeft,
          height: png.height - drawn.gridTop,
          at: (x, y) => full.at(x + drawn.gridLeft, y + drawn.gridTop),
        };
        edges = { cols: drawn.colEdges, rows: drawn.rowEdges };
      } finally {
        reader.close();
      }
      const lo = fromPgm(await readPgm(references.get(path.join(dir, file))!));
      const box = inkBox(lo, 160);
      const width = edges.cols.at(-1)!;
      const height = edges.rows.at(-1)!;
      const ourCols = edges.cols.map((e) => e / width);
      const ourRows = edges.rows.map((e) => e / height);
      const loCols = lines(lo, box, true, 160);
      const loRows = lines(lo, box, false, 160);
      // Every line LibreOffice prints (gridlines, borders, fill edges; at least the box's own edges) is one
      // of our column/row edges. (Not every edge of ours is printed: merged cells and light borders hide some.)
      expect(loCols.length).toBeGreaterThanOrEqual(2);
      expect(loRows.length).toBeGreaterThanOrEqual(2);
      expect(
        matched(loCols, ourCols, 0.03),
        `columns ${loCols.join()} vs ${ourCols.join()}`,
      ).toBeGreaterThanOrEqual(0.9);
      expect(
        matched(loRows, ourRows, 0.04),
        `rows ${loRows.join()} vs ${ourRows.join()}`,
      ).toBeGreaterThanOrEqual(0.9);

      // Text: a cell with ink (away from its edges) in one image has ink in the other.
      const ourBox = { x0: 0, y0: 0, x1: width, y1: height };
      let agree = 0;
      let cells = 0;
      for (let r = 0; r + 1 < edges.rows.length; r++)
        for (let c = 0; c + 1 < edges.cols.length; c++) {
          const [ox0, ox1, oy0, oy1] = [ourCols[c]!, ourCols[c + 1]!, ourRows[r]!, ourRows[r + 1]!];
          if ((ox1 - ox0) * width < 12 || (oy1 - oy0) * height < 12) continue;
          const inset = (a: number, b: number, size: number) => [a * size + 4, b * size - 4] as const;
          const [x0, x1] = inset(ox0, ox1, ourBox.x1);
          const [y0, y1] = inset(oy0, oy1, ourBox.y1);
          const lw = box.x1 - box.x0;
          const lh = box.y1 - box.y0;
          const oursInk = inkShare(ours, x0, y0, x1, y1, 140) > 0.01;
          const loInk =
            inkShare(
              lo,
              box.x0 + ox0 * lw + 4,
              box.y0 + oy0 * lh + 4,
              box.x0 + ox1 * lw - 4,
              box.y0 + oy1 * lh - 4,
              140,
            ) > 0.01;
          cells++;
          if (oursInk === loInk) agree++;
        }
      expect(agree / cells, `${agree} of ${cells} cells agree`).toBeGreaterThanOrEqual(0.85);
    },
  );

  it('LibreOffice draws the eight charts create_chart wrote (ink where they stand, none without them)', async (ctx) => {
    if (!references) {
      ctx.skip('LibreOffice (soffice) or poppler (pdftoppm) is not installed');
      return;
    }
    const plain = fromPgm(await readPgm(references.get(path.join(dir, 'charts-data.xlsx'))!));
    const charts = fromPgm(await readPgm(references.get(path.join(dir, 'charts.xlsx'))!));
    const share = (image: Grey) => inkShare(image, 0, 0, image.width, image.height, 200);
    // The data alone is a small table; with eight 300 x 180 pt charts (axes, bars, lines, slices,
    // legends) the page holds many times its ink.
    expect(share(charts)).toBeGreaterThan(4 * share(plain));
    expect(share(charts)).toBeGreaterThan(0.02);
  });
});
