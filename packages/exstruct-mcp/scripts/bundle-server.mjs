// The server's own thread as one bundle (issue 26 §1, memory): dist/stdio-server.js with everything it
// imports, @mcp-workbench/core, the MCP SDK and zod included, as dist/stdio-bundle/stdio-server.js, the
// modules it loads on demand (the edit engine, the package reader, …) as files of their own names there
// and the code they share as chunks, which the bin loads instead when it exists (index.ts). Node's module
// loader costs memory per module: the SDK's server and zod, loaded as their ~300 modules, left a process
// at 68.8 MB resident on Node 20.20 and 82.0 MB on Node 24.22; the same code as one file, at 53.1 and
// 66.6 MB.
// - The bin's two modules (young-generation.js, heap-growth.js) stay the bin's: their state (the flags
//   set, the growth cap) is one for the process.
// - A bundled module of this package that finds a file relative to its own URL keeps its own URL.
//   Core's one such use (createRequire for yaml, loaded on demand) gets core's URL as Node resolves it
//   from here. The build fails on any other module that uses import.meta.
// - The lazy modules that have a bundle of their own for the threads (the edit engine's) are loaded from
//   this bundle's chunks on the server's thread: one core, one zod, one ToolError class there.
// The build starts the bundled server once (--help), so a bundle that does not load fails here.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ownImportMetaUrl, REQUIRE_BANNER } from './bundle-parts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(root, 'dist');
const OUTDIR = path.join(DIST, 'stdio-bundle');
/** The bin's modules, shared with the bundle rather than copied into it. */
const BIN_MODULES = new Set(['young-generation.js', 'heap-growth.js']);
const CORE = path.resolve(root, '../core');

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

const options = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // One-byte source text (V8 keeps every module's source); identifiers not minified, for readable stack traces.
  charset: 'ascii',
  minifyWhitespace: true,
  minifySyntax: true,
  // Every file in one directory, so that a module's URL relative to them (ownImportMetaUrl) holds in any of them.
  outdir: OUTDIR,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  plugins: [
    serverThread,
    ownImportMetaUrl('bundle-server', {
      dist: DIST,
      outDir: OUTDIR,
      elsewhere: (file) =>
        file.startsWith(path.join(CORE, 'dist') + path.sep)
          ? 'import.meta.resolve("@mcp-workbench/core")'
          : undefined,
    }),
  ],
  banner: REQUIRE_BANNER,
  legalComments: 'none',
  logLevel: 'warning',
};
const SERVER = 'dist/stdio-server.js';
// The modules the server loads on demand are entries of their own, named as they are (the edit engine is
// dist/stdio-bundle/edit-engine.js): what a server has loaded can be told from the files' names.
const { metafile } = await build({ ...options, entryPoints: [SERVER], write: false, metafile: true });
const onDemand = Object.values(metafile.inputs).flatMap((input) =>
  input.imports
    .filter((imported) => imported.kind === 'dynamic-import' && imported.path.startsWith('dist/'))
    .map((imported) => imported.path),
);
await build({ ...options, entryPoints: [SERVER, ...new Set(onDemand)] });
try {
  execFileSync(process.execPath, [path.join(OUTDIR, 'stdio-server.js'), '--help'], { stdio: 'pipe' });
} catch (error) {
  throw new Error(`bundle-server: the bundled server does not start\n${error.stderr ?? ''}`, {
    cause: error,
  });
}
