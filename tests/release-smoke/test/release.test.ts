import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runInspectorCli, spawnStdioClient, toolSchemaProblems } from '@mcp-workbench/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));

interface Published {
  dir: string;
  name: string;
  version: string;
  bin: Record<string, string>;
  private?: boolean;
}

/** Every package under packages/ that is published (not private). */
async function publishedPackages(): Promise<Published[]> {
  const dirs = await readdir(path.join(repo, 'packages'));
  const found: Published[] = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(
      await readFile(path.join(repo, 'packages', dir, 'package.json'), 'utf8'),
    ) as Published;
    if (!manifest.private)
      found.push({ ...manifest, dir: path.join(repo, 'packages', dir), bin: manifest.bin ?? {} });
  }
  return found;
}

/** A tool call each server answers in an empty project, from its installed files alone. */
const FIRST_CALL: Record<string, { name: string; arguments: Record<string, unknown> }> = {
  'exstruct-mcp': { name: 'exstruct_make', arguments: { out_path: 'smoke.xlsx', ops: [] } },
  'code-reader-mcp': { name: 'check_code_scale', arguments: { file_path: 'smoke.ts' } },
  // Lists the (empty) session folder: proves the server starts and its engine loads from the tarball.
  'md-review-mcp': { name: 'review.list', arguments: {} },
  // Opens (creates) its SQLite store in PRISMIND_HOME: the native addon must load.
  'prismind-mcp': { name: 'list_projects', arguments: {} },
};

/**
 * better-sqlite3's install script downloads a prebuilt addon (unreachable here) and otherwise compiles
 * SQLite for minutes. The smoke install gets the prebuild the way an offline mirror serves it: prebuild-
 * install's documented `npm_config_better_sqlite3_binary_host` points at a loopback server that hands out
 * the addon this workspace built (same version, pinned with an npm override, same Node ABI).
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
  const tarball = path.join(await mkdtemp(path.join(os.tmpdir(), 'smoke-prebuild-')), 'prebuild.tar.gz');
  await run('tar', ['-czf', tarball, '-C', dir, 'build/Release/better_sqlite3.node']);
  const expected = `/v${version}/better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const body = await readFile(tarball);
  const server = createServer((req, res) => {
    if (req.url === expected) res.writeHead(200, { 'content-type': 'application/gzip' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { env: { npm_config_better_sqlite3_binary_host: host }, version, server };
}

let project: string;
let packages: Published[];

beforeAll(async () => {
  packages = await publishedPackages();
  const tarballs = await mkdtemp(path.join(os.tmpdir(), 'smoke-tarballs-'));
  for (const pkg of packages) {
    await run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: pkg.dir });
  }
  project = await mkdtemp(path.join(os.tmpdir(), 'smoke-project-'));
  const mirror = await betterSqliteMirror();
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'smoke', private: true, overrides: { 'better-sqlite3': mirror.version } }),
  );
  // check_code_scale parses this with the TypeScript grammar shipped by the installed package's dependency.
  await writeFile(
    path.join(project, 'smoke.ts'),
    'export function add(a: number, b: number) {\n  return a + b;\n}\n',
  );
  const files = (await readdir(tarballs))
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => path.join(tarballs, f));
  // All tarballs at once, so the servers' dependency on @mcp-workbench/core is met by the packed core.
  try {
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...files],
      {
        cwd: project,
        env: { ...process.env, ...mirror.env },
      },
    );
  } finally {
    mirror.server.close();
  }
});

describe('published packages install from their tarballs and run', () => {
  it('packs every published package with only dist (and docs) and its licence inside', async () => {
    expect(packages.map((p) => p.name)).toEqual(expect.arrayContaining(['@mcp-workbench/core']));
    for (const pkg of packages) {
      const installed = path.join(project, 'node_modules', ...pkg.name.split('/'));
      const entries = await readdir(installed);
      expect(entries).toContain('dist');
      expect(entries).toContain('package.json');
      expect(entries).toContain('LICENSE');
      expect(entries.filter((e) => ['src', 'test', 'node_modules', 'tsconfig.json'].includes(e))).toEqual([]);
      // No build leftovers: maps point at src/, which is not shipped.
      const dist = await readdir(path.join(installed, 'dist'), { recursive: true });
      expect(dist.filter((f) => f.endsWith('.map') || f.endsWith('.tsbuildinfo'))).toEqual([]);
      // md-review serves its review page from the package itself (`npx -y md-review-mcp`).
      if (pkg.name === 'md-review-mcp') expect(dist).toContain(path.join('ui', 'index.html'));
    }
  });

  it('starts every server bin over stdio and lists its tools', async () => {
    const servers = packages.filter((p) => Object.keys(p.bin).some((b) => b.endsWith('-mcp')));
    expect(servers.length).toBeGreaterThan(0);
    for (const pkg of servers) {
      const binName = Object.keys(pkg.bin).find((b) => b.endsWith('-mcp'))!;
      const binPath = path.join(project, 'node_modules', '.bin', binName);
      const session = await spawnStdioClient(binPath, ['--root', project], {
        cwd: project,
        env: {
          MD_REVIEW_HOME: path.join(project, '.md-review'), // md-review keeps its sessions here
          PRISMIND_HOME: path.join(project, '.prismind'), // prismind's store
        },
      });
      try {
        const { tools } = await session.client.listTools();
        expect(tools.length, `${pkg.name} lists tools`).toBeGreaterThan(0);
        // One real call, so a runtime file missing from the tarball (a grammar, a schema) shows.
        const call = FIRST_CALL[pkg.name];
        expect(call, `a first call for ${pkg.name}`).toBeDefined();
        const result = await session.client.callTool(call!);
        expect(result.isError, `${pkg.name} ${call!.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        expect(session.client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version });
      } finally {
        await session.close();
      }
      const { stdout } = await run(binPath, ['--version']);
      expect(stdout.trim()).toBe(pkg.version);
    }
  });

  // Every server, including ones added later, is held to the same schema rules as the landed ones.
  it('every server declares portable JSON Schema 2020-12 input and output schemas (strict validator + MCP Inspector)', async () => {
    const servers = packages.filter((p) => Object.keys(p.bin).some((b) => b.endsWith('-mcp')));
    for (const pkg of servers) {
      const binName = Object.keys(pkg.bin).find((b) => b.endsWith('-mcp'))!;
      const binPath = path.join(project, 'node_modules', '.bin', binName);
      const args = ['--root', project, '--structured-output'];
      const session = await spawnStdioClient(binPath, args, { cwd: project });
      try {
        const { tools } = await session.client.listTools();
        expect(
          tools.filter((t) => !t.outputSchema).map((t) => t.name),
          `${pkg.name}: tools without outputSchema`,
        ).toEqual([]);
        expect(toolSchemaProblems(tools), pkg.name).toEqual([]);
      } finally {
        await session.close();
      }
      const inspected = await runInspectorCli('tools/list', binPath, args, { cwd: project });
      expect(inspected.exitCode, `${pkg.name}: ${inspected.stderr}`).toBe(0);
      expect(inspected.schemaFindings, pkg.name).toEqual([]);
    }
  });
});
