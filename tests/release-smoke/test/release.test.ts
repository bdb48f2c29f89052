import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { runInspectorCli, spawnStdioClient, toolSchemaProblems } from '@mcp-workbench/core/testing';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { dependencyClosure } from '../../../scripts/bundle/closure.mjs';
import { FIRST_CALL, publishedPackages, type Published } from './published.js';

const run = promisify(execFile);

// global-setup.ts packed every published package and installed the tarballs into this empty project.
const project = inject('project');
/** Where the servers keep their state: inside the project (its --root), never in the user's home. */
const serverEnv = {
  MD_REVIEW_HOME: path.join(project, '.md-review'), // md-review keeps its sessions here
  PRISMIND_HOME: path.join(project, '.prismind'), // prismind's store
};
let packages: Published[];

beforeAll(async () => {
  packages = await publishedPackages();
});

/**
 * How a user's shell runs a server's bin: npm's shim in node_modules/.bin (its shebang and executable bit
 * are part of what is tested). On Windows the shim is a .cmd file, which only a shell runs: there the
 * installed file is run with Node, as the shim does.
 */
function installedBin(pkg: Published): [string, string[]] {
  const binName = Object.keys(pkg.bin).find((b) => b.endsWith('-mcp'))!;
  if (process.platform !== 'win32') return [path.join(project, 'node_modules', '.bin', binName), []];
  return [process.execPath, [path.join(project, 'node_modules', ...pkg.name.split('/'), pkg.bin[binName]!)]];
}

/** Bytes of the files of one installed package (its nested node_modules are other packages). */
async function packageBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') total += await packageBytes(full);
    else if (entry.isFile()) total += (await stat(full)).size;
  }
  return total;
}

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
      const [command, prefix] = installedBin(pkg);
      const session = await spawnStdioClient(command, [...prefix, '--root', project], {
        cwd: project,
        env: serverEnv,
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
      const { stdout } = await run(command, [...prefix, '--version']);
      expect(stdout.trim()).toBe(pkg.version);
    }
  });

  // What `npx -y <server>` puts on a user's disk: the server and its run-time dependency closure, as npm
  // installed it (README "What a user installs" quotes these lines).
  it("installs only run-time dependencies, and prints each server's installed size and package count", async () => {
    const servers = packages.filter((p) => Object.keys(p.bin).some((b) => b.endsWith('-mcp')));
    const lines: string[] = [];
    for (const pkg of servers) {
      const closure = await dependencyClosure(project, pkg.name, {
        withInstallOnly: true,
        withOptionalPeers: false,
      });
      const names = new Set(closure.values());
      // Tooling of this workspace never reaches a user.
      const tooling = [
        'typescript',
        'vitest',
        'turbo',
        'eslint',
        'prettier',
        'tsdown',
        'vite',
        '@types/node',
      ];
      expect(
        [...names].filter((n) => tooling.includes(n)),
        pkg.name,
      ).toEqual([]);
      expect(names, pkg.name).toContain('@mcp-workbench/core');
      let bytes = 0;
      for (const dir of closure.keys()) bytes += await packageBytes(dir);
      lines.push(`${pkg.name}: ${names.size} packages, ${(bytes / 1024 / 1024).toFixed(1)} MB installed`);
    }
    console.log(
      `installed with npm (${process.platform}-${process.arch}, Node ${process.version}):\n  ${lines.join('\n  ')}`,
    );
  });

  // Every server, including ones added later, is held to the same schema rules as the landed ones.
  it('every server declares portable JSON Schema 2020-12 input and output schemas (strict validator + MCP Inspector)', async () => {
    const servers = packages.filter((p) => Object.keys(p.bin).some((b) => b.endsWith('-mcp')));
    for (const pkg of servers) {
      const [command, prefix] = installedBin(pkg);
      const args = [...prefix, '--root', project, '--structured-output'];
      const session = await spawnStdioClient(command, args, { cwd: project, env: serverEnv });
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
      const inspected = await runInspectorCli('tools/list', command, args, {
        cwd: project,
        inspectorArgs: Object.entries(serverEnv).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
      });
      expect(inspected.exitCode, `${pkg.name}: ${inspected.stderr}`).toBe(0);
      expect(inspected.schemaFindings, pkg.name).toEqual([]);
    }
  });
});
