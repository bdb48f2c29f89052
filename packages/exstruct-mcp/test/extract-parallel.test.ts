// Rows are read by the fast byte parser; sheets it leaves to the tokenizer are parsed, when big, by worker
// threads on batches of rows. The built engine (dist, where the worker script exists) must give exactly
// what the one-pass parser gives, every way.
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { FIXTURES, packageParts, tempDir, zipBytes, type TempDir } from './extract-helpers.js';

interface Engine {
  extractWorkbook(
    file: string,
    options: {
      batches?: false | { minBytes?: number; workerMinBytes?: number; threads?: number };
      fastRows?: boolean;
    },
  ): Promise<{
    serialize(format: 'json'): string;
    sheets: Array<{ name: string; parsedWith: { fast: boolean; batches: boolean; workers: number } }>;
  }>;
}

let tmp: TempDir;
let file: string;
beforeAll(async () => {
  tmp = await tempDir('exstruct-parallel-');
  file = path.join(tmp.dir, 'medium.xlsx');
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true });
  const sheet = writer.addWorksheet('Data');
  sheet.columns = [
    { key: 'id' },
    { key: 'name' },
    { key: 'when', style: { numFmt: 'yyyy-mm-dd' } },
    { key: 'x' },
  ];
  sheet.mergeCells('F2:G3');
  for (let i = 1; i <= 6000; i++) {
    sheet
      .addRow({
        id: i,
        name: i % 7 === 0 ? `näme ${i} ✓` : `n${i % 13}`,
        when: new Date(Date.UTC(2024, 0, 1 + (i % 300))),
        x: i / 8,
      })
      .commit();
  }
  await writer.commit();
});
afterAll(() => tmp.remove());

it('gives the same output in row batches, on this thread or with workers, as in one pass', async () => {
  const engine = (await import(
    path.join(FIXTURES, '..', '..', 'dist', 'extract', 'extract-workbook.js')
  )) as Engine;
  const onePass = await engine.extractWorkbook(file, { fastRows: false, batches: false });
  // Tiny thresholds force batches (and many of them) on a medium sheet.
  const batched = await engine.extractWorkbook(file, {
    fastRows: false,
    batches: { minBytes: 1, workerMinBytes: Infinity },
  });
  const workers = await engine.extractWorkbook(file, {
    fastRows: false,
    batches: { minBytes: 1, workerMinBytes: 1, threads: 3 },
  });
  const fast = await engine.extractWorkbook(file, {});
  expect(onePass.sheets[0]!.parsedWith).toEqual({ fast: false, batches: false, workers: 0 });
  expect(batched.sheets[0]!.parsedWith).toEqual({ fast: false, batches: true, workers: 0 });
  expect(workers.sheets[0]!.parsedWith).toEqual({ fast: false, batches: true, workers: 2 });
  expect(fast.sheets[0]!.parsedWith).toEqual({ fast: true, batches: false, workers: 0 });
  const expected = onePass.serialize('json');
  expect(batched.serialize('json')).toBe(expected);
  expect(workers.serialize('json')).toBe(expected);
  expect(fast.serialize('json')).toBe(expected);
  const data = JSON.parse(expected);
  expect(data.sheets.Data.rows).toHaveLength(6000);
  // exceljs writes the merge's rows 2–3 first, so the data rows start at row 4.
  expect(data.sheets.Data.rows[6]).toEqual({
    r: 10,
    c: { '0': 7, '1': 'näme 7 ✓', '2': '2024-01-08', '3': 0.875 },
  });
  expect(data.sheets.Data.merged_cells.items).toEqual([[2, 5, 3, 6, ' ']]);
});

// The inflater hands out 256 KB chunks; the end of sheetData has to be found wherever it falls, also
// when `</sheetData` is split between two chunks.
it('finds the end of the rows when it straddles two inflated chunks', async () => {
  const engine = (await import(
    path.join(FIXTURES, '..', '..', 'dist', 'extract', 'extract-workbook.js')
  )) as Engine;
  const CHUNK = 256 * 1024;
  const rows = Array.from(
    { length: 3000 },
    (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i}</v></c><c r="B${i + 1}"><v>${i / 4}</v></c></row>`,
  ).join('');
  const head = packageParts({ sheets: [{ name: 'S', body: '@' }] })['xl/worksheets/sheet1.xml']!.indexOf('@');
  for (const before of [1, 4, 10, 11, 12]) {
    // Whitespace after the last row puts `</sheetData` at CHUNK - before.
    const padding = ' '.repeat(CHUNK - before - head - '<sheetData>'.length - rows.length);
    const body = `<sheetData>${rows}${padding}</sheetData><mergeCells count="1"><mergeCell ref="D1:E2"/></mergeCells>`;
    const workbook = path.join(tmp.dir, `seam-${before}.xlsx`);
    await writeFile(workbook, zipBytes(packageParts({ sheets: [{ name: 'S', body }] })));
    const onePass = await engine.extractWorkbook(workbook, { fastRows: false, batches: false });
    const batched = await engine.extractWorkbook(workbook, {
      fastRows: false,
      batches: { minBytes: 1, workerMinBytes: Infinity },
    });
    const fast = await engine.extractWorkbook(workbook, {});
    expect(batched.sheets[0]!.parsedWith.batches).toBe(true);
    expect(fast.sheets[0]!.parsedWith.fast).toBe(true);
    expect(batched.serialize('json')).toBe(onePass.serialize('json'));
    expect(fast.serialize('json')).toBe(onePass.serialize('json'));
    const data = JSON.parse(batched.serialize('json'));
    expect(data.sheets.S.rows).toHaveLength(3000);
    expect(data.sheets.S.merged_cells.items).toEqual([[1, 3, 2, 4, ' ']]);
  }
});
