// What the build's bundles (bundle-*.mjs) share.
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
