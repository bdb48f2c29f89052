// The published `code-reader-mcp` binary as one ES module (issue 13: start → first tools/list ≤ 300 ms).
// Loading ~300 small modules (the MCP SDK, zod, ajv, core) cost most of the start; one file costs one
// resolve and one compile. tsc still writes dist/ (the library export, types, the `code-reader` CLI);
// this overwrites dist/index.js (the bin) with a small entry that loads the bundle, dist/bundle-main.js,
// and adds the token-counting thread as dist/worker.js beside it, where the bundled counter's
// `new URL('./worker.js', import.meta.url)` looks. The bundle sits in dist/ itself, as src/version.ts
// reads '../package.json'. Names carry no hash, so each build overwrites the last one's files.
// Left external: packages that find files next to their own code at run time (ripgrep's binary,
// tree-sitter's .wasm grammars), the tokenizer's large rank tables, which only the thread loads, and
// re2js, which src/util/linear-regex.ts requires on the first pattern. (core requires `yaml` only for a
// YAML answer, which this server never gives: its output_format is "toon" or "json".)
import { defineConfig } from 'tsdown';

const KEEP_EXTERNAL = [
  /^@vscode\/ripgrep/,
  /^@vscode\/tree-sitter-wasm/,
  /^web-tree-sitter/,
  /^tree-sitter-c/,
  /^gpt-tokenizer/,
  /^re2js/,
];

export default defineConfig({
  entry: { index: 'src/index.ts', worker: 'src/tokens/worker.ts' },
  outDir: 'dist',
  clean: false,
  format: 'esm',
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
  outputOptions: { chunkFileNames: 'bundle-[name].js' },
  tsconfig: 'tsconfig.build.json',
  deps: {
    neverBundle: KEEP_EXTERNAL,
    alwaysBundle: (id) => !KEEP_EXTERNAL.some((pattern) => pattern.test(id)),
    onlyBundle: false,
  },
});
