// What the packages' esbuild bundles share: exstruct-mcp's thread bundles (its scripts/bundle-*.mjs) and
// each server's own thread as one bundle (bundleServerThread, below). esbuild is each package's own
// devDependency: a script passes its `build`.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The bundles' first lines: CommonJS packages bundled into ESM (yauzl, cfb, numfmt, ajv) call require. */
export const REQUIRE_BANNER = {
  js: "import { createRequire as createBundleRequire } from 'node:module';\nconst require = createBundleRequire(import.meta.url);",
};

/**
 * An esbuild plugin: a bundled module of `dist` that finds a file relative to its own URL
 * (`import.meta.url`) keeps its own URL, written relative to `outDir`, where the bundle's files are.
 * A module elsewhere gets `elsewhere(file)` (an expression), or the build fails when that is undefined;
 * as it does on import.meta.dirname, .filename or .resolve.
 */
export function ownImportMetaUrl(name, { dist, outDir, elsewhere = () => undefined }) {
  return {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.(c|m)?js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        if (/import\.meta\.(dirname|filename|resolve)/.test(text))
          throw new Error(`${name}: ${args.path} uses import.meta beyond .url`);
        let url;
        if (args.path.startsWith(dist + path.sep)) {
          const relative = path.relative(outDir, args.path).replaceAll('\\', '/');
          url = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
        } else url = elsewhere(args.path);
        if (url === undefined) throw new Error(`${name}: ${args.path} uses import.meta.url`);
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
      });
    },
  };
}

/**
 * Bundles a server's own thread (issue 26 §1, memory and start): `entry` (a module of the package's
 * dist, the server's stdio entry) with everything it imports, @mcp-workbench/core, the MCP SDK and zod
 * included, into `outDir` as a file of the entry's name; the modules it loads on demand (dynamic
 * import() of the package's dist) as entries of their own names beside it, and the code they share as
 * chunks. Node's module loader costs memory and time per module: a server whose SDK and zod were loaded
 * as their ~300 modules answered its handshake later and held ~10 MB more than the same code in one
 * file (exstruct-mcp, bench/HISTORY.md, 2026-11-29).
 * - A bundled module of the package that finds a file relative to its own URL keeps its own URL; core's
 *   one such use (createRequire for yaml) gets core's URL as Node resolves it from the package. The
 *   build fails on any other module that uses import.meta.
 * - `external`: packages left to Node (native addons, packages that find files beside their own code).
 * - The build starts the bundled entry once with `--help`, so a bundle that does not load fails here.
 * Returns the bundle's entry file.
 */
export async function bundleServerThread(build, { root, entry, outDir, plugins = [], external = [] }) {
  const dist = path.join(root, 'dist');
  const coreDist = path.join(root, '..', 'core', 'dist');
  const options = {
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // One-byte source text (V8 keeps every module's source); identifiers not minified, for readable
    // stack traces.
    charset: 'ascii',
    minifyWhitespace: true,
    minifySyntax: true,
    // Every file in one directory, so that a module's URL relative to them (ownImportMetaUrl) holds in
    // any of them.
    outdir: outDir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    external,
    plugins: [
      ...plugins,
      ownImportMetaUrl(`bundle of ${entry}`, {
        dist,
        outDir,
        elsewhere: (file) =>
          file.startsWith(coreDist + path.sep) ? 'import.meta.resolve("@mcp-workbench/core")' : undefined,
      }),
    ],
    banner: REQUIRE_BANNER,
    legalComments: 'none',
    logLevel: 'warning',
  };
  // The modules the server loads on demand are entries of their own, named as they are: what a server
  // has loaded can be told from the files' names.
  const { metafile } = await build({ ...options, entryPoints: [entry], write: false, metafile: true });
  const onDemand = Object.values(metafile.inputs).flatMap((input) =>
    input.imports
      .filter((imported) => imported.kind === 'dynamic-import' && imported.path.startsWith('dist/'))
      .map((imported) => imported.path),
  );
  await build({ ...options, entryPoints: [entry, ...new Set(onDemand)] });
  const bundled = path.join(outDir, path.basename(entry));
  try {
    execFileSync(process.execPath, [bundled, '--help'], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`The bundle of ${entry} does not start\n${error.stderr ?? ''}`, { cause: error });
  }
  return bundled;
}
