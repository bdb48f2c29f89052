// The one-click install: `pnpm bundle`'s MCP Bundles, unpacked into empty folders outside the repository
// the way Claude Desktop unpacks them (@anthropic-ai/mcpb's own unpackExtension), started exactly as each
// manifest's mcp_config says with a user_config filled in (getMcpConfigForManifest, the function Claude
// Desktop uses), then driven through a real MCP client.
//
// By default the bundles for this machine's platform and architecture are built here, from the tarballs
// and the npm install that global-setup.ts made. With MCPB_BUNDLES_DIR set (the release workflow, on
// each operating system), the bundles found there for this platform are checked instead.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { getMcpConfigForManifest, unpackExtension, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dependencyClosure } from '../../../scripts/bundle/closure.mjs';
import { addOtherArchitectures } from '../../../scripts/bundle/platform-parts.mjs';
import { FIRST_CALL, publishedPackages, repo, serversOf, SMOKE_TS, type Published } from './published.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const mcpbCli = path.join(path.dirname(require.resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');
const prebuilt = process.env.MCPB_BUNDLES_DIR;

interface Unpacked {
  file: string;
  bytes: number;
  dir: string;
  manifest: McpbManifestAny;
  pkg: Published;
}

let servers: (Published & { binName: string })[];
const bundles: Unpacked[] = [];
let scratch: string;

/** An empty folder outside the repository (under one scratch folder removed after the tests). */
function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(scratch, prefix));
}

/** The bundles in `dir` that claim this platform: <server>-<version>.mcpb and <server>-<version>-<platform>.mcpb. */
async function bundlesForThisPlatform(dir: string): Promise<Unpacked[]> {
  const found: Unpacked[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.mcpb')).sort()) {
    const pkg = servers.find(
      (s) =>
        file === `${s.name}-${s.version}.mcpb` || file === `${s.name}-${s.version}-${process.platform}.mcpb`,
    );
    if (!pkg) continue;
    // An empty folder outside the repository, as an installing client would use.
    const into = await tempDir(`mcpb-${pkg.name}-`);
    expect(
      await unpackExtension({ mcpbPath: path.join(dir, file), outputDir: into, silent: true }),
      file,
    ).toBe(true);
    const manifest = JSON.parse(await readFile(path.join(into, 'manifest.json'), 'utf8')) as McpbManifestAny;
    found.push({ file, bytes: (await stat(path.join(dir, file))).size, dir: into, manifest, pkg });
  }
  return found;
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'mcpb-test-'));
  servers = serversOf(await publishedPackages());
  let dir = prebuilt;
  if (!dir) {
    dir = await tempDir('mcpb-out-');
    const { stdout } = await run(
      process.execPath,
      [
        path.join(repo, 'scripts', 'bundle', 'bundle.mjs'),
        ...['--platform', process.platform, '--arch', process.arch, '--node-targets', 'current'],
        ...['--tarballs', inject('tarballs'), '--install-dir', inject('project'), '--out', dir],
      ],
      { env: { ...process.env, ...inject('mirrorEnv') }, maxBuffer: 16 * 1024 * 1024 },
    );
    console.log(`pnpm bundle (this platform, ${process.arch}, Node ${process.versions.node}):\n${stdout}`);
  }
  bundles.push(...(await bundlesForThisPlatform(dir)));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * Whether `version` satisfies `range`: ">=major.minor" (the packages' engines) or "^major.minor.patch"
 * alternatives joined by "||" (the Node.js lines a native bundle carries an addon for).
 */
function satisfies(version: string, range: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  const notBelow = (m: number, n: number, p: number) =>
    major > m || (major === m && (minor > n || (minor === n && patch >= p)));
  return range.split('||').some((part) => {
    const bound = /^\s*(>=|\^)(\d+)\.(\d+)(?:\.(\d+))?\s*$/.exec(part);
    if (!bound) return false;
    const [m, n, p] = [Number(bound[2]), Number(bound[3]), Number(bound[4] ?? 0)];
    return notBelow(m, n, p) && (bound[1] === '>=' || major === m);
  });
}

/** Folders a person picks in the install dialog, with the material the first calls read. */
async function userConfigFor(manifest: McpbManifestAny) {
  const allowed = await tempDir('mcpb-allowed-');
  const second = await tempDir('mcpb-allowed-');
  await writeFile(path.join(allowed, 'smoke.ts'), SMOKE_TS);
  await writeFile(path.join(second, 'second.ts'), SMOKE_TS);
  const store = path.join(await tempDir('mcpb-store-'), 'prismind');
  const values: Record<string, string | number | boolean | string[]> = {
    allowed_directories: [allowed, second],
    wait_seconds: 5,
    store_folder: store,
    backend: 'local',
    database_url: '',
  };
  const keys = Object.keys(manifest.user_config ?? {});
  expect(
    keys.filter((k) => !(k in values)),
    `${manifest.name}: user_config this test fills`,
  ).toEqual([]);
  return { userConfig: Object.fromEntries(keys.map((k) => [k, values[k]!])), allowed, second, store };
}

/** The command, arguments and environment a client computes from the manifest and the user's choices. */
async function mcpConfigFor(bundle: Unpacked, userConfig: Record<string, unknown>) {
  const home = os.homedir();
  const config = await getMcpConfigForManifest({
    manifest: bundle.manifest,
    extensionPath: bundle.dir,
    systemDirs: {
      HOME: home,
      DESKTOP: path.join(home, 'Desktop'),
      DOCUMENTS: path.join(home, 'Documents'),
      DOWNLOADS: path.join(home, 'Downloads'),
    },
    userConfig: userConfig as Parameters<typeof getMcpConfigForManifest>[0]['userConfig'],
    pathSeparator: path.sep,
  });
  expect(config, `${bundle.file}: mcp_config with every required value`).toBeDefined();
  // Nothing unreplaced reaches the server.
  expect(JSON.stringify(config)).not.toContain('${');
  return config!;
}

async function startAsManifestSays(bundle: Unpacked, userConfig: Record<string, unknown>, command?: string) {
  const config = await mcpConfigFor(bundle, userConfig);
  const sessions = await tempDir('mcpb-md-review-');
  // Started from the filesystem root, as a desktop app does: roots come from the user_config only.
  return spawnStdioClient(command ?? config.command, config.args ?? [], {
    cwd: path.parse(bundle.dir).root,
    env: { MD_REVIEW_HOME: sessions, ...config.env },
  });
}

describe('MCP Bundles (pnpm bundle)', () => {
  it('has one bundle per server for this platform, each valid for `mcpb validate`, and prints their sizes', async () => {
    const names = bundles.map((b) => b.pkg.name);
    if (!prebuilt) expect(names.sort()).toEqual(servers.map((s) => s.name).sort());
    else expect(names.length, `bundles for ${process.platform} in ${prebuilt}`).toBeGreaterThan(0);
    const lines: string[] = [];
    for (const bundle of bundles) {
      const { stdout } = await run(process.execPath, [
        mcpbCli,
        'validate',
        path.join(bundle.dir, 'manifest.json'),
      ]);
      expect(stdout, bundle.file).toContain('Manifest schema validation passes');
      expect(bundle.manifest).toMatchObject({ name: bundle.pkg.name, version: bundle.pkg.version });
      expect(bundle.manifest.compatibility?.platforms, bundle.file).toContain(process.platform);
      // The Node.js range a client checks before it installs (the package's own, or the lines whose
      // addon a native bundle carries) holds this Node.js.
      const range = bundle.manifest.compatibility?.runtimes?.node ?? '';
      expect(
        satisfies(process.versions.node, range),
        `${bundle.file}: Node ${process.versions.node} in ${range}`,
      ).toBe(true);
      // Only what runs: no tests, sources or type declarations of this workspace's packages.
      const own = await readdir(path.join(bundle.dir, 'node_modules', ...bundle.pkg.name.split('/')));
      expect(
        own.filter((e) => ['src', 'test', 'tsconfig.json'].includes(e)),
        bundle.file,
      ).toEqual([]);
      if (!prebuilt) {
        // Exactly the server's run-time dependencies as npm installed them: no dev dependency, none missing.
        const closure = await dependencyClosure(inject('project'), bundle.pkg.name);
        expect([...new Set(await packagesIn(bundle.dir))].sort(), bundle.file).toEqual(
          [...new Set(closure.values())].sort(),
        );
      }
      lines.push(`${bundle.file}: ${(bundle.bytes / 1024 / 1024).toFixed(1)} MB`);
    }
    console.log(`bundle sizes:\n  ${lines.join('\n  ')}`);
  });

  it('starts every bundle as its mcp_config says, lists the tools its manifest names and answers a call', async () => {
    for (const bundle of bundles) {
      const { userConfig, allowed, second, store } = await userConfigFor(bundle.manifest);
      const session = await startAsManifestSays(bundle, userConfig);
      try {
        const { tools } = await session.client.listTools();
        expect(tools.map((t) => t.name).sort(), bundle.file).toEqual(
          (bundle.manifest.tools ?? []).map((t) => t.name).sort(),
        );
        const call = FIRST_CALL[bundle.pkg.name]!;
        const result = await session.client.callTool(call);
        expect(
          result.isError,
          `${bundle.file} ${call.name}: ${JSON.stringify(result.content)}\n${session.stderr()}`,
        ).toBeFalsy();
        expect(session.client.getServerVersion()).toMatchObject({
          name: bundle.pkg.name,
          version: bundle.pkg.version,
        });
        // The user_config arrived: the first chosen folder is the first root, the store folder is used, and
        // a multiple-directory choice became one root per folder.
        if (bundle.pkg.name === 'exstruct-mcp') {
          await stat(path.join(allowed, 'smoke.xlsx'));
          // The one-click install keeps the server's safe default: a file it did not write is never replaced.
          await writeFile(path.join(allowed, 'mine.xlsx'), "not the server's");
          const again = await session.client.callTool({
            name: 'exstruct_make',
            arguments: { out_path: 'mine.xlsx', ops: [] },
          });
          expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
          expect(await readFile(path.join(allowed, 'mine.xlsx'), 'utf8')).toBe("not the server's");
          await stat(path.join(allowed, 'mine_1.xlsx'));
        }
        if (bundle.pkg.name === 'prismind-mcp') expect((await readdir(store)).length).toBeGreaterThan(0);
        if (bundle.pkg.name === 'code-reader-mcp') {
          const other = await session.client.callTool({
            name: 'check_code_scale',
            arguments: { file_path: path.join(second, 'second.ts') },
          });
          expect(other.isError, JSON.stringify(other.content)).toBeFalsy();
        }
      } finally {
        await session.close();
      }
    }
  });

  it('prismind-mcp: under a Node.js whose ABI it lacks, the bundle runs on an installed Node.js that has it', async (context) => {
    const bundle = bundles.find((b) => b.pkg.name === 'prismind-mcp');
    const other = await otherNodeOnPath();
    if (!bundle || !other) {
      // .ci/run's second run (Node 24 first on PATH, the system's Node 20 after it) exercises this.
      context.skip('needs a second Node.js with another ABI on PATH (CI run 2 has Node 24 and Node 20)');
      return;
    }
    const { userConfig, store } = await userConfigFor(bundle.manifest);
    const session = await startAsManifestSays(bundle, userConfig, other);
    try {
      const result = await session.client.callTool(FIRST_CALL['prismind-mcp']!);
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect((await readdir(store)).length).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
  });

  // The bundle's install dialog offers the postgres backend, whose client (pg) npx leaves out as an
  // optional peer: the bundle must carry it. .ci/run gives a real PostgreSQL (PRISMIND_REQUIRE_POSTGRES=1).
  it('prismind-mcp: the bundle runs its postgres backend as the install dialog offers it', async (context) => {
    const bundle = bundles.find((b) => b.pkg.name === 'prismind-mcp');
    if (!bundle) return expect(prebuilt, 'only a prebuilt set may lack prismind-mcp').toBeTruthy();
    // Every backend the dialog offers: the PostgreSQL client and the Google clients (auth login included).
    expect(await packagesIn(bundle.dir)).toEqual(
      expect.arrayContaining([
        'pg',
        '@googleapis/sheets',
        '@googleapis/drive',
        '@googleapis/docs',
        'google-auth-library',
      ]),
    );
    const url = process.env.PRISMIND_TEST_DATABASE_URL;
    if (!url) {
      expect(process.env.PRISMIND_REQUIRE_POSTGRES, 'PRISMIND_TEST_DATABASE_URL is required').not.toBe('1');
      context.skip('needs a PostgreSQL server (PRISMIND_TEST_DATABASE_URL; .ci/run starts one)');
      return;
    }
    const schema = `bundle_${process.pid}_${Date.now()}`;
    const database = new URL(url);
    database.searchParams.set('schema', schema);
    const { userConfig } = await userConfigFor(bundle.manifest);
    const session = await startAsManifestSays(bundle, {
      ...userConfig,
      backend: 'postgres',
      database_url: database.href,
    });
    try {
      const setup = await session.client.callTool({
        name: 'setup_project',
        arguments: { project: 'bundled', name: 'Bundled' },
      });
      expect(setup.isError, `${JSON.stringify(setup.content)}\n${session.stderr()}`).toBeFalsy();
      const listed = await session.client.callTool(FIRST_CALL['prismind-mcp']!);
      expect(JSON.stringify(listed.content)).toContain('bundled');
    } finally {
      await session.close();
    }
  });

  it("a per-platform bundle gets the other architecture's ripgrep package, checked for its platform", async () => {
    if (prebuilt) return; // the release's bundles carry both already (checked by the size line and by use)
    const stage = await tempDir('mcpb-arch-');
    const closure = await dependencyClosure(inject('project'), 'code-reader-mcp');
    const otherArch = process.arch === 'arm64' ? 'x64' : 'arm64';
    const added = await addOtherArchitectures(stage, closure, process.platform, [process.arch, otherArch]);
    expect(added).toEqual([
      expect.stringMatching(new RegExp(`^@vscode/ripgrep-${process.platform}-${otherArch}@`)),
    ]);
    const rg = path.join(stage, 'node_modules', '@vscode', `ripgrep-${process.platform}-${otherArch}`, 'bin');
    const binary = (await readdir(rg)).find((f) => f === 'rg' || f === 'rg.exe');
    expect(binary).toBeDefined();
    if (process.platform !== 'win32') expect((await stat(path.join(rg, binary!))).mode & 0o111).not.toBe(0);
  });
  it('prismind-mcp: a runtime the bundle has no SQLite addon for gets an error that says what to install', async () => {
    const bundle = bundles.find((b) => b.pkg.name === 'prismind-mcp');
    if (!bundle) return expect(prebuilt, 'only a prebuilt set may lack prismind-mcp').toBeTruthy();
    // The addons filed under an ABI no Node.js has: this runtime cannot load them and no Node.js on the
    // machine carries them (renamed back afterwards).
    const bindingDir = path.join(bundle.dir, 'node_modules', 'better-sqlite3', 'lib', 'binding');
    const names = await readdir(bindingDir);
    const moved = names.map((name) => [name, name.replace(/^node-v\d+/, 'node-v999')] as const);
    for (const [from, to] of moved) await rename(path.join(bindingDir, from), path.join(bindingDir, to));
    try {
      const { userConfig } = await userConfigFor(bundle.manifest);
      const config = await mcpConfigFor(bundle, userConfig);
      const failed = await run(config.command, config.args ?? [], {
        env: { ...process.env, ...config.env },
      }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain('its SQLite addon does not load');
      expect(failed?.stderr).toContain('ABI 999');
      expect(failed?.stderr).toContain('npx -y prismind-mcp');
    } finally {
      for (const [from, to] of moved) await rename(path.join(bindingDir, to), path.join(bindingDir, from));
    }
  });
});

/** The names of the packages under `dir`'s node_modules, nested ones included. */
async function packagesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  const modules = path.join(dir, 'node_modules');
  const entries = await readdir(modules).catch(() => [] as string[]);
  for (const entry of entries.filter((e) => !e.startsWith('.'))) {
    const dirs = entry.startsWith('@')
      ? (await readdir(path.join(modules, entry))).map((name) => path.join(modules, entry, name))
      : [path.join(modules, entry)];
    for (const pkgDir of dirs) {
      const { name } = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8')) as {
        name: string;
      };
      names.push(name, ...(await packagesIn(pkgDir)));
    }
  }
  return names;
}

/** A Node.js (>= 20.19) on PATH whose ABI differs from this one's, if there is one. */
async function otherNodeOnPath(): Promise<string | undefined> {
  const exe = process.platform === 'win32' ? 'node.exe' : 'node';
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const node = path.join(dir, exe);
    try {
      await stat(node);
      const { stdout } = await run(node, ['-p', 'process.versions.modules + " " + process.version']);
      const [abi, version] = stdout.trim().split(' ');
      const [major, minor] = version!.slice(1).split('.').map(Number);
      if (abi !== process.versions.modules && (major! > 20 || (major === 20 && minor! >= 19))) return node;
    } catch {
      // not there, or not runnable
    }
  }
  return undefined;
}
