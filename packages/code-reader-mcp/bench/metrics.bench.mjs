// check_code_scale batch metrics of 200 files (target: ≤ 1 s), next to `wc -l` on the same files.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { connectServer, finish, fmt, median, report, time } from './lib/harness.mjs';
import { ensureCorpus } from './lib/corpus.mjs';

const run = promisify(execFile);
const corpus = ensureCorpus();
const dir = path.join('pkg3', 'mod5', 'part0');
const pick = [];
for (const part of readdirSync(path.join(corpus, 'pkg3'))) {
  for (const sub of readdirSync(path.join(corpus, 'pkg3', part))) {
    for (const file of readdirSync(path.join(corpus, 'pkg3', part, sub))) {
      if (pick.length < 200) pick.push(path.join('pkg3', part, sub, file));
    }
  }
}
void dir;
if (pick.length !== 200) throw new Error(`found only ${pick.length} files`);

// Cold: a fresh server (grammars and tokenizer load on first use) — what an agent's first call costs.
const cold = [];
const warm = [];
for (let i = 0; i < 3; i++) {
  const server = await connectServer(corpus);
  const first = await time(() =>
    server.call('check_code_scale', { file_paths: pick, metrics_only: true, output_format: 'json' }),
  );
  cold.push(first.ms);
  if (first.value.structured.count_files !== 200) throw new Error('not all files measured');
  warm.push((await time(() => server.call('check_code_scale', { file_paths: pick, metrics_only: true }))).ms);
  await server.close();
}
const wc = median(
  await Promise.all(
    [0, 1, 2].map(async () => (await time(() => run('wc', ['-l', ...pick], { cwd: corpus }))).ms),
  ),
);
report(
  'check_code_scale 200 files, first call (cold)',
  `${fmt(median(cold))} (target ≤ 1000 ms; wc -l on the same files: ${fmt(wc)})`,
  median(cold) <= 1000,
);
report('check_code_scale 200 files, warm', `${fmt(median(warm))}`, median(warm) <= 1000);
finish();
