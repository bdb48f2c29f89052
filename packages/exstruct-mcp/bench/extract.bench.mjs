// Benchmark (issues 3 and 26): extraction of the 1,000,000-cell workbook (200,000 rows × 5 columns, one
// of them formulas) and of a workbook of 1,000 small sheets, to JSON in standard mode, side by side in one
// run with
// - the physical floor: Node inflating every sheet's XML and finding every cell's start tag, nothing
//   else (bench/lib/floor.mjs); and the same on a thread made for it, timed from the thread's creation
//   (bench/lib/thread-floor.mjs): the least a call made right after the handshake pays;
// - the exstruct_extract tool call as a client makes it: the built bin over stdio, a fresh server's first
//   call and a second one, JSON written; and a fresh server's first call made a pause after the
//   handshake (as when a client lists the tools and its model picks a first call; the server warms its
//   extraction thread in that time);
// - Python openpyxl's load_workbook + reading every cell;
// each in its own process. Targets (issue 26): the tool call ≤ 2× the floor, peak memory ≤ 0.5× openpyxl's.
// Then the o200k token counts of our TOON and JSON and of the original ExStruct's golden JSON per fixture.
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--floor') {
  // The floor in a process of its own; prints {ms, cells, peakMb, freshMiB} as JSON (freshMiB: memory it
  // touched for the first time, from its minor page faults).
  const { extractionFloor } = await import('./lib/floor.mjs');
  const { ownFreshMiB } = await import('./lib/side-by-side.mjs');
  const freshBefore = ownFreshMiB();
  const started = performance.now();
  const cells = await extractionFloor(process.argv[3]);
  const ms = performance.now() - started;
  const freshMiB = ownFreshMiB() - freshBefore;
  console.log(JSON.stringify({ ms, cells, peakMb: process.resourceUsage().maxRSS / 1024, freshMiB }));
  process.exit(0);
}
if (process.argv[2] === '--thread-floor') {
  // The floor on a thread made for it, in a process of its own; prints {ms, cells} as JSON.
  const { threadFloor } = await import('./lib/thread-floor.mjs');
  console.log(JSON.stringify(await threadFloor(process.argv[3])));
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

const { ensurePython, machineLine, median, run, seconds } = await import('./lib/side-by-side.mjs');
const { ensureBigWorkbook, ensureManySheetsWorkbook } = await import('./lib/big-workbook.mjs');
const { firstAndAgain, startServer } = await import('./lib/tool-call.mjs');
const work = mkdtempSync(path.join(os.tmpdir(), 'exstruct-extract-bench-'));

/** A fresh server's first exstruct_extract of `name` (in the server's root) and a second one. */
async function toolCall(name, pauseMs = 0) {
  const server = await startServer(work);
  try {
    const args = { xlsx_path: name, out_dir: 'out', on_conflict: 'overwrite' };
    if (pauseMs > 0) await sleep(pauseMs);
    const calls = await firstAndAgain(server, 'exstruct_extract', args);
    return { ...calls, handshakeMs: server.handshakeMs, out: JSON.parse(calls.firstText).out_path };
  } finally {
    await server.close();
  }
}

const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
let failed = false;
try {
  console.log(machineLine());
  mkdirSync(path.join(work, 'out'));
  const python = ensurePython();
  if (!python) console.log('openpyxl      not found — install it with: apt-get install -y python3-openpyxl');
  const rounds = Number(process.env.EXSTRUCT_BENCH_ROUNDS ?? 3);
  const pauseMs = Number(process.env.EXSTRUCT_BENCH_PAUSE_MS ?? 1000);
  for (const [label, source] of [
    ['1,000,000 cells in one sheet', await ensureBigWorkbook()],
    ['1,000 sheets of 400 cells', await ensureManySheetsWorkbook()],
  ]) {
    const name = path.basename(source);
    try {
      linkSync(source, path.join(work, name));
    } catch {
      copyFileSync(source, path.join(work, name));
    }
    // Rounds alternate the sides, so a change in the machine's speed during the run weighs on all.
    const floor = [];
    const threadFloor = [];
    const ours = [];
    const paused = [];
    const py = [];
    for (let round = 0; round < rounds; round++) {
      floor.push(run(process.execPath, [fileURLToPath(import.meta.url), '--floor', source]));
      threadFloor.push(run(process.execPath, [fileURLToPath(import.meta.url), '--thread-floor', source]));
      ours.push(await toolCall(name));
      paused.push(await toolCall(name, pauseMs));
      if (python) py.push(run(python.command, ['-c', PYTHON, source]));
    }
    const floorMs = median(floor.map((r) => r.ms));
    const firstMs = median(ours.map((r) => r.firstMs));
    const warmMs = median(ours.map((r) => r.warmMs));
    // The peak of either kind of server: one called right away, and one whose extraction thread warmed
    // up while it sat idle (as a client's server does before its model's first call), which holds more.
    const freshMb = Math.max(...ours.map((r) => r.peakMb));
    const idledMb = Math.max(...paused.map((r) => r.peakMb));
    const oursMb = Math.max(freshMb, idledMb);
    const all = (values) => values.map((ms) => (ms / 1000).toFixed(2)).join(' ');
    console.log(
      `\n${label}: ${name} (${(statSync(source).size / 1e6).toFixed(1)} MB, ${floor[0].cells.toLocaleString('en')} cells)`,
    );
    console.log(
      `floor (inflate + find each <c>)      ${seconds(floorMs)}   (${all(floor.map((r) => r.ms))} s)   ` +
        `${median(floor.map((r) => r.freshMiB)).toFixed(0)} MiB of memory touched for the first time`,
    );
    // What a call made right after the handshake pays at least: its thread is made for it.
    const threadFloorMs = median(threadFloor.map((r) => r.ms));
    console.log(
      `the floor on a thread made for it    ${seconds(threadFloorMs)}   (${all(threadFloor.map((r) => r.ms))} s)   ratio to the floor ${ratio(threadFloorMs, floorMs)}`,
    );
    console.log(
      `exstruct_extract tool call → JSON    first ${seconds(firstMs)}, again ${seconds(warmMs)}   server peak ${freshMb.toFixed(0)} MB   ` +
        `(${all(ours.map((r) => r.firstMs))} / ${all(ours.map((r) => r.warmMs))} s; JSON ${(statSync(path.join(work, 'out', path.basename(ours[0].out))).size / 1e6).toFixed(1)} MB)`,
    );
    const handshakes = [...ours, ...paused].map((r) => r.handshakeMs);
    console.log(
      `  a fresh server, spawned to the handshake's end: ${seconds(median(handshakes))}   (${all(handshakes)} s)`,
    );
    const mib = (values) => `${median(values).toFixed(0)} MiB`;
    console.log(
      `  memory the server touched for the first time: first call ${mib(ours.map((r) => r.firstFreshMiB))}, ` +
        `again ${mib(ours.map((r) => r.warmFreshMiB))}, first call after the pause ${mib(paused.map((r) => r.firstFreshMiB))}`,
    );
    const pausedMs = median(paused.map((r) => r.firstMs));
    console.log(
      `first call ${pauseMs} ms after the handshake  ${seconds(pausedMs)}   (${all(paused.map((r) => r.firstMs))} s)   ratio to the floor ${ratio(pausedMs, floorMs)}   server peak ${idledMb.toFixed(0)} MB`,
    );
    const vsFloor = firstMs / floorMs;
    console.log(
      `ratio to the floor: first call ${ratio(firstMs, floorMs)}, again ${ratio(warmMs, floorMs)} (target ≤ 2×: ${vsFloor <= 2 ? 'met' : 'MISSED'})`,
    );
    if (vsFloor > 2) failed = true;
    if (python) {
      const pyMs = median(py.map((r) => r.ms));
      const pyMb = Math.max(...py.map((r) => r.peakMb));
      const memory = oursMb / pyMb;
      console.log(
        `openpyxl ${python.version} load_workbook + every cell   ${seconds(pyMs)}   peak ${pyMb.toFixed(0)} MB   (${all(py.map((r) => r.ms))} s)`,
      );
      console.log(
        `ratio to openpyxl: ${(pyMs / firstMs).toFixed(1)}× faster (again ${(pyMs / warmMs).toFixed(1)}×), memory ${memory.toFixed(2)}× openpyxl's (the higher peak; target ≤ 0.5×: ${memory <= 0.5 ? 'met' : 'MISSED'})`,
      );
      if (memory > 0.5) failed = true;
    } else failed = true;
  }
  console.log(machineLine());

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
