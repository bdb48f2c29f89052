// Once per test run: packs every published package and installs the tarballs into an empty project with
// npm, as a user's `npx` would. The smoke test runs the installed servers; the bundle test builds its
// bundles from the same tarballs and the same install (both would otherwise repeat a minute of work).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { optionalPeerSpecs } from '../../../scripts/bundle/optional-peers.mjs';
import { publishedPackages, repo, SMOKE_TS } from './published.js';

const run = promisify(execFile);
// npm and pnpm are .cmd files on Windows, which only a shell runs.
const shell = process.platform === 'win32';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The packed tarballs of every published package. */
    tarballs: string;
    /** An npm project with every tarball installed (and smoke.ts). */
    project: string;
    /** Environment that points better-sqlite3's prebuilt downloads at the loopback mirror. */
    mirrorEnv: Record<string, string>;
  }
}

/**
 * better-sqlite3's install script downloads a prebuilt addon (unreachable here) and otherwise compiles
 * SQLite for minutes. Installs get the prebuild the way an offline mirror serves it: prebuild-install's
 * documented `npm_config_better_sqlite3_binary_host` points at a loopback server that hands out the addon
 * this workspace built (same version, pinned with an npm override, same Node ABI). It stays up for the
 * whole run: the bundler fetches the addon the same way.
 */
async function betterSqliteMirror(): Promise<{
  env: Record<string, string>;
  version: string;
  server: Server;
}> {
  const require = createRequire(path.join(repo, 'packages', 'prismind-mcp', 'package.json'));
  const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'smoke-prebuild-'));
  const tarball = path.join(scratch, 'prebuild.tar.gz');
  // A relative archive name: GNU tar (Git Bash's, on Windows) reads "C:\..." as a remote host.
  await run('tar', ['-czf', 'prebuild.tar.gz', '-C', dir, 'build/Release/better_sqlite3.node'], {
    cwd: scratch,
  });
  const expected = `/v${version}/better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const body = await readFile(tarball);
  await rm(scratch, { recursive: true, force: true });
  const server = createServer((req, res) => {
    if (req.url === expected) res.writeHead(200, { 'content-type': 'application/gzip' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { env: { npm_config_better_sqlite3_binary_host: host }, version, server };
}

export default async function setup(project: TestProject) {
  const packages = await publishedPackages();
  const tarballs = await mkdtemp(path.join(os.tmpdir(), 'smoke-tarballs-'));
  await Promise.all(
    packages.map((pkg) => run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: pkg.dir, shell })),
  );
  const smoke = await mkdtemp(path.join(os.tmpdir(), 'smoke-project-'));
  const mirror = await betterSqliteMirror();
  await writeFile(
    path.join(smoke, 'package.json'),
    JSON.stringify({ name: 'smoke', private: true, overrides: { 'better-sqlite3': mirror.version } }),
  );
  await writeFile(path.join(smoke, 'smoke.ts'), SMOKE_TS);
  const files = (await readdir(tarballs))
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => path.join(tarballs, f));
  // All tarballs at once, so the servers' dependency on @mcp-workbench/core is met by the packed core;
  // with the servers' optional peers (prismind's pg and Google clients), which the bundles carry. What
  // npx alone installs is measured without them (release.test.ts).
  const peers = optionalPeerSpecs(packages);
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...files, ...peers],
    {
      cwd: smoke,
      env: { ...process.env, ...mirror.env },
      shell,
    },
  );
  project.provide('tarballs', tarballs);
  project.provide('project', smoke);
  project.provide('mirrorEnv', mirror.env);
  return async () => {
    mirror.server.close();
    await rm(tarballs, { recursive: true, force: true });
    await rm(smoke, { recursive: true, force: true });
  };
}
