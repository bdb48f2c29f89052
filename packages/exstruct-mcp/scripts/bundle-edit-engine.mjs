// The edit engine as one file (issue 26 §1, memory): dist/tools/edit-engine.js with every module it
// imports (the patch engine's ~100 modules, numfmt, yauzl) but @mcp-workbench/core and zod, as
// dist/tools/edit-engine.bundle.js, which the edit tools load on their first call (load-edit-engine.ts)
// instead of the server loading the modules at start. Core and zod stay modules of their own: the
// server's thread has them loaded already (one ToolError class, one zod). A bundled module that finds a
// file relative to its own URL (the fonts) is given its own URL, not the bundle's. The build imports
// the bundle once, so a bundle that does not load fails here.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTFILE = 'dist/tools/edit-engine.bundle.js';

/** `import.meta.url` in a bundled module of dist/ stays that module's URL. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      if (/import\.meta\.(dirname|filename|resolve)/.test(text))
        throw new Error(`bundle-edit-engine: ${args.path} uses import.meta beyond .url`);
      const relative = path.relative(path.dirname(path.join(root, OUTFILE)), args.path).replaceAll('\\', '/');
      const url = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

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
  plugins: [ownUrl],
  // The CommonJS packages (yauzl, numfmt) require Node's builtins.
  banner: {
    js: "import { createRequire as createBundleRequire } from 'node:module';\nconst require = createBundleRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});
try {
  await import(pathToFileURL(path.join(root, OUTFILE)).href);
} catch (error) {
  throw new Error('bundle-edit-engine: the bundle does not load', { cause: error });
}
