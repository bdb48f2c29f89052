// The published `code-reader-mcp` binary (issue 13: start → first tools/list ≤ 300 ms). Loading ~300
// small modules (the MCP SDK, zod, ajv, core) cost most of a start; one file costs one read and one
// compile, and its compiled code can be cached. tsc still writes dist/ (the library export, types, the
// `code-reader` CLI); this adds:
// - dist/server-bundle.cjs: the server (src/main.ts) with everything it imports, as CommonJS, so that
//   Node 20 can compile it through vm.Script with a code cache (src/start/code-cache.ts); it sits in
//   dist/ itself, as src/version.ts reads '../package.json' and the token counter looks for
//   './worker.cjs' beside it; its dynamic import()s go through the loader (scripts/loader-imports-plugin.mjs);
// - dist/index.cjs (the bin): the small loader of that bundle (src/index.ts; tsc's dist/index.js is the
//   same loader unbundled, as an ES module);
// - dist/worker.cjs: the token-counting thread as one CommonJS file (a fresh thread's ES module loader
//   cost ~50 ms of CPU beside ripgrep's walk on a first search).
// Names carry no hash, so each build overwrites the last one's files.
// Left external: packages that find files next to their own code at run time (ripgrep's binary,
// tree-sitter's .wasm grammars), gpt-tokenizer's large o200k module, which counting loads only without
// the build's rank table (its pre-token pattern, encodingParams/constants, 1 kB, is bundled), and
// re2js, which src/util/linear-regex.ts requires on the first pattern. (core requires `yaml` only for a
// YAML answer, which this server never gives: its output_format is "toon" or "json".)
import { defineConfig } from 'tsdown';
import { loaderImports } from './scripts/loader-imports-plugin.mjs';

const KEEP_EXTERNAL = [
  /^@vscode\/ripgrep/,
  /^@vscode\/tree-sitter-wasm/,
  /^web-tree-sitter/,
  /^gpt-tokenizer\/encoding\//,
  /^re2js/,
];

const common = {
  outDir: 'dist',
  clean: false,
  platform: 'node',
  target: 'node20.19',
  dts: false,
  sourcemap: false,
  // Half the bytes to read and parse at each start; names kept, so stack traces and code that reads
  // `.name` (error classes) stay as they were.
  minify: { compress: true, mangle: { keepNames: true } },
  logLevel: 'warn',
  fixedExtension: false,
  hash: false,
  tsconfig: 'tsconfig.build.json',
  deps: {
    neverBundle: KEEP_EXTERNAL,
    alwaysBundle: (id) => !KEEP_EXTERNAL.some((pattern) => pattern.test(id)),
    onlyBundle: false,
  },
};

export default defineConfig([
  {
    ...common,
    entry: { 'server-bundle': 'src/main.ts' },
    format: 'cjs',
    // tsdown advises ESM for libraries; this file is loaded only by our own bin (see above).
    checks: { legacyCjs: false },
    plugins: [loaderImports()],
  },
  // CommonJS too: an ES module as the main entry costs Node 20 its ESM loader and an ESM wrapper per
  // builtin the loader imports, before anything is read.
  { ...common, entry: { index: 'src/index.ts' }, format: 'cjs', checks: { legacyCjs: false } },
  {
    ...common,
    entry: { worker: 'src/tokens/worker.ts' },
    format: 'cjs',
    checks: { legacyCjs: false },
    outputOptions: { codeSplitting: false },
  },
]);
