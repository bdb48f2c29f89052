// Server start → first tools/list answer over stdio (issue 13's target: ≤ 300 ms), next to a bare Node start.
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnStdioClient } from '@mcp-workbench/core/testing';
import { DIST, finish, fmt, median, report } from './lib/harness.mjs';

const run = promisify(execFile);
const rounds = 7;
const starts = [];
const bare = [];
for (let i = 0; i < rounds; i++) {
  const started = performance.now();
  const client = await spawnStdioClient(process.execPath, [path.join(DIST, 'index.js'), '--root', DIST]);
  const { tools } = await client.client.listTools();
  starts.push(performance.now() - started);
  await client.close();
  if (tools.length !== 9) throw new Error(`expected 9 tools, got ${tools.length}`);
  const t = performance.now();
  await run(process.execPath, ['-e', '']);
  bare.push(performance.now() - t);
}
const ms = median(starts);
report(
  'start → first tools/list (stdio, spawn included)',
  `${fmt(ms)} median of ${rounds} (bare "node -e ''": ${fmt(median(bare))}) (target ≤ 300 ms)`,
  ms <= 300,
);
finish();
