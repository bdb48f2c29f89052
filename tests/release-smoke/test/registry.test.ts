// The official MCP Registry entries: every server's server.json is valid for the registry's published
// JSON Schema (vendored, with its licence and source), names the npm package and version that
// package.json has, and `pnpm version-packages` (the release's version step) keeps the two equal.
import { exec, execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { publishedPackages, repo, serversOf, type Published } from './published.js';

const run = promisify(execFile);
const shell = promisify(exec);
const vendor = path.join(repo, 'scripts', 'vendor', 'mcp-registry');
const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

interface Argument {
  type: string;
  name?: string;
  format?: string;
  isRepeated?: boolean;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string;
}
interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  description: string;
  repository: { url: string; source: string; subfolder: string };
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments: Argument[];
    environmentVariables: (Argument & { name: string })[];
  }[];
}

let servers: (Published & { binName: string })[];
beforeAll(async () => {
  servers = serversOf(await publishedPackages());
});

async function serverJson(pkg: Published): Promise<ServerJson> {
  return JSON.parse(await readFile(path.join(pkg.dir, 'server.json'), 'utf8')) as ServerJson;
}

describe('MCP Registry server.json', () => {
  it('vendors the registry schema 2025-12-11 unchanged, with its licence and source', async () => {
    const bytes = await readFile(path.join(vendor, 'server.schema.json'));
    const readme = await readFile(path.join(repo, 'scripts', 'vendor', 'README.md'), 'utf8');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(readme).toContain(sha256);
    expect(readme).toContain('modelcontextprotocol/registry');
    expect((JSON.parse(bytes.toString('utf8')) as { $id: string }).$id).toBe(SCHEMA_URL);
    expect(await readFile(path.join(vendor, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('every server has a server.json valid for that schema, naming its npm package at its version', async () => {
    const schema = JSON.parse(await readFile(path.join(vendor, 'server.schema.json'), 'utf8')) as object;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(servers.length).toBeGreaterThan(0);
    for (const pkg of servers) {
      const doc = await serverJson(pkg);
      expect(validate(doc), `${pkg.name}: ${JSON.stringify(validate.errors, null, 2)}`).toBe(true);
      expect(doc.$schema).toBe(SCHEMA_URL);
      expect(doc.name).toBe(pkg.mcpName);
      expect(doc.name).toBe(`io.github.mcp-workbench/${pkg.name}`);
      expect(doc.version).toBe(pkg.version);
      expect(doc.repository).toMatchObject({
        url: pkg.repository!.url.replace(/^git\+/, '').replace(/\.git$/, ''),
        source: 'github',
        subfolder: pkg.repository!.directory,
      });
      const [npm, ...rest] = doc.packages;
      expect(rest).toEqual([]);
      expect(npm).toMatchObject({
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: 'stdio' },
      });
      const root = npm!.packageArguments.find((a) => a.name === '--root');
      expect(root, `${pkg.name} --root`).toMatchObject({
        type: 'named',
        format: 'filepath',
        isRepeated: true,
      });
    }
    // The schema is strict where it matters: a name without a namespace is refused.
    const first = await serverJson(servers[0]!);
    expect(validate({ ...first, name: 'no-namespace' })).toBe(false);
  });

  it('says what --help says: every flag a user may set, no default the server does not have, --root optional', async () => {
    // Operator flags a client entry does not need: logging, and the structured output (also an env variable).
    const operator = new Set(['--help', '--version', '--log-level', '--log-file', '--structured-output']);
    for (const pkg of servers) {
      const args = (await serverJson(pkg)).packages[0]!.packageArguments;
      const { stdout: help } = await run(process.execPath, [
        path.join(pkg.dir, pkg.bin[pkg.binName]!),
        '--help',
      ]);
      const flags = [...help.matchAll(/^\s+(--[a-z-]+)/gm)].map((m) => m[1]!).filter((f) => !operator.has(f));
      expect(args.map((a) => a.name).sort(), pkg.name).toEqual(expect.arrayContaining(flags));
      for (const arg of args) {
        const line = help.split('\n').find((l) => l.trimStart().startsWith(`${arg.name} `)) ?? '';
        // A registry client may pass a declared default: it must be the server's own.
        if (arg.default !== undefined)
          expect(line, `${pkg.name} ${arg.name}`).toContain(`[default: ${arg.default}]`);
        if (/default: cwd/.test(line)) expect(arg.isRequired ?? false, `${pkg.name} ${arg.name}`).toBe(false);
      }
    }
  });

  it("describes only flags the server's --help lists and environment variables its code reads, secrets marked", async () => {
    const core = await readdir(path.join(repo, 'packages', 'core', 'dist'), { recursive: true });
    const coreText = (
      await Promise.all(
        core
          .filter((f) => f.endsWith('.js'))
          .map((f) => readFile(path.join(repo, 'packages', 'core', 'dist', f), 'utf8')),
      )
    ).join('\n');
    for (const pkg of servers) {
      const doc = await serverJson(pkg);
      const { stdout: help } = await run(process.execPath, [
        path.join(pkg.dir, pkg.bin[pkg.binName]!),
        '--help',
      ]);
      for (const arg of doc.packages[0]!.packageArguments)
        expect(help, `${pkg.name} --help`).toContain(arg.name);
      const dist = await readdir(path.join(pkg.dir, 'dist'), { recursive: true });
      const text =
        coreText +
        (
          await Promise.all(
            dist.filter((f) => /\.c?js$/.test(f)).map((f) => readFile(path.join(pkg.dir, 'dist', f), 'utf8')),
          )
        ).join('\n');
      for (const variable of doc.packages[0]!.environmentVariables) {
        expect(text, `${pkg.name} reads ${variable.name}`).toContain(variable.name);
        // A value that can carry a password is a secret.
        expect(variable.isSecret ?? false, variable.name).toBe(
          /DATABASE_URL|TOKEN|PASSWORD|SECRET/.test(variable.name),
        );
      }
    }
  });

  it('pnpm version-packages (changeset version + the sync script) gives server.json the new version', async () => {
    // A workspace of one server with one changeset, run through the release's version step as written.
    const pkg = servers.find((s) => s.name === 'exstruct-mcp') ?? servers[0]!;
    const root = await mkdtemp(path.join(os.tmpdir(), 'version-step-'));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const dir = path.join(root, 'packages', pkg.name);
    await mkdir(path.join(root, '.changeset'), { recursive: true });
    await mkdir(dir, { recursive: true });
    // This repository's changesets config; its changelog module is named by path, as a temporary folder
    // cannot resolve it.
    const config = JSON.parse(await readFile(path.join(repo, '.changeset', 'config.json'), 'utf8')) as {
      changelog: string;
    };
    config.changelog = createRequire(path.join(repo, 'package.json')).resolve(config.changelog);
    await writeFile(path.join(root, '.changeset', 'config.json'), JSON.stringify(config));
    await writeFile(
      path.join(root, '.changeset', 'a-change.md'),
      `---\n'${pkg.name}': minor\n---\n\nA change.\n`,
    );
    await writeFile(path.join(root, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'root', private: true }));
    const manifest = JSON.parse(await readFile(path.join(pkg.dir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete manifest.dependencies; // workspace:^ ranges need the rest of the workspace
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    const before = await readFile(path.join(pkg.dir, 'server.json'), 'utf8');
    await writeFile(path.join(dir, 'server.json'), before);
    await mkdir(path.join(root, 'scripts'));
    await cp(
      path.join(repo, 'scripts', 'sync-server-versions.mjs'),
      path.join(root, 'scripts', 'sync-server-versions.mjs'),
    );

    const scripts = (
      JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const bin = path.join(repo, 'node_modules', '.bin');
    await shell(scripts['version-packages']!, {
      cwd: root,
      env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    });

    const [major, minor] = pkg.version.split('.').map(Number);
    const next = `${major}.${minor! + 1}.0`;
    expect(JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'))).toMatchObject({
      version: next,
    });
    const after = await readFile(path.join(dir, 'server.json'), 'utf8');
    expect(JSON.parse(after)).toMatchObject({
      version: next,
      packages: [{ identifier: pkg.name, version: next }],
    });
    // Only the version strings changed: the file stays as written (and as prettier formats it).
    expect(after.replaceAll(`"version": "${next}"`, `"version": "${pkg.version}"`)).toBe(before);
    // The check mode agrees, and flags a server.json left behind.
    await run(process.execPath, [path.join(root, 'scripts', 'sync-server-versions.mjs'), '--check', root]);
    await writeFile(path.join(dir, 'server.json'), before);
    await expect(
      run(process.execPath, [path.join(root, 'scripts', 'sync-server-versions.mjs'), '--check', root]),
    ).rejects.toThrow(/behind its package.json/);
  });
});
