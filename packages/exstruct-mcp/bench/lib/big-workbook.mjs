// The benchmark workbook shared by the extraction and patch benchmarks: 200,000 rows × 5 columns
// (1,000,000 cells) — an id, a shared-string label, a date, an amount and a formula column with cached
// values — written once by exceljs's streaming writer into packages/exstruct-mcp/.bench-data/.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BENCH_DATA_DIR = path.resolve(here, '../../.bench-data');
export const BIG_ROWS = 200_000;
export const BIG_COLUMNS = 5;
const FILE_NAME = `big-${BIG_ROWS}x${BIG_COLUMNS}.xlsx`;

const LABELS = ['north', 'south', 'east', 'west', 'central', 'online', 'retail', 'wholesale'];

/** Returns the path of the 1,000,000-cell workbook, generating it on first use (about a minute). */
export async function ensureBigWorkbook({ log = console.log } = {}) {
  const target = path.join(BENCH_DATA_DIR, FILE_NAME);
  if (existsSync(target)) return target;
  mkdirSync(BENCH_DATA_DIR, { recursive: true });
  const temp = `${target}.partial`;
  rmSync(temp, { force: true });
  log(`generating ${FILE_NAME} (${BIG_ROWS} rows × ${BIG_COLUMNS} columns) …`);
  const started = Date.now();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: temp, useSharedStrings: true });
  const sheet = workbook.addWorksheet('Data');
  sheet.columns = [
    { header: 'id', key: 'id' },
    { header: 'region', key: 'region' },
    { header: 'date', key: 'date', style: { numFmt: 'yyyy-mm-dd' } },
    { header: 'amount', key: 'amount', style: { numFmt: '#,##0.00' } },
    { header: 'amount_with_tax', key: 'total' },
  ];
  const day0 = Date.UTC(2024, 0, 1);
  // Row 1 is the header, so BIG_ROWS - 1 data rows make BIG_ROWS × BIG_COLUMNS cells in all.
  for (let i = 1; i < BIG_ROWS; i++) {
    const amount = ((i * 7919) % 1_000_000) / 100;
    const row = i + 1;
    sheet
      .addRow({
        id: i,
        region: LABELS[i % LABELS.length],
        date: new Date(day0 + (i % 730) * 86_400_000),
        amount,
        total: { formula: `D${row}*1.1`, result: Math.round(amount * 1.1 * 100) / 100 },
      })
      .commit();
  }
  sheet.commit();
  await workbook.commit();
  renameSync(temp, target);
  log(`generated in ${((Date.now() - started) / 1000).toFixed(1)} s: ${target}`);
  return target;
}

export const MANY_SHEETS = 1000;
export const SMALL_ROWS = 40;
export const SMALL_COLUMNS = 10;

/**
 * The many-small-sheets workbook: 1,000 sheets of 40 rows × 10 columns (400,000 cells; numbers, shared
 * strings, dates and a formula column), where the cost per sheet (parts, relationships, batches,
 * hand-offs) shows rather than the cost per cell. Generated once, like the big one.
 */
export async function ensureManySheetsWorkbook({ log = console.log } = {}) {
  const target = path.join(BENCH_DATA_DIR, `many-${MANY_SHEETS}x${SMALL_ROWS}x${SMALL_COLUMNS}.xlsx`);
  if (existsSync(target)) return target;
  mkdirSync(BENCH_DATA_DIR, { recursive: true });
  const temp = `${target}.partial`;
  rmSync(temp, { force: true });
  log(`generating ${path.basename(target)} …`);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: temp, useSharedStrings: true });
  const day0 = Date.UTC(2024, 0, 1);
  for (let s = 1; s <= MANY_SHEETS; s++) {
    const sheet = workbook.addWorksheet(`Sheet ${s}`);
    for (let r = 1; r <= SMALL_ROWS; r++) {
      const values = [];
      for (let c = 1; c <= SMALL_COLUMNS; c++) {
        const i = s * 1000 + r * 10 + c;
        if (r === 1) values.push(`col ${c}`);
        else if (c === 2) values.push(LABELS[i % LABELS.length]);
        else if (c === 3) values.push(new Date(day0 + (i % 730) * 86_400_000));
        else if (c === SMALL_COLUMNS) values.push({ formula: `A${r}*2`, result: (i % 997) * 2 });
        else values.push(((i * 7919) % 100_000) / 100);
      }
      sheet.addRow(values).commit();
    }
    sheet.commit();
  }
  await workbook.commit();
  renameSync(temp, target);
  return target;
}
