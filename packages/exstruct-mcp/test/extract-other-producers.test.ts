// Workbooks we did not write, read by us and by openpyxl, which must agree (issue 16): one written by
// openpyxl (formulas without cached values) and the same workbook saved by LibreOffice Calc (values
// recalculated, every part from its own export filter) — merged cells, dates and times in several
// formats, formulas, Japanese text, blank strings, booleans. The files are kept in
// test/fixtures/producers (made by make-producers.py there). openpyxl comes from Debian's
// python3-openpyxl; CI requires it (EXSTRUCT_REQUIRE_OPENPYXL=1), elsewhere the test says why it skips.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { FIXTURES } from './extract-helpers.js';
import { openpyxlAvailable } from './independent-reader.js';

const PRODUCERS = path.join(FIXTURES, 'producers');
const FILES = ['openpyxl.xlsx', 'libreoffice.xlsx'];

// Values as openpyxl reads them (data_only: the cached values), written the way extraction writes
// them: dates and date-times as ISO 8601 to the millisecond, a time of day as HH:MM:SS.
const OPENPYXL_READ = `
import datetime, json, sys, warnings
warnings.simplefilter("ignore")
import openpyxl

def iso(v):
    if isinstance(v, datetime.datetime):
        ms = round(v.microsecond / 1000)
        v = v.replace(microsecond=0) + datetime.timedelta(milliseconds=ms)
        text = v.strftime("%Y-%m-%d")
        if (v.hour, v.minute, v.second, v.microsecond) != (0, 0, 0, 0):
            text += v.strftime("T%H:%M:%S") + (".%03d" % (v.microsecond // 1000) if v.microsecond else "")
        return text
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S")
    if isinstance(v, datetime.date):
        return v.isoformat()
    return v

out = {}
for path in sys.argv[1:]:
    values = openpyxl.load_workbook(path, data_only=True)
    formulas = openpyxl.load_workbook(path)
    book = {}
    for ws in values.worksheets:
        cells = {c.coordinate: iso(c.value) for row in ws.iter_rows() for c in row if c.value is not None}
        f = {c.coordinate: c.value for row in formulas[ws.title].iter_rows() for c in row
             if isinstance(c.value, str) and c.value.startswith("=")}
        book[ws.title] = {"cells": cells, "formulas": f, "merged": sorted(str(r) for r in ws.merged_cells.ranges)}
    out[path] = book
print(json.dumps(out))
`;

type OpenpyxlBook = Record<
  string,
  { cells: Record<string, unknown>; formulas: Record<string, string>; merged: string[] }
>;

let openpyxl: Record<string, OpenpyxlBook> | undefined;
beforeAll(async () => {
  if (!(await openpyxlAvailable())) return;
  const { stdout } = await promisify(execFile)(
    '/usr/bin/python3',
    ['-c', OPENPYXL_READ, ...FILES.map((f) => path.join(PRODUCERS, f))],
    { maxBuffer: 4 * 1024 * 1024 },
  );
  openpyxl = JSON.parse(stdout) as Record<string, OpenpyxlBook>;
}, 60_000);

async function ours(file: string): Promise<OpenpyxlBook> {
  const extraction = await extractWorkbook(file, { mode: 'verbose', alphaCol: true });
  const book: OpenpyxlBook = {};
  for (const [name, sheet] of Object.entries(extraction.workbook.sheets)) {
    const cells: Record<string, unknown> = {};
    for (const row of sheet.rows ?? [])
      for (const [col, v] of Object.entries(row.c)) cells[`${col}${row.r}`] = v;
    const formulas: Record<string, string> = {};
    for (const [formula, at] of Object.entries(sheet.formulas_map ?? {}))
      for (const [r, c] of at) formulas[`${String.fromCharCode(65 + c)}${r}`] = formula;
    book[name] = { cells, formulas, merged: [...(sheet.merged_ranges ?? [])].sort() };
  }
  return book;
}

describe.each(FILES)('%s (another producer) read like openpyxl reads it', (name) => {
  it('has the same sheets, cell values, formulas and merged ranges', async (context) => {
    if (!openpyxl) context.skip('openpyxl is not installed (apt-get install -y python3-openpyxl)');
    const file = path.join(PRODUCERS, name);
    const theirs = openpyxl![file]!;
    const mine = await ours(file);
    expect(Object.keys(mine)).toEqual(Object.keys(theirs));
    // One difference on purpose: a formula whose cached value is "" (<c t="str"><v></v>) holds an empty
    // string, which we keep; openpyxl reads an empty <v> as no value (`findtext(...) or None`).
    const emptyFormulaResults = name === 'libreoffice.xlsx' ? { B14: '' } : {};
    expect(mine['売上']!.cells).toMatchObject(emptyFormulaResults);
    for (const key of Object.keys(emptyFormulaResults)) delete mine['売上']!.cells[key];
    for (const sheet of Object.keys(theirs)) {
      expect(mine[sheet], sheet).toEqual(theirs[sheet]);
    }
    // The traits the fixtures were made for are really there (so the comparison is not vacuous).
    const sales = mine['売上']!;
    expect(sales.cells).toMatchObject({
      A1: '2025年 売上報告',
      A3: '2025-01-06',
      A4: '2025-02-14T13:45:00',
      A14: '  ',
      B9: '09:30:00',
      B11: true,
      B12: '1行目\n2行目',
    });
    expect(sales.merged).toEqual(['A1:E1', 'B12:D13']);
    expect(sales.formulas.E7).toBe('=SUM(E3:E6)');
    if (name === 'libreoffice.xlsx') expect(sales.cells).toMatchObject({ E3: 1182, E7: 6313.75 });
  });
});
