import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnStdioClient } from '@mcp-workbench/core/testing';
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

let project: string;
let packages: Published[];

beforeAll(async () => {
  packages = await publishedPackages();
  const tarballs = await mkdtemp(path.join(os.tmpdir(), 'smoke-tarballs-'));
  for (const pkg of packages) {
    await run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: pkg.dir });
  }
  project = await mkdtemp(path.join(os.tmpdir(), 'smoke-project-'));
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'smoke', private: true }));
  const files = (await readdir(tarballs))
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => path.join(tarballs, f));
  // All tarballs at once, so the servers' dependency on @mcp-workbench/core is met by the packed core.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...files], {
    cwd: project,
  });
});

describe('published packages install from their tarballs and run', () => {
  it('packs every published package with only dist (and docs) inside', async () => {
    expect(packages.map((p) => p.name)).toEqual(expect.arrayContaining(['@mcp-workbench/core']));
    for (const pkg of packages) {
      const installed = path.join(project, 'node_modules', ...pkg.name.split('/'));
      const entries = await readdir(installed);
      expect(entries).toContain('dist');
      expect(entries).toContain('package.json');
      expect(entries.filter((e) => ['src', 'test', 'node_modules', 'tsconfig.json'].includes(e))).toEqual([]);
    }
  });

  it('starts every server bin over stdio and lists its tools', async () => {
    const servers = packages.filter((p) => Object.keys(p.bin).some((b) => b.endsWith('-mcp')));
    expect(servers.length).toBeGreaterThan(0);
    for (const pkg of servers) {
      const binName = Object.keys(pkg.bin).find((b) => b.endsWith('-mcp'))!;
      const binPath = path.join(project, 'node_modules', '.bin', binName);
      const session = await spawnStdioClient(binPath, ['--root', project], { cwd: project });
      try {
        const { tools } = await session.client.listTools();
        expect(tools.length, `${pkg.name} lists tools`).toBeGreaterThan(0);
        expect(session.client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version });
      } finally {
        await session.close();
      }
      const { stdout } = await run(binPath, ['--version']);
      expect(stdout.trim()).toBe(pkg.version);
    }
  });
});
