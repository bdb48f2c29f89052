// Dates read by extraction (ISO text) can be compared and written back as the dates they are.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithOpenpyxl } from './independent-reader.js';
import { readWorkbook, workspace, type Workspace } from './patch-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

interface Out {
  out_path: string;
  error: { message: string } | null;
  patch_diff: { status: string; before: unknown; after: unknown }[];
}

async function datedBook(file: string): Promise<void> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('S');
  sheet.getCell('A1').value = new Date(Date.UTC(2025, 0, 1));
  sheet.getCell('A1').numFmt = 'yyyy-mm-dd';
  sheet.getCell('B1').value = new Date(Date.UTC(2025, 0, 1, 13, 45));
  sheet.getCell('B1').numFmt = 'yyyy/m/d h:mm';
  sheet.getCell('C1').value = '2025-01-01'; // text in a General cell stays text
  sheet.getColumn('D').numFmt = 'd-mmm-yy'; // an empty cell of a date column
  await wb.xlsx.writeFile(file);
}

describe('dates between extraction and patch', () => {
  it('writes back extracted date text as dates, and compares it with set_value_if', async () => {
    const file = path.join(ws.dir, 'dates.xlsx');
    await datedBook(file);
    const extract = await ws.call<{ out_path: string }>('exstruct_extract', {
      xlsx_path: file,
      options: { alpha_col: true },
    });
    const cells = JSON.parse(await readFile(extract.structured.out_path, 'utf8')).sheets.S.rows[0].c;
    expect(cells).toMatchObject({ A: '2025-01-01', B: '2025-01-01T13:45:00', C: '2025-01-01' });

    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      out_name: 'back.xlsx',
      ops: [
        { op: 'set_value_if', sheet: 'S', cell: 'A1', expected: cells.A, value: '2025-02-01' },
        { op: 'set_range_values', sheet: 'S', range: 'B1:D1', values: [[cells.B, cells.C, '2025-03-01']] },
      ],
    });
    expect(res.structured.error).toBeNull();
    expect(res.structured.patch_diff[0]).toMatchObject({ status: 'applied', after: { value: 45689 } });
    const sheet = (await readWorkbook(res.structured.out_path)).getWorksheet('S')!;
    expect(sheet.getCell('A1').value).toEqual(new Date(Date.UTC(2025, 1, 1)));
    expect(sheet.getCell('B1').value).toEqual(new Date(Date.UTC(2025, 0, 1, 13, 45)));
    expect(sheet.getCell('C1').value).toBe('2025-01-01');
    expect(sheet.getCell('D1').value).toEqual(new Date(Date.UTC(2025, 2, 1)));
    expect(sheet.getCell('D1').numFmt).toBe('d-mmm-yy');
  });

  it('still skips set_value_if when the date differs', async () => {
    const file = path.join(ws.dir, 'dates.xlsx');
    await datedBook(file);
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value_if', sheet: 'S', cell: 'A1', expected: '2025-01-02', value: 'x' }],
    });
    expect(res.structured.patch_diff[0]?.status).toBe('skipped');
  });

  it('compares a date-time with the millisecond extraction shows, whatever noise the writer stored', async () => {
    const file = path.join(ws.dir, 'noisy.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('S');
    // 2025-01-31 08:30 as openpyxl stores it, as LibreOffice does, and one second later.
    [45688.35416666666, 45688.3541666667, 45688.35417824074].forEach((serial, i) => {
      sheet.getCell(1, i + 1).value = serial;
      sheet.getCell(1, i + 1).numFmt = 'yyyy-mm-dd hh:mm';
    });
    await wb.xlsx.writeFile(file);
    const extract = await ws.call<{ out_path: string }>('exstruct_extract', {
      xlsx_path: file,
      options: { alpha_col: true },
    });
    const cells = JSON.parse(await readFile(extract.structured.out_path, 'utf8')).sheets.S.rows[0].c;
    expect(cells).toEqual({ A: '2025-01-31T08:30:00', B: '2025-01-31T08:30:00', C: '2025-01-31T08:30:01' });
    const shown = '2025-01-31T08:30:00';
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      out_name: 'cas.xlsx',
      ops: ['A1', 'B1', 'C1'].map((cell) => ({
        op: 'set_value_if',
        sheet: 'S',
        cell,
        expected: shown,
        value: '2025-02-01T09:00:00',
      })),
    });
    expect(res.structured.patch_diff.map((d) => d.status)).toEqual(['applied', 'applied', 'skipped']);
    const back = await runWithOpenpyxl(
      'import sys, openpyxl; ws = openpyxl.load_workbook(sys.argv[1])["S"]; print([str(c.value) for c in ws[1]])',
      [res.structured.out_path],
    );
    if (back !== undefined)
      expect(back.trim()).toBe("['2025-02-01 09:00:00', '2025-02-01 09:00:00', '2025-01-31 08:30:01']");
  });

  it('refuses value_type "date" text that names no real date or time', async () => {
    const file = path.join(ws.dir, 'dates.xlsx');
    await datedBook(file);
    for (const [value, reason] of [
      ['2025-02-30', /2025-02 has days 01 to 28/],
      ['2023-02-29', /2023-02 has days 01 to 28/],
      ['1900-02-29', /1900-02 has days 01 to 28/],
      ['2025-13-01', /month 13/],
      ['0000-01-01', /years run from 0001/],
      ['2025-01-31T24:00:00', /hours run from 00 to 23/],
      ['24:00', /hours run from 00 to 23/],
      ['2025-01-31T08:60', /minutes/],
      ['08:30:60', /seconds/],
      ['10000-01-01', /not ISO 8601/],
    ] as const) {
      const res = await ws.call('exstruct_patch', {
        xlsx_path: file,
        dry_run: true,
        ops: [{ op: 'set_value', sheet: 'S', cell: 'E1', value, value_type: 'date' }],
      });
      expect(res.error?.code, value).toBe('INVALID_ARGUMENT');
      expect(res.error?.message, value).toMatch(reason);
    }
    const good = ['2024-02-29', '2000-02-29', '2025-01-31T23:59:59.5', '00:00', '0001-01-01'];
    const res = await ws.call<Out>('exstruct_patch', {
      xlsx_path: file,
      out_name: 'good.xlsx',
      ops: good.map((value, i) => ({
        op: 'set_value',
        sheet: 'S',
        cell: `E${i + 1}`,
        value,
        value_type: 'date',
      })),
    });
    expect(res.structured.error).toBeNull();
    const back = await runWithOpenpyxl(
      'import sys, openpyxl; ws = openpyxl.load_workbook(sys.argv[1])["S"]; print([str(ws.cell(i, 5).value) for i in range(1, 6)])',
      [res.structured.out_path],
    );
    if (back !== undefined)
      expect(back.trim()).toBe(
        "['2024-02-29', '2000-02-29', '2025-01-31 23:59:59.500000', '00:00:00', '0001-01-01']",
      );
  });
});
