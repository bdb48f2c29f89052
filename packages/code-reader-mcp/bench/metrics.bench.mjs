// check_code_scale batch metrics of 200 real files (target: ≤ 1 s), next to `wc -l` on the same files.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIST, RG_FLAGS, connectServer, finish, fmt, median, report, runRg, time } from './lib/harness.mjs';
import { ensureCorpus } from './lib/corpus.mjs';

const run = promisify(execFile);
const corpus = ensureCorpus();
// 200 real source files spread over the tree: TypeScript, JavaScript, Python, C headers, in path order.
const sources = (await runRg(['--files', ...RG_FLAGS, '-g', '*.{ts,js,py,h}', '.'], corpus))
  .split('\n')
  .filter(Boolean)
  .sort();
const step = Math.floor(sources.length / 200);
const pick = Array.from({ length: 200 }, (_, i) => sources[i * step]);
const batch = { file_paths: pick, metrics_only: true, output_format: 'json' };

// Cold: a fresh process (grammars and tokenizer load on first use) — what an agent's first call costs.
if (process.argv[2] === '--child') {
  const server = await connectServer(corpus);
  const first = await time(() => server.call('check_code_scale', batch));
  if (first.value.structured.count_files !== 200) throw new Error('not all files measured');
  await server.close();
  console.log(JSON.stringify({ ms: first.ms }));
  process.exit(0);
}
const self = fileURLToPath(import.meta.url);
const cold = [];
for (let i = 0; i < 3; i++) {
  const { stdout } = await run(process.execPath, [self, '--child']);
  cold.push(JSON.parse(stdout.trim().split('\n').pop()).ms);
}

// Warm: grammars loaded; files not seen before (cache cleared), then the same files again (cache hits).
const { analysisCache } = await import(path.join(DIST, 'code/analyze.js'));
const server = await connectServer(corpus);
await server.call('check_code_scale', batch);
const fresh = [];
const repeat = [];
for (let i = 0; i < 5; i++) {
  analysisCache.clear();
  fresh.push((await time(() => server.call('check_code_scale', batch))).ms);
  repeat.push((await time(() => server.call('check_code_scale', batch))).ms);
}
await server.close();
const wc = median(
  await Promise.all(
    [0, 1, 2].map(async () => (await time(() => run('wc', ['-l', ...pick], { cwd: corpus }))).ms),
  ),
);
report(
  'check_code_scale 200 files, first call of a new process (cold)',
  `${fmt(median(cold))} (target ≤ 1000 ms; wc -l on the same files: ${fmt(wc)})`,
  median(cold) <= 1000,
);
report(
  'check_code_scale 200 files, warm, files not measured before',
  `${fmt(median(fresh))} (target ≤ 1000 ms)`,
  median(fresh) <= 1000,
);
report(
  'check_code_scale 200 files, warm, same files again (content-hash cache)',
  `${fmt(median(repeat))}: ${(median(repeat) / median(fresh)).toFixed(2)}× the first measurement (target ≤ 1.0×)`,
  median(repeat) <= median(fresh),
);
finish();
