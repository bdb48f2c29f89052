// search_content vs `rg --json` for the same query on a ≥ 50,000-file tree (target: ≤ 1.3×).
import { connectServer, finish, fmt, report, runRg, sideBySide } from './lib/harness.mjs';
import { ensureCorpus } from './lib/corpus.mjs';

const corpus = ensureCorpus();
const server = await connectServer(corpus);
const rounds = 5;

// A different query each round, so neither side profits from a cache (ours answers repeats from memory).
const query = (round) => `bench_marker_${(round + 7) % 7}`;
let ours = 0;
let theirs = 0;
const timing = await sideBySide(
  rounds,
  async (round) => {
    const result = await server.call('search_content', { query: query(round), output_format: 'json' });
    ours = result.structured.total_matches;
  },
  async (round) => {
    // The same ripgrep flags the tool passes: --json, smart case, -m 1000.
    const out = await runRg(['--json', '--smart-case', '-m', '1000', '-e', query(round), '.'], corpus);
    theirs = out.split('\n').filter((line) => line.startsWith('{"type":"match"')).length;
  },
);
report(
  'search_content vs rg --json (same query, whole tree)',
  `${fmt(timing.a)} vs ${fmt(timing.b)} → ${(timing.a / timing.b).toFixed(2)}× (target ≤ 1.3×); last query: ${ours} vs ${theirs} matches`,
  ours === theirs && timing.a <= timing.b * 1.3,
);

// With context lines and a common word (capped at max_count).
const context = await sideBySide(
  rounds,
  (round) =>
    server.call('search_content', {
      query: `section ${round * 10}:`,
      context_after: 2,
      max_count: 500,
      output_format: 'json',
    }),
  (round) =>
    runRg(['--json', '--smart-case', '-m', '500', '-A', '2', '-e', `section ${round * 10}:`, '.'], corpus),
);
report(
  'search_content context_after=2, max_count=500 vs rg --json -A 2 -m 500 (whole tree, no early stop for rg)',
  `${fmt(context.a)} vs ${fmt(context.b)} → ${(context.a / context.b).toFixed(2)}×`,
  context.a <= context.b * 1.3,
);

// A repeated query comes from the cache only when the tree is small enough to stamp; here it is not.
const again = await server.call('search_content', { query: query(0), output_format: 'json' });
console.log(
  `repeat of the same query on ${'>'}20,000 files: cache_hit=${again.structured.cache_hit} (large trees are not cached)`,
);

await server.close();
finish();
