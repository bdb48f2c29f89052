// Dates read by extraction (ISO text) can be compared and written back as the dates they are.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
});
