// list_files and search_content against ripgrep at its best (issue 25): rg writing to a pipe that
// discards the output (`rg … | wc -c`, with the filters the server gives it; searches print `rg -n`
// rows, what an agent would read, which costs rg less than --json), each case on its own, the
// first call of a fresh server process timed as well as warm calls (server start excluded), best of
// ROUNDS, on a real tree with minified code and source maps (bench/lib/corpus.mjs). Target: every row
// ≤ 1.3× rg. Every row is printed; `CODE_READER_SPEED_CASES=word` runs only the cases whose label has it.
// The first call comes right after tools/list; `CODE_READER_SPEED_FIRST_AFTER_MS=1000` waits that long
// first, as a client's model takes its turn (the server prepares its first calls when idle: issue 25).
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { spawnStdioClient } from '@mcp-workbench/core/testing';
import { DIST, RG_FLAGS, finish, report, rgPath } from './lib/harness.mjs';
import { corpusSummary, ensureCorpus } from './lib/corpus.mjs';

const ROUNDS = 3;
const FIRST_AFTER_MS = Number(process.env.CODE_READER_SPEED_FIRST_AFTER_MS ?? 0);
const TARGET = 1.3;
const corpus = ensureCorpus();
console.log(`corpus: ${corpusSummary()}`);
console.log(
  `first calls: ${FIRST_AFTER_MS > 0 ? `${FIRST_AFTER_MS} ms after tools/list` : 'right after tools/list'}`,
);
const rg = await rgPath();

/** `rg args | wc -c` in the corpus: the time until both end, and the bytes rg wrote. */
function rgToPipe(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/bin/sh', ['-c', '"$0" "$@" | wc -c', rg, ...args], {
      cwd: corpus,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => resolve({ ms: performance.now() - started, bytes: Number(out.trim()) }));
  });
}

async function startServer() {
  const client = await spawnStdioClient(process.execPath, [path.join(DIST, 'index.cjs'), '--root', corpus]);
  await client.client.listTools(); // the start is not timed: initialize and tools/list are done
  if (FIRST_AFTER_MS > 0) await sleep(FIRST_AFTER_MS);
  return client;
}

/** One tools/call, timed from request to answer; the answer's text (not decoded: it is what a model reads). */
async function timedCall(client, name, args) {
  const started = performance.now();
  const raw = await client.client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const ms = performance.now() - started;
  const text = raw.content.map((block) => block.text ?? '').join('\n');
  if (raw.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${text}`);
  return { ms, text };
}

const best = (values) => Math.min(...values);
const list = (values) => values.map((v) => v.toFixed(0)).join('/');
const cursorOf = (text) => /^# next_cursor: (.+)$/m.exec(text)?.[1];

const search = (query, extra = {}) => ({ query, ...extra });
/** rg printing the rows an agent reads (`rg -n`), with the server's flags: cheaper for rg than --json. */
const rgSearch = (query, extra = []) => [
  '-n',
  ...RG_FLAGS,
  '--smart-case',
  '-m',
  '1000',
  ...extra,
  '-e',
  query,
  '.',
];

/** label, tool call, the rg reference; `next`: time the page after the first (warm only). */
const CASES = [
  {
    label: 'list_files count_only',
    tool: 'list_files',
    args: { count_only: true },
    rg: ['--files', ...RG_FLAGS, '.'],
  },
  {
    label: 'list_files limit 10000',
    tool: 'list_files',
    args: { limit: 10_000 },
    rg: ['--files', ...RG_FLAGS, '.'],
  },
  {
    label: 'list_files extensions=ts',
    tool: 'list_files',
    args: { extensions: 'ts' },
    rg: ['--files', ...RG_FLAGS, '-g', '*.ts', '.'],
  },
  {
    label: 'search getaddrinfo (rare)',
    tool: 'search_content',
    args: search('getaddrinfo'),
    rg: rgSearch('getaddrinfo'),
  },
  {
    label: 'search ZeroDivisionError (rare)',
    tool: 'search_content',
    args: search('ZeroDivisionError'),
    rg: rgSearch('ZeroDivisionError'),
  },
  {
    label: 'search toLowerCase, first page',
    tool: 'search_content',
    args: search('toLowerCase'),
    rg: rgSearch('toLowerCase'),
  },
  {
    label: 'search toLowerCase, next page',
    tool: 'search_content',
    args: search('toLowerCase'),
    rg: rgSearch('toLowerCase'),
    next: true,
  },
  {
    label: 'search return, first page',
    tool: 'search_content',
    args: search('return'),
    rg: rgSearch('return'),
  },
  {
    label: 'search TODO -A 2 -m 500, first page',
    tool: 'search_content',
    args: search('TODO', { context_after: 2, max_count: 500 }),
    rg: rgSearch('TODO', ['-m', '500', '-A', '2']),
  },
  {
    label: 'search return total_only',
    tool: 'search_content',
    args: search('return', { total_only: true }),
    rg: ['--count-matches', '--null', ...RG_FLAGS, '--smart-case', '-m', '1000', '-e', 'return', '.'],
  },
];

const only = process.env.CODE_READER_SPEED_CASES;
const rows = [];
for (const testCase of CASES.filter((c) => !only || c.label.includes(only))) {
  const first = [];
  const warm = [];
  const reference = [];
  let detail = '';
  for (let round = 0; round < ROUNDS; round++) {
    const client = await startServer();
    try {
      let args = testCase.args;
      if (testCase.next) {
        const page = await timedCall(client, testCase.tool, args);
        args = { ...args, cursor: cursorOf(page.text) };
      } else {
        first.push((await timedCall(client, testCase.tool, args)).ms);
      }
      const again = await timedCall(client, testCase.tool, args);
      warm.push(again.ms);
      const lines = again.text.split('\n');
      detail = lines.filter((line) => line.startsWith('# ') && !line.startsWith('# next_cursor')).join(' ');
      if (!detail) detail = again.text.replace(/\s+/g, ' ');
    } finally {
      await client.close();
    }
    reference.push((await rgToPipe(testCase.rg)).ms);
  }
  const rgBest = best(reference);
  const worst = Math.max(first.length ? best(first) : 0, best(warm));
  rows.push({ testCase, first, warm, reference, ratio: worst / rgBest });
  report(
    testCase.label,
    `first call ${first.length ? `${best(first).toFixed(0)} ms (${list(first)})` : '—'}, warm ${best(warm).toFixed(0)} ms (${list(warm)}), rg | wc -c ${rgBest.toFixed(0)} ms (${list(reference)}) → ${
      first.length ? `${(best(first) / rgBest).toFixed(2)}× first, ` : ''
    }${(best(warm) / rgBest).toFixed(2)}× warm (target ≤ ${TARGET}×)${detail ? `; ${detail.slice(0, 120)}` : ''}`,
    worst <= rgBest * TARGET,
  );
}

console.log('\n| case | first call of a fresh server | warm | rg to a pipe | ratio (first, warm) |');
console.log('| --- | --- | --- | --- | --- |');
for (const { testCase, first, warm, reference } of rows) {
  const rgBest = best(reference);
  const firstCell = first.length ? `${best(first).toFixed(0)} ms` : '—';
  const ratios = `${first.length ? `${(best(first) / rgBest).toFixed(2)}×, ` : ''}${(best(warm) / rgBest).toFixed(2)}×`;
  console.log(
    `| ${testCase.label} | ${firstCell} | ${best(warm).toFixed(0)} ms | ${rgBest.toFixed(0)} ms | ${ratios} |`,
  );
}
finish();
