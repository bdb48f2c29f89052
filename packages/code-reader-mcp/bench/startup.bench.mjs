// Server start → first tools/list answer over stdio (issue 13's target: ≤ 300 ms), next to a bare Node
// start. The bin keeps its compiled code in a per-user cache (src/start/code-cache.ts on Node 20, Node's
// compile cache on Node ≥ 22.1): here in a fresh directory, so the first start of the run is the first
// start after an install (reported apart) and the median is of the starts after it.
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnStdioClient } from '@mcp-workbench/core/testing';
import { DIST, finish, fmt, median, report } from './lib/harness.mjs';

const run = promisify(execFile);
const rounds = 7;
const cache = await mkdtemp(path.join(os.tmpdir(), 'code-reader-bench-cache-'));
const env = { XDG_CACHE_HOME: cache, LOCALAPPDATA: cache, NODE_COMPILE_CACHE: cache };

async function start() {
  const started = performance.now();
  const client = await spawnStdioClient(process.execPath, [path.join(DIST, 'index.cjs'), '--root', DIST], {
    env,
  });
  const { tools } = await client.client.listTools();
  const ms = performance.now() - started;
  await client.close();
  if (tools.length !== 8) throw new Error(`expected 8 tools, got ${tools.length}`);
  return ms;
}

try {
  const first = await start();
  const starts = [];
  const bare = [];
  for (let i = 0; i < rounds; i++) {
    starts.push(await start());
    const t = performance.now();
    await run(process.execPath, ['-e', '']);
    bare.push(performance.now() - t);
  }
  const ms = median(starts);
  report(
    `start → first tools/list (stdio, spawn included, Node ${process.versions.node})`,
    `${fmt(ms)} median of ${rounds} (bare "node -e ''": ${fmt(median(bare))}; first start, cache empty: ${fmt(first)}) (target ≤ 300 ms)`,
    ms <= 300,
  );
} finally {
  await rm(cache, { recursive: true, force: true });
}
finish();
