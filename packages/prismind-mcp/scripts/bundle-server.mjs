// The server's own thread as one bundle (scripts/esbuild-bundles.mjs, bundleServerThread): dist/stdio-server.js
// with everything it imports (the MCP SDK, zod, ajv, @mcp-workbench/core) as dist/stdio-bundle/stdio-server.js,
// which the bin loads instead when it exists (index.ts). The modules of the PostgreSQL and Google backends
// stay on demand, as files of their own names there. On Node 20.20 a fresh server on the local store
// answered its handshake in ~350 ms instead of ~530 and held 70.7 MB instead of 80.1 (its ~290 modules).
// Left to Node (external):
// - better-sqlite3: a native addon, found beside its own code.
// - pg and the Google clients (the optional peer dependencies): a default install leaves them out, and a
//   missing one must be named when its backend is chosen (store/optional-packages.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleServerThread } from '../../../scripts/esbuild-bundles.mjs';
import packageJson from '../package.json' with { type: 'json' };

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await bundleServerThread(build, {
  root,
  entry: 'dist/stdio-server.js',
  outDir: path.join(root, 'dist', 'stdio-bundle'),
  external: ['better-sqlite3', ...Object.keys(packageJson.peerDependencies)],
});
