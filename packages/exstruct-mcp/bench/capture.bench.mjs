// Benchmark (issue 27 §3): exstruct_capture_sheet_images' engine vs LibreOffice drawing the same cells,
// side by side in one run, each in its own process with its peak memory: a 50 × 20 range, and a whole
// 1,000-row sheet. LibreOffice is the real alternative a server could shell out to: `soffice
// --convert-to png` (it draws the first page only) and, for every page, `--convert-to pdf` + pdftoppm.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const DPI = 144;

if (process.argv[2] === '--child') {
  // One capture in this (fresh) process; prints {ms, images, peakMb} as JSON.
  const [file, range, out] = process.argv.slice(3);
  const started = performance.now();
  const { captureWorkbook } = await import('../dist/render/capture.js');
  const { localFiles } = await import('@mcp-workbench/core/engine');
  const { writeFileSync } = await import('node:fs');
  const result = await captureWorkbook(file, localFiles, {
    sheet: 'Data',
    range: range === '-' ? undefined : range,
    dpi: DPI,
  });
  result.images.forEach((image, i) => writeFileSync(path.join(out, `${i + 1}.png`), image.png));
  const ms = performance.now() - started;
  const pixels = result.images.reduce((sum, i) => sum + i.width * i.height, 0);
  console.log(JSON.stringify({ engineMs: ms, images: result.images.length, pixels }));
  process.exit(0);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = path.join(here, '..', '.bench-data');

/** 1,000 rows × 20 columns: a styled header, ids, names, dates, amounts, percentages, Japanese text. */
const MAKE = String.raw`
import sys, datetime
from openpyxl import Workbook
from openpyxl.styles import Font, PatternFill, Border, Side, Alignment
from openpyxl.worksheet.properties import PageSetupProperties
wb = Workbook(); ws = wb.active; ws.title = 'Data'
thin = Side(style='thin', color='999999')
ws.append(['ID', 'Name', '担当', 'Date', 'Amount', 'Share'] + ['M%02d' % i for i in range(1, 15)])
for c in ws[1]:
    c.font = Font(bold=True, color='FFFFFF'); c.fill = PatternFill('solid', fgColor='1F3864'); c.alignment = Alignment(horizontal='center')
for r in range(2, 1001):
    ws.append([r - 1, 'Customer %d' % r, ['山田', '佐藤', '鈴木', '高橋'][r % 4], datetime.date(2025, 1 + r % 12, 1 + r % 28), r * 123.45, (r % 100) / 100] + [(r * k) % 997 for k in range(1, 15)])
    ws.cell(r, 4).number_format = 'yyyy-mm-dd'; ws.cell(r, 5).number_format = '#,##0.00'; ws.cell(r, 6).number_format = '0%'
    if r % 2 == 0:
        for c in range(1, 21): ws.cell(r, c).fill = PatternFill('solid', fgColor='DDEBF7')
for r in range(1, 1001):
    for c in range(1, 21): ws.cell(r, c).border = Border(left=thin, right=thin, top=thin, bottom=thin)
ws.column_dimensions['B'].width = 16; ws.column_dimensions['D'].width = 12; ws.column_dimensions['E'].width = 12
wb.save(sys.argv[1])
# The same sheet with a print area of the 50 x 20 range on one page (what LibreOffice draws of it).
ws.print_area = 'A1:T50'
ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
ws.page_setup.fitToWidth = 1; ws.page_setup.fitToHeight = 1
wb.save(sys.argv[2])
`;

function ensureWorkbooks() {
  mkdirSync(dataDir, { recursive: true });
  const whole = path.join(dataDir, 'capture-1000x20.xlsx');
  const range = path.join(dataDir, 'capture-1000x20-area.xlsx');
  if (!existsSync(whole) || !existsSync(range)) {
    const made = spawnSync('/usr/bin/python3', ['-c', MAKE, whole, range], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`making the workbook failed: ${made.stderr}`);
  }
  return { whole, range };
}

/** Runs a command under /usr/bin/time; returns wall ms and peak RSS (MB) of the process and its children. */
function timed(command, args, options = {}) {
  const started = performance.now();
  const child = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { encoding: 'utf8', ...options });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`${command} failed: ${child.stderr.slice(-2000)}`);
  const lines = child.stderr.trim().split('\n');
  return { ms, peakMb: Number(lines.at(-1)) / 1024, stdout: child.stdout };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' });
if (soffice.status !== 0) {
  console.log(
    'LibreOffice (soffice) is not installed: apt-get install -y libreoffice-calc-nogui poppler-utils',
  );
  process.exit(1);
}
const { whole, range } = ensureWorkbooks();
const work = mkdtempSync(path.join(os.tmpdir(), 'exstruct-capture-bench-'));
const profile = `-env:UserInstallation=file://${path.join(work, 'profile')}`;
try {
  console.log(
    `workbook: 1,000 rows × 20 columns (${(statSync(whole).size / 1e6).toFixed(2)} MB), ${DPI} dpi; ${soffice.stdout.trim()}`,
  );
  console.log(`load average before: ${loadavg()}`);
  // LibreOffice's first start creates its profile: done once, not timed.
  spawnSync('soffice', [
    profile,
    '--headless',
    '--convert-to',
    'pdf',
    '--outdir',
    path.join(work, 'warm'),
    range,
  ]);
  const rounds = Number(process.env.EXSTRUCT_BENCH_ROUNDS ?? 3);
  const rows = [];
  for (const [label, file, area] of [
    ['range A1:T50 (50 × 20)', range, 'A1:T50'],
    ['whole sheet (1,000 rows)', whole, '-'],
  ]) {
    const ours = [];
    const png = [];
    const pdf = [];
    for (let i = 0; i < rounds; i++) {
      const out = mkdtempSync(path.join(work, 'ours-'));
      const t = timed(process.execPath, [fileURLToPath(import.meta.url), '--child', file, area, out]);
      ours.push({ ...t, ...JSON.parse(t.stdout.trim().split('\n').pop()) });
      const loPng = mkdtempSync(path.join(work, 'png-'));
      png.push(timed('soffice', [profile, '--headless', '--convert-to', 'png', '--outdir', loPng, file]));
      const loPdf = mkdtempSync(path.join(work, 'pdf-'));
      const conv = timed('soffice', [profile, '--headless', '--convert-to', 'pdf', '--outdir', loPdf, file]);
      const pdfFile = path.join(loPdf, readdirSync(loPdf)[0]);
      const raster = timed('pdftoppm', ['-r', String(DPI), '-png', pdfFile, path.join(loPdf, 'page')]);
      pdf.push({
        ms: conv.ms + raster.ms,
        peakMb: Math.max(conv.peakMb, raster.peakMb),
        pages: readdirSync(loPdf).filter((f) => f.endsWith('.png')).length,
      });
    }
    rows.push({ label, ours, png, pdf });
  }
  console.log(`load average after: ${loadavg()}\n`);
  console.log(
    '| case | exstruct-mcp (process) | peak | images | LibreOffice → PNG (first page) | peak | LibreOffice → PDF → pdftoppm (all pages) | peak | pages | ratio (PNG / ours) |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const { label, ours, png, pdf } of rows) {
    const o = median(ours.map((r) => r.ms));
    const p = median(png.map((r) => r.ms));
    const d = median(pdf.map((r) => r.ms));
    console.log(
      `| ${label} | ${s(o)} (engine ${s(median(ours.map((r) => r.engineMs)))}) | ${Math.max(...ours.map((r) => r.peakMb)).toFixed(0)} MB | ${ours[0].images} | ${s(p)} | ${Math.max(...png.map((r) => r.peakMb)).toFixed(0)} MB | ${s(d)} | ${Math.max(...pdf.map((r) => r.peakMb)).toFixed(0)} MB | ${pdf[0].pages} | ${(p / o).toFixed(2)}× |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
