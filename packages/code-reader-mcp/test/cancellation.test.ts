// Cancellation at random moments and a server that always answers: the built server over stdio, on a
// generated tree big enough that every call below takes a while.
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  callTool,
  cancelAtRandomMoments,
  pingLatencyDuring,
  spawnStdioClient,
  type SpawnedClient,
  type ToolCallSpec,
} from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDir, removeDir } from './helpers.js';
import { decodeListText } from './answer-text.js';

const BIN = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));
const SEED = Number(process.env.CANCEL_SEED ?? Date.now() % 100_000);
let dir: string;
let server: SpawnedClient;

/** 120 TypeScript files of 125 lines, every fifth line a TODO: 15,000 lines, 3,000 matches. */
async function makeTree(root: string): Promise<string[]> {
  const files: string[] = [];
  for (let d = 0; d < 8; d++) {
    await mkdir(path.join(root, `pkg${d}`, 'src'), { recursive: true });
    for (let f = 0; f < 15; f++) {
      const lines: string[] = [];
      for (let i = 0; i < 25; i++) {
        lines.push(
          `export function handler${i}(input: number): number {`,
          `  // TODO(${d}.${f}.${i}): 日本語のコメント — check the bounds`,
          `  const value = input * ${i} + ${f};`,
          `  return value > ${d} ? value : -value;`,
          '}',
        );
      }
      const file = path.join(`pkg${d}`, 'src', `module_${f}.ts`);
      await writeFile(path.join(root, file), lines.join('\n'));
      files.push(file);
    }
  }
  // A name that makes a backtracking regex engine take exponential time on the pattern below.
  await writeFile(path.join(root, `${'a'.repeat(40)}!`), 'x');
  return files;
}

let files: string[];

beforeAll(async () => {
  dir = await emptyDir();
  files = await makeTree(dir);
  server = await spawnStdioClient(process.execPath, [BIN, '--root', dir, '--log-level', 'error']);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await removeDir(dir);
});

/** How long the call takes uncancelled (so the random moments fall inside the work). */
async function durationOf(call: ToolCallSpec): Promise<number> {
  const started = performance.now();
  const out = await callTool(server.client, call.name, call.arguments ?? {}, { timeout: 120_000 });
  expect(out.isError, out.text.slice(0, 300)).toBe(false);
  return performance.now() - started;
}

interface LongCall {
  name: string;
  /** Round `i`'s arguments: each round differs from the last, so no answer comes from a cache. */
  args: (i: number) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

const LONG_CALLS: LongCall[] = [
  // max_count above the 25 matches per file: the same work, another cache key.
  { name: 'search_content', args: (i) => ({ query: 'TODO', max_count: 1000 + i }) },
  { name: 'list_files', args: () => ({ pattern: 'module_\\d+' }) },
  {
    name: 'check_code_scale',
    // 40 files whose content changed since the last round (the analysis cache keys on content).
    args: async (i) => {
      const start = (((i % 3) + 3) % 3) * 40;
      const batch = files.slice(start, start + 40);
      await Promise.all(batch.map((file) => appendFile(path.join(dir, file), `\n// round ${i}\n`)));
      return { file_paths: batch };
    },
  },
];

describe('cancelled at random moments, 50 times per long-running tool', () => {
  for (const call of LONG_CALLS) {
    it(`${call.name}: the server answers ping after every cancel (seed ${SEED})`, async () => {
      const spec = async (i: number): Promise<ToolCallSpec> => ({
        name: call.name,
        arguments: await call.args(i),
      });
      await durationOf(await spec(-4)); // warm-up: grammars, tokenizer, JIT
      // The shortest of three: one slow run (a GC, a busy CI machine) would put most moments after the
      // answer, and too few calls would be cut to mean anything.
      const took = Math.min(
        await durationOf(await spec(-3)),
        await durationOf(await spec(-2)),
        await durationOf(await spec(-1)),
      );
      const report = await cancelAtRandomMoments(server.client, spec, {
        times: 50,
        maxDelayMs: took,
        seed: SEED,
      });
      expect(report.cancelled + report.answered).toBe(50);
      expect(report.cancelled).toBeGreaterThan(10);
      // The server still works normally afterwards.
      expect(await durationOf(await spec(50))).toBeGreaterThan(0);
    }, 180_000);
  }
});

describe('the event loop stays free', () => {
  // Quiet, the slowest ping during these calls is ~50 ms (one page rendered and counted at a time).
  // CI shares a 2-core machine with other work (load 15 seen), which stretched that to 2 s: the bound is
  // 5 s, still far below what a blocked loop shows (a catastrophic regex: 20 s; 4M cells of YAML: 58 s).
  const SLOW_PING_MS = 5000;

  it('a catastrophic list_files pattern answers at once and never blocks ping (linear-time regex)', async () => {
    const started = performance.now();
    const { result, slowestPingMs } = await pingLatencyDuring(
      server.client,
      callTool(server.client, 'list_files', { pattern: '^(a+)+$' }),
    );
    expect(result.isError).toBe(false);
    expect(decodeListText(result.text)).toMatchObject({ count: 0, files: [] });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(slowestPingMs).toBeLessThan(SLOW_PING_MS);
  });

  it('a catastrophic query_code filter answers at once and never blocks ping', async () => {
    const big = 'pkg0/src/module_1.ts';
    const { result, slowestPingMs } = await pingLatencyDuring(
      server.client,
      callTool(server.client, 'query_code', {
        file_path: big,
        query_key: 'functions',
        filter: `text~=^(\\w+\\s?)*$`,
      }),
    );
    expect(result.isError, result.text.slice(0, 200)).toBe(false);
    expect(slowestPingMs).toBeLessThan(SLOW_PING_MS);
  });

  it('look-around (not linear-time) is refused with a clear INVALID_ARGUMENT', async () => {
    const out = await callTool(server.client, 'list_files', { pattern: '(?<=a)b' });
    expect(out.error?.code).toBe('INVALID_ARGUMENT');
    expect(out.error?.hint).toContain('RE2');
  });

  for (const call of LONG_CALLS) {
    it(`${call.name}: ping answers while it runs`, async () => {
      // Once per process, loading the tokenizer's 2.4 MB rank table compiles for a while: warm up first.
      await durationOf({ name: call.name, arguments: await call.args(99) });
      const { result, slowestPingMs, pings } = await pingLatencyDuring(
        server.client,
        callTool(server.client, call.name, await call.args(100), { timeout: 120_000 }),
      );
      expect(result.isError).toBe(false);
      expect(pings).toBeGreaterThan(0);
      expect(slowestPingMs).toBeLessThan(SLOW_PING_MS);
    }, 120_000);
  }
});
