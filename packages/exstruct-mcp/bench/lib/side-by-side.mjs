// What the side-by-side benchmarks share: finding (and if need be installing) Python's openpyxl, running
// one measured child process, medians, and the line that says what the machine was like during a run.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

function findPython() {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    const probe = spawnSync(candidate, ['-c', 'import openpyxl; print(openpyxl.__version__)'], {
      encoding: 'utf8',
    });
    if (probe.status === 0) return { command: candidate, version: probe.stdout.trim() };
  }
  return undefined;
}

/** Python with openpyxl (Debian's python3-openpyxl, installed when missing and apt-get is usable). */
export function ensurePython() {
  const found = findPython();
  if (found || process.getuid?.() !== 0) return found;
  console.log('openpyxl missing: apt-get install -y python3-openpyxl …');
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  spawnSync('apt-get', ['install', '-y', '-qq', 'python3-openpyxl'], { stdio: 'ignore' });
  return findPython();
}

/** Runs a child process; returns its last stdout line as JSON plus the wall time of the whole process. */
export function run(command, args) {
  const started = performance.now();
  const child = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`${command} failed: ${child.stderr}`);
  return { ...JSON.parse(child.stdout.trim().split('\n').pop()), wallMs };
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

// A fresh process maps 32 MiB and writes one byte per 4 KiB page: each write is a first touch.
const FRESH_MEMORY_PROBE = `
const { performance } = require('node:perf_hooks');
const bytes = Buffer.allocUnsafeSlow(32 << 20);
const started = performance.now();
for (let at = 0; at < bytes.length; at += 4096) bytes[at] = 1;
console.log((performance.now() - started) / 32);
`;

/**
 * What touching a MiB of memory for the first time costs here, in ms. The floors are mostly that on a
 * VM where a page fault is dear (the 1M-cell floor touches ~57 MiB of fresh memory), and it moves from
 * day to day, so the benches print it beside the load.
 */
export function freshMemoryMsPerMiB() {
  const child = spawnSync(process.execPath, ['-e', FRESH_MEMORY_PROBE], { encoding: 'utf8' });
  return child.status === 0 ? Number(child.stdout.trim()) : NaN;
}

/** Memory this process has touched for the first time so far, in MiB (minor page faults, 4 KiB pages). */
export const ownFreshMiB = () => (process.resourceUsage().minorPageFault * 4) / 1024;

/** The machine as a bench run saw it: cores, Node, load and the cost of fresh memory. */
export function machineLine() {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return (
    `${os.cpus().length} CPU(s), Node ${process.version}, load average ${load}, ` +
    `a fresh MiB ${freshMemoryMsPerMiB().toFixed(2)} ms to touch`
  );
}
