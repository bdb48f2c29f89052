// The edit engine as one file (issue 26 §1, memory): dist/tools/edit-engine.js with every module it
// imports (the patch engine's ~100 modules, numfmt, yauzl) but @mcp-workbench/core and zod, as
// dist/tools/edit-engine.bundle.js, which the edit tools load on their first call (load-edit-engine.ts)
// instead of the server loading the modules at start. Core and zod stay modules of their own: the
// server's thread has them loaded already (one ToolError class, one zod). A bundled module that finds a
// file relative to its own URL (the fonts) is given its own URL, not the bundle's. The build imports
// the bundle once, so a bundle that does not load fails here.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ownImportMetaUrl, REQUIRE_BANNER } from '../../../scripts/esbuild-bundles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTFILE = 'dist/tools/edit-engine.bundle.js';

await build({
  absWorkingDir: root,
  entryPoints: ['dist/tools/edit-engine.js'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  charset: 'ascii',
  external: ['@mcp-workbench/core', '@mcp-workbench/core/*', 'zod', 'zod/*'],
  plugins: [
    ownImportMetaUrl('bundle-edit-engine', {
      dist: path.join(root, 'dist'),
      outDir: path.dirname(path.join(root, OUTFILE)),
    }),
  ],
  banner: REQUIRE_BANNER,
  legalComments: 'none',
  logLevel: 'warning',
});
try {
  await import(pathToFileURL(path.join(root, OUTFILE)).href);
} catch (error) {
  throw new Error('bundle-edit-engine: the bundle does not load', { cause: error });
}
