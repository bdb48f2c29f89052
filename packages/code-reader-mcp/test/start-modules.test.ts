// Start time (issue 13): the built server loads only what answering needs. The `yaml` package (72
// modules, CommonJS) is for YAML answers, which this server never writes; the token-counting thread's
// node:worker_threads is for the first count.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commonJsModulesLoadedBy, spawnStdioClient } from '@mcp-workbench/core/testing';
import { removeDir } from './helpers.js';

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const BIN = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

describe('modules loaded at start', () => {
  it('loading the server does not load yaml', async () => {
    const loaded = await commonJsModulesLoadedBy(SERVER);
    expect(loaded.length).toBeGreaterThan(0); // the check sees CommonJS modules at all
    expect(loaded.filter((file) => /[\\/]yaml[\\/]/.test(file))).toEqual([]);
  });

  it('the bin answers tools/list without loading node:worker_threads', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'code-reader-start-'));
    try {
      const report = path.join(dir, 'builtins.json');
      const preload = path.join(dir, 'report.cjs');
      await writeFile(
        preload,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList)));`,
      );
      const client = await spawnStdioClient(process.execPath, ['--require', preload, BIN, '--root', dir]);
      expect((await client.client.listTools()).tools).toHaveLength(8);
      await client.close();
      await expect.poll(() => readFile(report, 'utf8').catch(() => ''), { timeout: 10_000 }).not.toBe('');
      const builtins = JSON.parse(await readFile(report, 'utf8')) as string[];
      expect(builtins).toContain('NativeModule vm'); // the report sees what the bin's loader loads
      expect(builtins).not.toContain('NativeModule worker_threads');
    } finally {
      await removeDir(dir);
    }
  }, 60_000);
});
