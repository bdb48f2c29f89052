#!/usr/bin/env node
// `pnpm bundle`: writes one MCP Bundle (.mcpb, for one-click install in Claude Desktop) per server into
// bundles/: <server>-<version>.mcpb for servers made of JavaScript and WASM only (every platform), and
// <server>-<version>-<platform>.mcpb for servers with per-platform binaries (code-reader-mcp: ripgrep;
// prismind-mcp: better-sqlite3), each carrying every CPU architecture of its platform.
//
// A bundle holds exactly what `npx -y <server>` installs: the packed tarballs of this workspace, installed
// by npm without dev dependencies or install scripts, then each server's run-time dependency closure.
//
//   node scripts/bundle/bundle.mjs [--servers a,b] [--platform linux|darwin|win32] [--arch x64,arm64]
//     [--node-targets 20.19.0,22.12.0|current] [--platform-only] [--out DIR]
//     [--tarballs DIR] [--install-dir DIR]
//
// --platform-only skips the every-platform bundles (the release builds those once, on Linux).
// --tarballs takes already packed tarballs; --install-dir an npm install of them for --platform and the
// first --arch (the release smoke test passes both, so one install serves every check).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { packExtension, validateManifest } from '@anthropic-ai/mcpb';
import { copyPackages, dependencyClosure } from './closure.mjs';
import { optionalPeerSpecs } from './optional-peers.mjs';
import { buildManifest, listTools, nodeRange } from './manifest.mjs';
import { addNativeAddons, addOtherArchitectures, platformBoundPackages } from './platform-parts.mjs';
import { ARCHES, RELEASE_NODE_TARGETS, SERVERS } from './servers.mjs';

const run = promisify(execFile);
const shell = process.platform === 'win32'; // npm and pnpm are .cmd files there
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

/** Files the servers never load: documentation and TypeScript sources of third-party packages. */
const MCPBIGNORE = `# Third-party documentation and TypeScript sources: never loaded at run time.
node_modules/**/README.md
node_modules/**/CHANGELOG.md
node_modules/**/HISTORY.md
node_modules/**/*.ts
node_modules/**/*.d.mts
node_modules/**/*.d.cts
# This workspace's own packages ship as published.
!node_modules/@mcp-workbench/**
`;

const { values: options } = parseArgs({
  options: {
    servers: { type: 'string' },
    platform: { type: 'string', default: process.platform },
    arch: { type: 'string' },
    'node-targets': { type: 'string' },
    'platform-only': { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(repo, 'bundles') },
    tarballs: { type: 'string' },
    'install-dir': { type: 'string' },
  },
});

const platform = options.platform;
if (!(platform in ARCHES)) throw new Error(`--platform must be one of ${Object.keys(ARCHES).join(', ')}`);
const arches = options.arch ? options.arch.split(',') : ARCHES[platform];
const nodeTargets =
  options['node-targets'] === 'current'
    ? [process.versions.node]
    : (options['node-targets']?.split(',') ?? RELEASE_NODE_TARGETS);
const out = path.resolve(options.out);

/** Every package under packages/ that is published (not private). */
async function publishedPackages() {
  const found = [];
  for (const dir of await readdir(path.join(repo, 'packages'))) {
    const manifest = JSON.parse(await readFile(path.join(repo, 'packages', dir, 'package.json'), 'utf8'));
    if (!manifest.private) found.push({ ...manifest, dir: path.join(repo, 'packages', dir) });
  }
  return found;
}

async function packTarballs(packages) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-tarballs-'));
  for (const pkg of packages) await run('pnpm', ['pack', '--pack-destination', dir], { cwd: pkg.dir, shell });
  return dir;
}

/**
 * npm installs the tarballs as a user's `npx` would, for the target platform and first architecture,
 * plus the servers' optional peers (backends npx leaves out, which a bundle offers).
 */
async function installTarballs(tarballDir, packages) {
  const project = await mkdtemp(path.join(os.tmpdir(), 'bundle-install-'));
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'bundle', private: true }));
  const tarballs = (await readdir(tarballDir)).filter((f) => f.endsWith('.tgz'));
  await run(
    'npm',
    [
      'install',
      '--omit=dev',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `--os=${platform}`,
      `--cpu=${arches[0]}`,
      ...tarballs.map((f) => path.join(tarballDir, f)),
      ...optionalPeerSpecs(packages),
    ],
    { cwd: project, shell, maxBuffer: 16 * 1024 * 1024 },
  );
  return project;
}

async function countFiles(dir) {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;
}

function megabytes(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function bundleServer(pkg, installRoot) {
  const started = Date.now();
  const server = SERVERS[pkg.name];
  const binPath = pkg.bin[Object.keys(pkg.bin).find((b) => b.endsWith('-mcp'))];
  const stage = await mkdtemp(path.join(os.tmpdir(), `bundle-${pkg.name}-`));
  const closure = await dependencyClosure(installRoot, pkg.name);
  await copyPackages(installRoot, closure.keys(), stage);
  const notes = [];
  let entry = `node_modules/${pkg.name}/${binPath}`;
  let node = `>=${pkg.engines.node.replace(/^>=\s*/, '')}`;
  if (server.perPlatform) {
    const added = await addOtherArchitectures(stage, closure, platform, arches);
    if (added.length > 0) notes.push(`added ${added.join(', ')}`);
    if (server.nativeAddon) {
      const placed = await addNativeAddons({
        installRoot,
        stage,
        addon: server.nativeAddon,
        platform,
        arches,
        nodeTargets,
      });
      notes.push(`${server.nativeAddon} for ${placed.map((p) => `${p.arch}/ABI ${p.abi}`).join(', ')}`);
      node = nodeRange(nodeTargets);
      entry = 'server/launch.cjs';
      await mkdir(path.join(stage, 'server'), { recursive: true });
      await copyFile(path.join(here, 'launch.cjs'), path.join(stage, entry));
      await writeFile(
        path.join(stage, 'server', 'launch.json'),
        `${JSON.stringify(
          {
            name: pkg.name,
            entry: `node_modules/${pkg.name}/${binPath}`,
            addon: `node_modules/${server.nativeAddon}`,
            nodeLines: nodeTargets.map((t) => t.split('.')[0]).join(', '),
          },
          null,
          2,
        )}\n`,
      );
    }
  } else {
    const bound = await platformBoundPackages(closure);
    if (bound.length > 0)
      throw new Error(`${pkg.name} needs platform-specific packages: ${bound.join(', ')}`);
  }
  // The client runs `node <entry>`; an executable entry also serves people who unpack the bundle by hand.
  // (Only when it is not one already: a staged file may be a hard link into the install.)
  const entryMode = (await stat(path.join(stage, entry))).mode;
  if (process.platform !== 'win32' && (entryMode & 0o111) === 0) {
    await copyFile(path.join(stage, entry), `${path.join(stage, entry)}.tmp`);
    await rm(path.join(stage, entry));
    await rename(`${path.join(stage, entry)}.tmp`, path.join(stage, entry));
    await chmod(path.join(stage, entry), 0o755);
  }
  // The tools the staged server lists (the one this bundle carries); a bundle for another platform lists
  // them from this workspace's build of the same version.
  const staged = path.join(stage, 'node_modules', ...pkg.name.split('/'), binPath);
  const tools = await listTools(repo, platform === process.platform ? staged : path.join(pkg.dir, binPath));
  const platforms = server.perPlatform ? [platform] : ['darwin', 'linux', 'win32'];
  const manifest = await buildManifest({ packageDir: pkg.dir, server, entry, tools, platforms, node });
  await writeFile(path.join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(stage, '.mcpbignore'), MCPBIGNORE);
  const file = path.join(out, `${pkg.name}-${pkg.version}${server.perPlatform ? `-${platform}` : ''}.mcpb`);
  const packing = Date.now();
  const log = console.log;
  console.log = () => {}; // validateManifest and packExtension print their verdict even when `silent`
  let packed;
  try {
    if (!validateManifest(path.join(stage, 'manifest.json')))
      throw new Error(`${pkg.name}: invalid manifest`);
    packed = await packExtension({ extensionPath: stage, outputPath: file, silent: true });
  } finally {
    console.log = log;
  }
  notes.push(
    `staged in ${((packing - started) / 1000).toFixed(1)} s, packed in ${((Date.now() - packing) / 1000).toFixed(1)} s`,
  );
  if (!packed) throw new Error(`${pkg.name}: mcpb pack failed`);
  const bytes = (await stat(file)).size;
  const sha256 = createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
  const files = await countFiles(stage);
  await rm(stage, { recursive: true, force: true });
  return { file, bytes, sha256, files, tools: tools.length, platforms, notes };
}

try {
  await main();
} catch (error) {
  console.error(`pnpm bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

async function main() {
  const packages = await publishedPackages();
  const wanted = options.servers?.split(',') ?? Object.keys(SERVERS);
  const servers = packages.filter(
    (p) =>
      wanted.includes(p.name) &&
      SERVERS[p.name] &&
      !(options['platform-only'] && !SERVERS[p.name].perPlatform),
  );
  const missing = wanted.filter((name) => !packages.some((p) => p.name === name));
  if (missing.length > 0) throw new Error(`not a published server of this workspace: ${missing.join(', ')}`);

  await mkdir(out, { recursive: true });
  const tarballs = options.tarballs ?? (await packTarballs(packages));
  const installRoot = options['install-dir'] ?? (await installTarballs(tarballs, packages));
  const results = [];
  for (const pkg of servers) {
    const result = await bundleServer(pkg, installRoot);
    results.push(result);
    console.log(
      `${path.relative(process.cwd(), result.file)}  ${megabytes(result.bytes)}  ` +
        `(${result.files} files, ${result.tools} tools, ${result.platforms.join('/')}` +
        `${result.notes.length ? `; ${result.notes.join('; ')}` : ''})`,
    );
  }
  // For the release: what was built, with the checksums a registry entry or a download page gives.
  await writeFile(
    path.join(out, `bundles-${options['platform-only'] ? platform : 'all'}.json`),
    `${JSON.stringify(
      results.map((r) => ({
        file: path.basename(r.file),
        bytes: r.bytes,
        sha256: r.sha256,
        platforms: r.platforms,
      })),
      null,
      2,
    )}\n`,
  );
  if (!options.tarballs) await rm(tarballs, { recursive: true, force: true });
  if (!options['install-dir']) await rm(installRoot, { recursive: true, force: true });
}
