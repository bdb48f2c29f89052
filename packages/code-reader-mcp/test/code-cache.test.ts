// The bin's V8 code cache for Node 20 (src/start/code-cache.ts; issue 13: start time). Each load runs in
// a child process, since the cache is written when the process exits.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCacheDir } from '../src/start/code-cache.js';
import { copyFixture, removeDir } from './helpers.js';

const run = promisify(execFile);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const LOADER = path.join(DIST, 'start', 'code-cache.js');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'code-cache-'));
});
afterAll(async () => removeDir(dir));

/** Loads `file` through the cache in `cacheDir` in a new process: its exports' `value()` and the cache state. */
async function load(file: string, cacheDir: string): Promise<{ value: unknown; cache: string }> {
  const script = `
    import { loadWithCodeCache } from ${JSON.stringify(new URL(`file://${LOADER}`).href)};
    const loaded = loadWithCodeCache(process.argv[1], process.argv[2], (s) => import(s));
    console.log(JSON.stringify({ value: await loaded.exports.value(), cache: loaded.cache }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, file, cacheDir]);
  return JSON.parse(stdout) as { value: unknown; cache: string };
}

/** A CommonJS file whose value() uses a dynamic import, as the server bundle's ripgrep lookup does. */
function bundle(word: string): string {
  return `var importEsm = typeof __loaderImport === 'function' ? __loaderImport : (s) => import(s);
module.exports.value = async () => { const { sep } = await importEsm('node:path'); return '${word}' + sep; };\n`;
}

describe('code cache of the server bundle', () => {
  it('is written on the first run and used on the next, dynamic imports included', async () => {
    const file = path.join(dir, 'first.cjs');
    const cacheDir = path.join(dir, 'cache-1');
    await writeFile(file, bundle('one'));
    expect(await load(file, cacheDir)).toEqual({ value: `one${path.sep}`, cache: 'miss' });
    expect(await readdir(cacheDir)).toHaveLength(1);
    // Node 20 loses vm.Script's import() callback in code from a cache: hence __loaderImport.
    expect(await load(file, cacheDir)).toEqual({ value: `one${path.sep}`, cache: 'hit' });
  });

  it.runIf(process.platform === 'linux')(
    'lives in XDG_CACHE_HOME when it is absolute, else in ~/.cache',
    () => {
      expect(userCacheDir('x', { XDG_CACHE_HOME: '/var/cache/me' })).toBe('/var/cache/me/x');
      expect(userCacheDir('x', { XDG_CACHE_HOME: 'relative/dir' })).toBe(
        path.join(os.homedir(), '.cache', 'x'),
      );
    },
  );

  it('a server that keeps running writes its cache a second after it started', async () => {
    const file = path.join(dir, 'long.cjs');
    const cacheDir = path.join(dir, 'cache-long');
    await writeFile(file, bundle('long'));
    const script = `
      import { readdirSync } from 'node:fs';
      import { loadWithCodeCache } from ${JSON.stringify(new URL(`file://${LOADER}`).href)};
      loadWithCodeCache(process.argv[1], process.argv[2], (s) => import(s));
      setTimeout(() => { console.log(readdirSync(process.argv[2]).length); process.exit(0); }, 2000);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, file, cacheDir]);
    expect(stdout.trim()).toBe('1');
  });

  it('never runs the cached code of another bundle of the same length, and keeps one cache', async () => {
    const file = path.join(dir, 'changed.cjs');
    const cacheDir = path.join(dir, 'cache-2');
    await writeFile(file, bundle('AAA'));
    await load(file, cacheDir);
    await writeFile(file, bundle('BBB')); // V8 itself compares only the length of the source
    expect(await load(file, cacheDir)).toEqual({ value: `BBB${path.sep}`, cache: 'miss' });
    expect(await load(file, cacheDir)).toEqual({ value: `BBB${path.sep}`, cache: 'hit' });
    expect(await readdir(cacheDir)).toHaveLength(1);
  });

  it('a corrupt cache is rejected and rewritten; an unusable directory only costs the cache', async () => {
    const file = path.join(dir, 'corrupt.cjs');
    const cacheDir = path.join(dir, 'cache-3');
    await writeFile(file, bundle('ok'));
    await load(file, cacheDir);
    const [name] = await readdir(cacheDir);
    await writeFile(path.join(cacheDir, name!), Buffer.alloc(4096, 7));
    expect(await load(file, cacheDir)).toEqual({ value: `ok${path.sep}`, cache: 'rejected' });
    expect(await load(file, cacheDir)).toEqual({ value: `ok${path.sep}`, cache: 'hit' });

    const blocked = path.join(dir, 'not-a-dir');
    await writeFile(blocked, 'a file where the cache directory would go');
    expect(await load(file, path.join(blocked, 'cache'))).toEqual({ value: `ok${path.sep}`, cache: 'miss' });
  });

  it('the bin answers from a warm cache: search runs ripgrep, outline loads tree-sitter', async () => {
    const project = await copyFixture();
    const cacheHome = path.join(dir, 'xdg');
    await mkdir(cacheHome);
    try {
      for (const round of [1, 2]) {
        const client = await spawnStdioClient(
          process.execPath,
          [path.join(DIST, 'index.cjs'), '--root', project],
          {
            env: { XDG_CACHE_HOME: cacheHome, LOCALAPPDATA: cacheHome },
          },
        );
        try {
          const found = await callTool(client.client, 'search_content', {
            query: 'TODO',
            count_only_matches: true,
          });
          expect(found.text, `round ${round}`).toContain('# 2 matches in 2 files');
          const outline = await callTool(client.client, 'get_code_outline', {
            file_path: 'src/ts/service.ts',
          });
          expect(outline.isError, outline.text).toBe(false);
        } finally {
          await client.close();
        }
        // Node ≥ 22.1 uses its own compile cache instead (module.enableCompileCache).
        if (!('enableCompileCache' in module) && process.platform === 'linux') {
          expect(await readdir(path.join(cacheHome, 'code-reader-mcp'))).toHaveLength(1);
        }
      }
    } finally {
      await removeDir(project);
    }
  }, 120_000);
});
