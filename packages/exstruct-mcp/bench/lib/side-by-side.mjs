// What the side-by-side benchmarks share: finding (and if need be installing) Python's openpyxl, running
// one measured child process, and medians.
import { spawnSync } from 'node:child_process';
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
