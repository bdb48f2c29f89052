// Benchmark: extraction of the 1,000,000-cell workbook (200,000 rows × 5 columns, one of them formulas)
// to JSON in standard mode, against Python openpyxl's load_workbook + iterating every cell, side by side
// in one run, each in its own process (so peak memory is each one's own). Targets (issue 3): ≥ 10×
// faster and ≤ 50 % of openpyxl's peak memory. Then the o200k token counts of our TOON and JSON and of
// the original ExStruct's golden JSON for every fixture.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--child') {
  // One extraction in this process, written to a file; prints {ms, peakMb} as JSON.
  const [input, output] = process.argv.slice(3);
  const { extractWorkbook } = await import('../dist/extract/extract-workbook.js');
  const started = performance.now();
  const extraction = await extractWorkbook(input, { mode: 'standard' });
  writeFileSync(output, extraction.serializeToBuffer('json'));
  const ms = performance.now() - started;
  console.log(JSON.stringify({ ms, peakMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const PYTHON = `
import json, resource, sys, time
from openpyxl import load_workbook
# Like ours, the clock starts after the library is imported.
started = time.perf_counter()
wb = load_workbook(sys.argv[1])
cells = 0
for ws in wb.worksheets:
    for row in ws.iter_rows():
        for cell in row:
            value = cell.value
            cells += 1
ms = (time.perf_counter() - started) * 1000
print(json.dumps({"ms": ms, "cells": cells, "peakMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

const { ensurePython, median, run, seconds } = await import('./lib/side-by-side.mjs');
const { ensureBigWorkbook, BIG_ROWS, BIG_COLUMNS } = await import('./lib/big-workbook.mjs');
const input = await ensureBigWorkbook();
const work = mkdtempSync(path.join(os.tmpdir(), 'exstruct-extract-bench-'));
let failed = false;
try {
  console.log(
    `workbook: ${path.basename(input)} (${(statSync(input).size / 1e6).toFixed(1)} MB, ${BIG_ROWS} rows × ${BIG_COLUMNS} columns = ${(BIG_ROWS * BIG_COLUMNS).toLocaleString('en')} cells); ${os.cpus().length} CPU(s), Node ${process.version}`,
  );
  const output = path.join(work, 'ours.json');
  const python = ensurePython();
  if (!python) console.log('openpyxl      not found — install it with: apt-get install -y python3-openpyxl');
  // Rounds alternate the two sides (ours twice, then openpyxl once), so a change in the VM's speed
  // during the run weighs on both; the ratio is of the medians.
  const rounds = Number(process.env.EXSTRUCT_BENCH_ROUNDS ?? 3);
  const ours = [];
  const py = [];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 2; i++) {
      ours.push(run(process.execPath, [fileURLToPath(import.meta.url), '--child', input, output]));
    }
    if (python) py.push(run(python.command, ['-c', PYTHON, input]));
  }
  const oursMs = median(ours.map((r) => r.ms));
  const oursWall = median(ours.map((r) => r.wallMs));
  const oursMb = Math.max(...ours.map((r) => r.peakMb));
  const all = (runs) => runs.map((r) => (r.ms / 1000).toFixed(2)).join(' ');
  console.log(
    `exstruct-mcp  standard → JSON  ${seconds(oursMs)} (process ${seconds(oursWall)})   peak ${oursMb.toFixed(0)} MB   (median of ${ours.length}: ${all(ours)} s; JSON ${(statSync(output).size / 1e6).toFixed(1)} MB)`,
  );
  if (!python) {
    failed = true;
  } else {
    const pyMs = median(py.map((r) => r.ms));
    const pyWall = median(py.map((r) => r.wallMs));
    const pyMb = Math.max(...py.map((r) => r.peakMb));
    console.log(
      `openpyxl ${python.version} load_workbook + every cell  ${seconds(pyMs)} (process ${seconds(pyWall)})   peak ${pyMb.toFixed(0)} MB   (median of ${py.length}: ${all(py)} s; ${py[0].cells.toLocaleString('en')} cells)`,
    );
    const speedup = pyMs / oursMs;
    const wallSpeedup = pyWall / oursWall;
    const memory = oursMb / pyMb;
    const fast = speedup >= 10;
    const lean = memory <= 0.5;
    console.log(
      `ratio: ${speedup.toFixed(1)}× faster (process to process ${wallSpeedup.toFixed(1)}×; target ≥ 10×: ${fast ? 'met' : 'MISSED'}), ` +
        `memory ${(memory * 100).toFixed(0)} % of openpyxl's (target ≤ 50 %: ${lean ? 'met' : 'MISSED'})`,
    );
    failed = !fast || !lean;
  }

  // Tokens (o200k_base) for every fixture that has a golden: our TOON, our JSON, the original's JSON.
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const { extractWorkbook } = await import('../dist/extract/extract-workbook.js');
  const fixtures = path.join(here, '..', 'test', 'fixtures');
  // Same mode and merged-value setting as each golden was written with (see test/golden.test.ts).
  const cases = [
    ['basic__sample', 'standard', true],
    ['en_form_sf425__sample', 'standard', false],
    ['flowchart__sample-shape-connector', 'standard', true],
    ['formula__formula', 'verbose', true],
    ['gantt_chart__en__sample', 'verbose', true],
    ['ja_general_form__ja_form', 'standard', false],
    ['smartart__sample_smartart', 'standard', true],
  ];
  console.log(
    '\ntokens (o200k_base)                     ours TOON   ours JSON   golden JSON (as stored / compact)',
  );
  const totals = [0, 0, 0, 0];
  for (const [name, mode, mergedValuesInRows] of cases) {
    const extraction = await extractWorkbook(path.join(fixtures, `${name}.xlsx`), {
      mode,
      mergedValuesInRows,
    });
    const toon = countTokens(extraction.serialize('toon'));
    const json = countTokens(extraction.serialize('json'));
    const goldenText = readFileSync(path.join(fixtures, `${name}.json`), 'utf8');
    const golden = countTokens(goldenText);
    const goldenCompact = countTokens(JSON.stringify(JSON.parse(goldenText)));
    [toon, json, golden, goldenCompact].forEach((n, i) => (totals[i] += n));
    console.log(
      `${`${name} (${mode})`.padEnd(40)}${String(toon).padStart(9)}${String(json).padStart(12)}${String(golden).padStart(14)} / ${goldenCompact}`,
    );
  }
  console.log(
    `${'total'.padEnd(40)}${String(totals[0]).padStart(9)}${String(totals[1]).padStart(12)}${String(totals[2]).padStart(14)} / ${totals[3]}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
