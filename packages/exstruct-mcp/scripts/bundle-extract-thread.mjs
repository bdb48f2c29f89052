// The extraction thread's code as one file (issue 26 §1, first calls): dist/jobs/extract-thread.js with
// every module it imports (the extraction engine's ~60 modules, yauzl, cfb) but @mcp-workbench/core, as
// dist/extract/extract-thread.bundle.js, which jobs.ts loads instead when it exists. A fresh thread
// loaded ~80 modules through Node's ES module loader (resolving, reading and compiling each) before its
// first job: ~0.27 s to ready, ~0.13 s for the one file (median of 8 at load ~2). Core stays a module of
// its own: the thread shares its ToolError class (errors keep their codes across the thread boundary) and
// its call-signal store with the rest of the package. The bundle sits beside the extraction modules
// because they find files relative to their own URL (the sheet parsing workers); the build fails if a
// bundled module elsewhere does so.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BESIDE = 'dist/extract/';
const result = await build({
  absWorkingDir: root,
  entryPoints: ['dist/jobs/extract-thread.js'],
  outfile: `${BESIDE}extract-thread.bundle.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@mcp-workbench/core', '@mcp-workbench/core/*'],
  // The CommonJS packages (yauzl, cfb) require Node's builtins.
  banner: {
    js: "import { createRequire as createBundleRequire } from 'node:module';\nconst require = createBundleRequire(import.meta.url);",
  },
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
