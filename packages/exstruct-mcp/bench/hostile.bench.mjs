// Benchmark: the resource-exhaustion cases of issue 14 (item 8) and merge_cells over a whole sheet, each
// at two sizes in one run, each run in its own process (time and peak memory are its own). The reference
// is the smaller size: work in proportion to the input shows a time ratio near the size ratio (4×);
// quadratic work would show 16×. The figures before the fixes are printed beside them.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === '--child') {
  // One engine call in this process; prints {ms, peakMb, outcome} as JSON (a refusal is an outcome).
  const [task, input, output, opsJson] = process.argv.slice(3);
  const started = performance.now();
  let outcome;
  try {
    if (task === 'extract') {
      const { extractWorkbook } = await import('../dist/extract/extract-workbook.js');
      const extraction = await extractWorkbook(input, { mode: 'standard' });
      outcome = `extracted (${(extraction.serializeToBuffer('json').length / 1e6).toFixed(1)} MB JSON)`;
    } else {
      const { runPatch } = await import('../dist/patch/run-patch.js');
      const { parseOps } = await import('../dist/patch/parse-ops.js');
      const result = await runPatch({
        input,
        output,
        ops: parseOps(JSON.parse(opsJson)),
        onConflict: 'overwrite',
      });
      outcome = result.error ? `refused: ${result.error.message.slice(0, 60)}` : 'patched';
    }
  } catch (error) {
    outcome = `refused ${error.code ?? error.name}`;
  }
  const ms = performance.now() - started;
  console.log(JSON.stringify({ ms, peakMb: process.resourceUsage().maxRSS / 1024, outcome }));
  process.exit(0);
}

const { run, seconds } = await import('./lib/side-by-side.mjs');
const { ensureHostileWorkbook } = await import('./lib/hostile-workbooks.mjs');

const PATCH_B1 = JSON.stringify([{ op: 'set_value', sheet: 'Data', cell: 'B1', value: 'patched' }]);
/** [case, task, small n, large n, unit, ops, the figure before the fix]. */
const ROWS = [
  ['nesting', 'extract', 5_000_000, 20_000_000, 'nested elements', undefined, '20 M: heap exhausted'],
  [
    'nesting',
    'patch',
    5_000_000,
    20_000_000,
    'nested elements',
    PATCH_B1,
    '5 M: 90 s (rows rejoined per chunk)',
  ],
  [
    'long-row',
    'extract',
    12_000_000,
    48_000_000,
    'bytes in one row',
    undefined,
    '1.5 MB file: 21 min; then 12/24/48 MB: 7.5/22.7/63 s (row held whole)',
  ],
  [
    'long-row',
    'patch',
    12_000_000,
    48_000_000,
    'bytes in one row',
    PATCH_B1,
    '12 MB: 27 s (row rejoined per chunk)',
  ],
  ['long-shared-string', 'extract', 6_000_000, 24_000_000, 'characters', undefined, '—'],
  [
    'long-shared-string',
    'patch',
    6_000_000,
    24_000_000,
    'characters',
    PATCH_B1,
    '80 MB: 11.6 s; 300 MB: > 4 min',
  ],
  [
    'grid',
    'patch',
    2_000,
    8_000,
    'rows × 10 cells, merge_cells A1:A1048576',
    JSON.stringify([{ op: 'merge_cells', sheet: 'Data', range: 'A1:A1048576' }]),
    'merge_cells on a whole sheet: 208 s (now refused; a whole column is the limit)',
  ],
];

const work = mkdtempSync(path.join(os.tmpdir(), 'exstruct-hostile-bench-'));
const self = fileURLToPath(import.meta.url);
let failed = false;
console.log(
  `${os.cpus().length} CPU(s), Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)}`,
);
try {
  for (const [name, task, small, large, unit, ops, before] of ROWS) {
    const measured = [];
    for (const n of [small, large]) {
      const input = await ensureHostileWorkbook(name, n);
      const args = [self, '--child', task, input, path.join(work, 'out.xlsx'), ops ?? '[]'];
      const result = run(process.execPath, args);
      measured.push(result);
      // Time per MB of the part's own content (n counts its bytes, elements or characters).
      result.perMb = result.ms / 1000 / (n / 1e6);
      console.log(
        `${name.padEnd(18)} ${task.padEnd(7)} ${n.toLocaleString('en').padStart(11)} ${unit} (${(statSync(input).size / 1e6).toFixed(1)} MB file): ` +
          `${seconds(result.ms)} (${result.perMb.toFixed(3)} s per million), peak ${result.peakMb.toFixed(0)} MB — ${result.outcome}`,
      );
    }
    const ratio = measured[1].ms / measured[0].ms;
    // Beyond 8× for a 4× input the work is no longer in proportion to it.
    const linear = ratio <= 8 || measured[1].ms < 1000;
    if (!linear) failed = true;
    console.log(
      `  → ${large / small}× the input took ${ratio.toFixed(1)}× the time, ${(measured[1].perMb / measured[0].perMb).toFixed(2)}× the time per million (${linear ? 'linear' : 'NOT LINEAR'}); before the fix: ${before}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
