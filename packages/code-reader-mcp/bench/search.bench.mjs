// search_content vs `rg --json` for the same query on a real tree of ≥ 30,000 files (target: ≤ 1.3×).
// rg gets the flags the server passes it and writes its whole output; the server reads it and answers
// the first page.
import { RG_FLAGS, connectServer, finish, fmt, report, runRg, sideBySide } from './lib/harness.mjs';
import { corpusSummary, ensureCorpus } from './lib/corpus.mjs';

const corpus = ensureCorpus();
console.log(`corpus: ${corpusSummary()}`);
const server = await connectServer(corpus);
const rounds = 5;
const matchesIn = (out) => out.split('\n').filter((line) => line.startsWith('{"type":"match"')).length;

// Rare identifiers (3–300 matches): a different query each round, so neither side profits from a cache.
const RARE = ['ZeroDivisionError', 'structuredClone', 'Uint8ClampedArray', 'getaddrinfo', 'WeakRef'];
const rare = (round) => RARE[(round + RARE.length) % RARE.length];
let ours = 0;
let theirs = 0;
const timing = await sideBySide(
  rounds,
  async (round) => {
    const result = await server.call('search_content', { query: rare(round), output_format: 'json' });
    ours = result.structured.total_matches;
  },
  async (round) => {
    // The same ripgrep flags the tool passes: --json, smart case, -m 1000.
    const out = await runRg(
      ['--json', ...RG_FLAGS, '--smart-case', '-m', '1000', '-e', rare(round), '.'],
      corpus,
    );
    theirs = matchesIn(out);
  },
);
report(
  'search_content, rare identifier vs rg --json (same query, whole tree)',
  `${fmt(timing.a)} vs ${fmt(timing.b)} → ${(timing.a / timing.b).toFixed(2)}× (target ≤ 1.3×); last query: ${ours} vs ${theirs} matching lines`,
  ours >= theirs && timing.a <= timing.b * 1.3,
);

// A common word (600,000 occurrences in 20,000 files): the first page and true totals vs rg's whole output.
const COMMON = ['return', 'Return', 'RETURN'];
let commonTotal = 0;
let commonLines = 0;
const common = await sideBySide(
  rounds,
  async (round) => {
    const result = await server.call('search_content', {
      query: COMMON[(round + 3) % 3],
      case: 'sensitive',
      output_format: 'json',
    });
    commonTotal = result.structured.total_matches ?? 0;
  },
  async (round) => {
    const out = await runRg(
      ['--json', ...RG_FLAGS, '--case-sensitive', '-m', '1000', '-e', COMMON[(round + 3) % 3], '.'],
      corpus,
    );
    commonLines = matchesIn(out);
  },
);
report(
  'search_content, common word, first page vs rg --json (whole output)',
  `${fmt(common.a)} vs ${fmt(common.b)} → ${(common.a / common.b).toFixed(2)}× (target ≤ 1.3×); last: total_matches ${commonTotal}, rg ${commonLines} matching lines`,
  common.a <= common.b * 1.3,
);

// With context lines (capped at max_count).
const context = await sideBySide(
  rounds,
  () =>
    server.call('search_content', {
      query: 'TODO',
      context_after: 2,
      max_count: 500,
      output_format: 'json',
    }),
  () => runRg(['--json', ...RG_FLAGS, '-m', '500', '-A', '2', '-e', 'TODO', '.'], corpus),
);
report(
  'search_content TODO, context_after=2, max_count=500 vs rg --json -A 2 -m 500 (whole tree)',
  `${fmt(context.a)} vs ${fmt(context.b)} → ${(context.a / context.b).toFixed(2)}× (target ≤ 1.3×)`,
  context.a <= context.b * 1.3,
);

// A repeated query comes from the cache only when the tree is small enough to stamp; here it is not.
const again = await server.call('search_content', { query: rare(0), output_format: 'json' });
console.log(
  `repeat of the same query on ${'>'}20,000 files: cache_hit=${again.structured.cache_hit} (large trees are not cached)`,
);

await server.close();
finish();
