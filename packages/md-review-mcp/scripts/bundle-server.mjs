// The server as one bundle (scripts/esbuild-bundles.mjs, bundleServerThread): dist/stdio-server.js (the
// server, and the `link` command) with everything it imports, the MCP SDK, zod, ajv and
// @mcp-workbench/core included, as dist/stdio-bundle/stdio-server.js, which the bin loads instead when it
// exists (index.ts). The server loads nothing on demand, so that is the one file.
// - The modules that find files beside their own (the page in dist/ui, package.json, the repository's
//   desktop app) keep their URLs in dist/: those files are where they were.
// - `open` stays a package of its own: it runs the xdg-open script shipped beside its code.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleServerThread } from '../../../scripts/esbuild-bundles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await bundleServerThread(build, {
  root,
  entry: 'dist/stdio-server.js',
  outDir: path.join(root, 'dist', 'stdio-bundle'),
  external: ['open'],
});
