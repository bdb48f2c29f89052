// list_files vs `rg --files` on a real tree of ≥ 30,000 files (issue 13: count ≤ 1.1×, listings ≤ 1.3× the
// time of rg). rg gets the flags the server passes it (RG_FLAGS), so both sides walk and filter the same way.
import { RG_FLAGS, connectServer, finish, fmt, report, runRg, sideBySide } from './lib/harness.mjs';
import { corpusSummary, ensureCorpus } from './lib/corpus.mjs';

const corpus = ensureCorpus();
console.log(`corpus: ${corpusSummary()}`);
const server = await connectServer(corpus);
const rounds = 5;

// Full walk: list_files counting every file vs rg --files printing every file.
let counted = 0;
let listed = 0;
const walk = await sideBySide(
  rounds,
  async () => {
    counted = (await server.call('list_files', { count_only: true })).structured.count;
  },
  async () => {
    listed = (await runRg(['--files', ...RG_FLAGS, '.'], corpus)).split('\n').filter(Boolean).length;
  },
);
console.log(`walked: ${listed} files (list_files counted ${counted})`);
report(
  'list_files count_only (whole tree) vs rg --files',
  `${fmt(walk.a)} vs ${fmt(walk.b)} → ${(walk.a / walk.b).toFixed(2)}× (target ≤ 1.1×)`,
  counted === listed && walk.a <= walk.b * 1.1,
);

// The largest listing with rows (10,000 files with size and mtime) vs rg listing the whole tree.
const rows = await sideBySide(
  rounds,
  () => server.call('list_files', { limit: 10_000, output_format: 'json' }),
  () => runRg(['--files', ...RG_FLAGS, '.'], corpus),
);
report(
  'list_files limit 10000 (rows with stat, first page) vs rg --files (whole tree)',
  `${fmt(rows.a)} vs ${fmt(rows.b)} → ${(rows.a / rows.b).toFixed(2)}× (target ≤ 1.3×)`,
  rows.a <= rows.b * 1.3,
);

// The default call an agent makes.
const first = await sideBySide(
  rounds,
  () => server.call('list_files', { extensions: 'ts' }),
  () => runRg(['--files', ...RG_FLAGS, '-g', '*.ts', '.'], corpus),
);
report(
  'list_files extensions=ts (default limit 2000, first page) vs rg --files -g *.ts',
  `${fmt(first.a)} vs ${fmt(first.b)} → ${(first.a / first.b).toFixed(2)}× (target ≤ 1.3×)`,
  first.a <= first.b * 1.3,
);

await server.close();
finish();
