// The bin runs the server's thread from the build's bundle (scripts/bundle-server.mjs): one file instead
// of ~290 modules. What a server has loaded is told from the module URLs its thread resolves.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, spawnStdioClient, writeResolveHook, type ResolveLog } from '@mcp-workbench/core/testing';
import packageJson from '../package.json' with { type: 'json' };
import { googleBackend, localBackend, tempDir, type BackendFixture, type StoreFixture } from './harness.js';
import { postgresBackend } from './pg/postgres-fixture.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const DIST = pathToFileURL(path.dirname(bin)).href + '/';

/** The bin's own modules, loaded before it picks the CLI or the server. */
const BIN_MODULES = ['index.js', 'cli-commands.js'];
/** The bundle's entries of the backends a local store does not use. */
const OTHER_BACKENDS = [
  'stdio-bundle/postgres-backend.js',
  'stdio-bundle/google-backend.js',
  'stdio-bundle/settings.js',
];

/** Node packages outside the bundle that the server resolved, by name. */
function packagesOf(urls: string[]): string[] {
  const names = urls.flatMap((url) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []);
  return [...new Set(names)];
}

let hookDir: string;
let hook: ResolveLog;
beforeAll(async () => {
  hookDir = await tempDir('prismind-bundled-');
  hook = await writeResolveHook(hookDir);
});
afterAll(async () => rm(hookDir, { recursive: true, force: true }));

/**
 * Starts the built bin on a store with the resolve hook, calls list_projects, and returns the module
 * URLs its thread resolved: this package's (relative to dist/) and the others.
 */
async function serve(store: StoreFixture): Promise<{ own: string[]; packages: string[] }> {
  await writeFile(hook.file, '');
  const args = ['--import', hook.register, bin, '--root', store.home];
  const spawned = await spawnStdioClient(process.execPath, args, { env: store.env });
  try {
    const listed = await callTool(spawned.client, 'list_projects', {});
    expect(listed.isError, listed.text).toBe(false);
  } finally {
    await spawned.close();
  }
  const urls = await hook.urls();
  const own = [...new Set(urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length)))];
  return { own, packages: packagesOf(urls.filter((url) => !url.startsWith(DIST))) };
}

/** The package's modules other than the bin's and the bundle's: a second copy of the server's code. */
const unbundled = (own: string[]) =>
  own.filter((file) => !BIN_MODULES.includes(file) && !file.startsWith('stdio-bundle/'));

describe('the built bin', () => {
  it('runs the bundled server; a local store loads neither the other backends nor the SDK and zod as modules', async () => {
    const store = await localBackend.create();
    try {
      const { own, packages } = await serve(store);
      expect(own).toContain('stdio-bundle/stdio-server.js'); // the hook sees the bundle at all
      expect(unbundled(own)).toEqual([]);
      expect(own.filter((file) => OTHER_BACKENDS.includes(file))).toEqual([]);
      // The native addon stays a package of its own; the SDK, zod and ajv are in the bundle.
      expect(packages).toContain('better-sqlite3');
      const backendClients = Object.keys(packageJson.peerDependencies); // pg, the Google clients
      for (const name of [...backendClients, '@modelcontextprotocol/sdk', 'zod', 'ajv'])
        expect(packages, name).not.toContain(name);
    } finally {
      await store.cleanup();
    }
  });

  const onDemand: { backend: BackendFixture; entry: string; client: string }[] = [
    { backend: postgresBackend, entry: 'stdio-bundle/postgres-backend.js', client: 'pg' },
    { backend: googleBackend, entry: 'stdio-bundle/google-backend.js', client: '@googleapis/sheets' },
  ];
  it.each(onDemand)(
    'loads the $backend.name backend from its entry in the bundle, $client from node_modules',
    async ({ backend, entry, client }) => {
      const store = await backend.create();
      try {
        const { own, packages } = await serve(store);
        expect(own).toContain(entry);
        expect(unbundled(own)).toEqual([]);
        expect(packages).toContain(client);
      } finally {
        await store.cleanup();
      }
    },
  );
});
