// Issue 28 (what a user installs): the package npm users get runs no install script — none of its own,
// none of its production dependencies' — and still parses C with the grammar it ships in grammars/.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, emptyDir, removeDir } from './helpers.js';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** What npm runs on install (binding.gyp alone makes it run `node-gyp rebuild`). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

interface Manifest {
  name: string;
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

let work: string;
/** The unpacked tarball: what `npm install code-reader-mcp` puts in node_modules/code-reader-mcp. */
let packed: string;

beforeAll(async () => {
  work = await emptyDir();
  // The pnpm that runs the tests (pnpm test sets npm_execpath), else the one on PATH.
  const pnpm = process.env.npm_execpath?.match(/pnpm\.c?js$/)
    ? { command: process.execPath, args: [process.env.npm_execpath] }
    : { command: 'pnpm', args: [] };
  const { stdout } = await run(pnpm.command, [...pnpm.args, 'pack', '--pack-destination', work, '--json'], {
    cwd: PACKAGE_DIR,
    shell: pnpm.command === 'pnpm' && process.platform === 'win32',
  });
  const tarball = (JSON.parse(stdout) as { filename: string }).filename;
  // A relative name: GNU tar would read "C:\\…" as a remote host.
  await run('tar', ['xzf', path.basename(tarball)], { cwd: work });
  packed = path.join(work, 'package');
}, 60_000);
afterAll(async () => removeDir(work));

/** The folder of `name` as Node would find it from `from` (node_modules of `from` and its parents). */
async function packageDir(name: string, from: string): Promise<string | undefined> {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpath(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

async function manifestOf(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Why npm would run something of this package on install; empty when nothing. */
function installSteps(manifest: Manifest, dir: string): string[] {
  const steps = INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name] !== undefined).map(
    (name) => `${manifest.name}: scripts.${name} = ${manifest.scripts?.[name]}`,
  );
  if (existsSync(path.join(dir, 'binding.gyp')))
    steps.push(`${manifest.name}: binding.gyp (node-gyp rebuild)`);
  return steps;
}

describe('the packed package (npm pack)', () => {
  it('ships the C grammar with its license and provenance, unchanged', async () => {
    const files = await readdir(path.join(packed, 'grammars'));
    expect(files.sort()).toEqual(['README.md', 'tree-sitter-c.LICENSE', 'tree-sitter-c.wasm']);
    const provenance = await readFile(path.join(packed, 'grammars', 'README.md'), 'utf8');
    const recorded = /`tree-sitter-c\.wasm`[^\n]*`([0-9a-f]{64})`/.exec(provenance)?.[1];
    const wasm = await readFile(path.join(packed, 'grammars', 'tree-sitter-c.wasm'));
    expect(createHash('sha256').update(wasm).digest('hex')).toBe(recorded);
    expect(await readFile(path.join(packed, 'grammars', 'tree-sitter-c.LICENSE'), 'utf8')).toContain(
      'MIT License',
    );
  });

  it('runs no install script, nor does any of its production dependencies', async () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    const visit = async (dir: string, manifest: Manifest, resolveFrom: string) => {
      problems.push(...installSteps(manifest, dir));
      const names = [
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.optionalDependencies ?? {}),
      ];
      for (const name of names) {
        const found = await packageDir(name, resolveFrom);
        if (found === undefined) {
          // Only an optional dependency for another platform may be absent (ripgrep's binaries).
          if (!(name in (manifest.optionalDependencies ?? {}))) problems.push(`${name} is not installed`);
          continue;
        }
        if (seen.has(found)) continue;
        seen.add(found);
        await visit(found, await manifestOf(found), found);
      }
    };
    // The packed manifest, its dependencies as this workspace resolves them (core: the workspace's own).
    await visit(packed, await manifestOf(packed), PACKAGE_DIR);
    expect(seen.size).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('outlines C over stdio with the grammar it ships', async () => {
    // node_modules beside the unpacked package: its production dependencies, nothing else (so no
    // tree-sitter-c package could be found from it).
    const modules = path.join(work, 'node_modules');
    const manifest = await manifestOf(packed);
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const target = await packageDir(name, PACKAGE_DIR);
      expect(target, name).toBeDefined();
      await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
      await symlink(target as string, path.join(modules, name), 'junction');
    }
    await symlink(modules, path.join(packed, 'node_modules'), 'junction');
    expect(await packageDir('tree-sitter-c', packed)).toBeUndefined();
    const client = await spawnStdioClient(
      process.execPath,
      [path.join(packed, 'dist', 'index.cjs'), '--root', FIXTURE],
      {
        env: { XDG_CACHE_HOME: path.join(work, 'cache'), NODE_DISABLE_COMPILE_CACHE: '1' },
      },
    );
    try {
      const answer = await callTool(client.client, 'get_code_outline', {
        file_path: 'src/c/buffer.c',
        output_format: 'json',
      });
      expect(answer.error).toBeUndefined();
      expect(answer.structured).toMatchObject({ language: 'c' });
      const names = (answer.structured.outline as { name: string }[]).map((row) => row.name);
      expect(names).toContain('buffer_grow');
      expect(names).toContain('buffer');
    } finally {
      await client.close();
    }
  }, 60_000);
});
