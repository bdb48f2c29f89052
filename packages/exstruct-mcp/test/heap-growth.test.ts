// The bin's heaps grow little past what they hold between full collections (src/heap-growth.ts, issue 26
// §1): an extraction leaves what lived through the call as garbage in the old space, and V8's default
// let the extraction thread hold 2-3× its live size, which made most of the server's peak memory above
// its target. Observed from outside: a thread that churns the way an extraction does (what the workbook
// keeps, a call's parts kept until the call ends, short-lived garbage besides), started inside the built bin's process by a
// preload, peaks at a much smaller old space there than in a plain Node process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './extract-helpers.js';

const BIN = path.join(FIXTURES, '..', '..', 'dist', 'index.js');

/** A thread that churns the way an extraction does; posts its peak old space. */
const THREAD = `
const v8 = require('node:v8');
const { parentPort } = require('node:worker_threads');
let peak = 0;
const kept = [];
for (let i = 0; i < 100000; i++) kept.push({ name: 'kept ' + i });
for (let call = 0; call < 32; call++) {
  const parts = new Map();
  for (let i = 0; i < 20000; i++) {
    parts.set(i, { name: 'part ' + i + ' of call ' + call, size: i });
    if (new Array(16).fill(i).length !== 16) throw new Error('unreachable');
    if (i % 1000 === 0) {
      const old = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
      peak = Math.max(peak, old.physical_space_size);
    }
  }
}
parentPort.postMessage(peak);
`;

/** Started in the main thread of a process 200 ms in: prints the churning thread's peak old space. */
const CHURN = `
import { isMainThread, Worker } from 'node:worker_threads';
const thread = ${JSON.stringify(THREAD)};
if (isMainThread) {
  setTimeout(() => {
    const worker = new Worker(thread, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    worker.once('message', (peak) => process.stderr.write('churn-old-space ' + peak + '\\n'));
  }, 200);
}
`;

/** The churning thread's peak old space in a process started with `args`, in bytes. */
function churnPeak(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const preload = `data:text/javascript,${encodeURIComponent(CHURN)}`;
    const child = spawn(process.execPath, ['--import', preload, ...args], { stdio: 'pipe' });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no churn report; stderr: ${stderr}`));
    }, 25_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /churn-old-space (\d+)/.exec(stderr);
      if (!found) return;
      clearTimeout(timer);
      child.kill();
      resolve(Number(found[1]));
    });
    child.once('error', reject);
  });
}

describe('the server process', () => {
  it("lets a thread's old space grow much less past its live size than Node's default", async () => {
    const [plain, server] = await Promise.all([
      churnPeak(['-e', 'setTimeout(() => {}, 30000)']),
      churnPeak([BIN, '--root', FIXTURES, '--log-level', 'error']),
    ]);
    // Measured over 32 calls (load ~7): 40-47 MB in a plain process, 21-22.5 MB in the server's.
    expect(server).toBeLessThan(plain * 0.85);
  });
});

const HEAP_GROWTH = pathToFileURL(path.join(FIXTURES, '..', '..', 'dist', 'heap-growth.js')).href;

/**
 * The peak old space of a thread churning as above in a process with the bin's cap set: `lifted` -
 * while an edit runs (withHeapGrowth); `after` - after an edit has ended; `capped` - with no edit.
 */
function editChurnPeak(when: 'lifted' | 'after' | 'capped'): Promise<number> {
  const script = `
const { Worker } = require('node:worker_threads');
const churn = () =>
  new Promise((resolve) => {
    const worker = new Worker(${JSON.stringify(THREAD)}, {
      eval: true,
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    worker.once('message', resolve);
  });
(async () => {
  const { limitHeapGrowth, withHeapGrowth } = await import(${JSON.stringify(HEAP_GROWTH)});
  limitHeapGrowth();
  const when = ${JSON.stringify(when)};
  if (when === 'after') await withHeapGrowth(async () => undefined);
  const peak = when === 'lifted' ? await withHeapGrowth(churn) : await churn();
  process.stdout.write(String(peak));
  process.exit(0);
})();
`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(Number(stdout)) : reject(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}

describe('an edit on the server thread (exstruct_patch, exstruct_make)', () => {
  it('lets the heaps grow as V8 would while it runs, and caps them again once it has ended', async () => {
    const [lifted, capped, after] = await Promise.all([
      editChurnPeak('lifted'),
      editChurnPeak('capped'),
      editChurnPeak('after'),
    ]);
    expect(capped).toBeLessThan(lifted * 0.85);
    expect(after).toBeLessThan(lifted * 0.85);
  }, 60_000);
});
