// Benchmark: a one-cell patch of the 1,000,000-cell workbook, exstruct_patch's engine vs Python
// openpyxl load_workbook + save, side by side in one run (each in its own process, so peak memory
// is each one's own). Targets (issue 4): ≥ 10× faster, ≤ 50 % of openpyxl's peak memory.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CELL = 'B100000';

if (process.argv[2] === '--child') {
  // One patch in this process; prints {ms, peakMb} as JSON.
  const [input, output] = process.argv.slice(3);
  const { runPatch } = await import('../dist/patch/run-patch.js');
  const { parseOps } = await import('../dist/patch/parse-ops.js');
  const started = performance.now();
  const result = await runPatch({
    input,
    output,
    ops: parseOps([{ op: 'set_value', sheet: 'Data', cell: CELL, value: 'patched' }]),
    onConflict: 'overwrite',
  });
  const ms = performance.now() - started;
  if (result.error) throw new Error(result.error.message);
  console.log(
    JSON.stringify({
      ms,
      peakMb: process.resourceUsage().maxRSS / 1024,
      before: result.patch_diff[0].before,
    }),
  );
  process.exit(0);
}

const PYTHON = `
import json, resource, sys, time
from openpyxl import load_workbook
started = time.perf_counter()
wb = load_workbook(sys.argv[1])
wb["Data"]["${CELL}"] = "patched"
wb.save(sys.argv[2])
ms = (time.perf_counter() - started) * 1000
print(json.dumps({"ms": ms, "peakMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

const { ensurePython, median, run } = await import('./lib/side-by-side.mjs');
const { ensureBigWorkbook } = await import('./lib/big-workbook.mjs');
const input = await ensureBigWorkbook();
const work = mkdtempSync(path.join(os.tmpdir(), 'exstruct-patch-bench-'));
try {
  const python = ensurePython();
  console.log(
    `workbook: ${path.basename(input)} (${(statSync(input).size / 1e6).toFixed(1)} MB, 1,000,000 cells); patch: Data!${CELL}`,
  );
  const ours = [1, 2, 3].map(() =>
    run(process.execPath, [fileURLToPath(import.meta.url), '--child', input, path.join(work, 'ours.xlsx')]),
  );
  const oursMs = median(ours.map((r) => r.ms));
  const oursMb = Math.max(...ours.map((r) => r.peakMb));
  console.log(
    `exstruct-mcp  ${(oursMs / 1000).toFixed(2)} s   peak ${oursMb.toFixed(0)} MB   (median of 3; output ${(statSync(path.join(work, 'ours.xlsx')).size / 1e6).toFixed(1)} MB)`,
  );
  if (!python) {
    console.log('openpyxl      not found — install it with: apt-get install -y python3-openpyxl');
    process.exit(1);
  }
  const py = run(python.command, ['-c', PYTHON, input, path.join(work, 'openpyxl.xlsx')]);
  console.log(
    `openpyxl ${python.version}  ${(py.ms / 1000).toFixed(2)} s   peak ${py.peakMb.toFixed(0)} MB   (one run)`,
  );
  const speedup = py.ms / oursMs;
  const memory = oursMb / py.peakMb;
  const fast = speedup >= 10;
  const lean = memory <= 0.5;
  console.log(
    `ratio: ${speedup.toFixed(1)}× faster (target ≥ 10×: ${fast ? 'met' : 'MISSED'}), memory ${(memory * 100).toFixed(0)} % of openpyxl's (target ≤ 50 %: ${lean ? 'met' : 'MISSED'})`,
  );
  process.exitCode = fast && lean ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
