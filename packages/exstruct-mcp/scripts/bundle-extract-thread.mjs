// The extraction thread's code as one file (issue 26 §1, first calls): dist/jobs/extract-thread.js with
// every module it imports (the extraction engine's ~60 modules, yauzl, cfb) but @mcp-workbench/core, as
// dist/extract/extract-thread.bundle.js, which jobs.ts loads instead when it exists. A fresh thread
// loaded ~80 modules through Node's ES module loader (resolving, reading and compiling each) before its
// first job: ~0.27 s to ready, ~0.13 s for the one file (median of 8 at load ~2). Core stays a module of
// its own: the thread shares its ToolError class (errors keep their codes across the thread boundary) and
// its call-signal store with the rest of the package. The bundle sits beside the extraction modules
// because they find files relative to their own URL (the sheet parsing workers); the build fails if a
// bundled module elsewhere does so.
// The bundle imports core's worker entry where its modules import core's engine entry: the same
// classes, without the path policy, globs and logger that only the server's thread uses (a fresh thread
// loaded the engine entry in ~40 ms, the worker entry in ~20, load ~4). The build imports the bundle
// once, so a name the worker entry lacks fails here, not in a user's first extraction.
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REQUIRE_BANNER } from '../../../scripts/esbuild-bundles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BESIDE = 'dist/extract/';
const CORE_WORKER = '@mcp-workbench/core/worker';
/** Core's engine entry, imported by the bundled modules, as its worker entry. */
const coreWorkerEntry = {
  name: 'core-worker-entry',
  setup(build) {
    build.onResolve({ filter: /^@mcp-workbench\/core\/engine$/ }, () => ({
      path: CORE_WORKER,
      external: true,
    }));
  },
};
const OUTFILE = `${BESIDE}extract-thread.bundle.js`;
// The WebAssembly row kernel (src/extract/rows-kernel.ts) beside the bundle and the modules, which read it
// from there on a thread's first big sheet. A file rather than bytes embedded in the bundle: every
// extraction thread parses its bundle, and a workbook of small sheets never needs the kernel. `files`
// ships all of dist.
copyFileSync(path.join(root, 'native/rows-kernel.wasm'), path.join(root, BESIDE, 'rows-kernel.wasm'));
const result = await build({
  absWorkingDir: root,
  entryPoints: ['dist/jobs/extract-thread.js'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@mcp-workbench/core', '@mcp-workbench/core/*'],
  plugins: [coreWorkerEntry],
  banner: REQUIRE_BANNER,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
const elsewhere = Object.keys(result.metafile.inputs).filter(
  (input) =>
    !input.startsWith(BESIDE) &&
    /import\.meta\.(url|dirname|filename|resolve)/.test(readFileSync(path.join(root, input), 'utf8')),
);
if (elsewhere.length > 0) {
  throw new Error(
    `bundle-extract-thread: ${elsewhere.join(', ')} use import.meta, which in the bundle would be ${BESIDE}'s`,
  );
}
const core = readFileSync(path.join(root, OUTFILE), 'utf8').match(/from "@mcp-workbench\/core[^"]*"/g) ?? [];
const notWorker = [...new Set(core)].filter((from) => from !== `from "${CORE_WORKER}"`);
if (notWorker.length > 0)
  throw new Error(`bundle-extract-thread: the bundle imports ${notWorker.join(', ')}`);
try {
  await import(pathToFileURL(path.join(root, OUTFILE)).href);
} catch (error) {
  throw new Error(`bundle-extract-thread: the bundle does not load (${CORE_WORKER} lacks a name?)`, {
    cause: error,
  });
}
