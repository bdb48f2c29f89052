// The server's own thread as one bundle (scripts/esbuild-bundles.mjs, bundleServerThread): dist/stdio-server.js
// with everything it imports as dist/stdio-bundle/stdio-server.js, the modules it loads on demand (the
// edit engine, the package reader, …) as files of their own names there, which the bin loads instead
// when it exists (index.ts). On Node 20.20 a server held 53.1 MB instead of 68.8 MB with the SDK's
// server and zod as modules (82.0 against 66.6 MB on Node 24.22).
// - The bin's two modules (young-generation.js, heap-growth.js) stay the bin's: their state (the flags
//   set, the growth cap) is one for the process.
// - The lazy modules that have a bundle of their own for the threads (the edit engine's) are loaded from
//   this bundle's chunks on the server's thread: one core, one zod, one ToolError class there.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleServerThread } from '../../../scripts/esbuild-bundles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(root, 'dist');
/** The bin's modules, shared with the bundle rather than copied into it. */
const BIN_MODULES = new Set(['young-generation.js', 'heap-growth.js']);

const serverThread = {
  name: 'server-thread',
  setup(build) {
    build.onResolve({ filter: /(young-generation|heap-growth)\.js$/ }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      if (!BIN_MODULES.has(path.basename(file)) || path.dirname(file) !== DIST) return undefined;
      return { path: `../${path.basename(file)}`, external: true };
    });
    // On the server's thread, lazy modules come from this bundle (see above).
    build.onResolve({ filter: /[\\/]import-bundled\.js$/ }, () => ({
      path: 'import-bundled',
      namespace: 'server-thread',
    }));
    build.onLoad({ filter: /.*/, namespace: 'server-thread' }, () => ({
      contents: 'export const importBundled = (_bundle, modules) => modules();',
      loader: 'js',
    }));
  },
};

await bundleServerThread(build, {
  root,
  entry: 'dist/stdio-server.js',
  outDir: path.join(DIST, 'stdio-bundle'),
  plugins: [serverThread],
});
