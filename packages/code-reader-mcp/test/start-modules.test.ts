// Start time (issue 13): the built server loads only what answering needs. The `yaml` package (72
// modules, CommonJS) is for YAML answers, which this server never writes. The token-counting thread is
// not started by the start: the server starts it once idle after the handshake (issue 25).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callTool, commonJsModulesLoadedBy, spawnStdioClient } from '@mcp-workbench/core/testing';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { removeDir } from './helpers.js';

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const BIN = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

describe('modules loaded at start', () => {
  it('loading the server does not load yaml', async () => {
    const loaded = await commonJsModulesLoadedBy(SERVER);
    expect(loaded.length).toBeGreaterThan(0); // the check sees CommonJS modules at all
    expect(loaded.filter((file) => /[\\/]yaml[\\/]/.test(file))).toEqual([]);
  });

  it('the bin starts the tokenizer thread once idle after the handshake, without a call (issue 25)', async () => {
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
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // idle: a model takes its turn
      await client.close();
      await expect.poll(() => readFile(report, 'utf8').catch(() => ''), { timeout: 10_000 }).not.toBe('');
      const builtins = JSON.parse(await readFile(report, 'utf8')) as string[];
      expect(builtins).toContain('NativeModule vm'); // the report sees what the bin's loader loads
      // Started while idle, ahead of the first call, whose ripgrep walk it used to slow down.
      expect(builtins).toContain('NativeModule worker_threads');
    } finally {
      await removeDir(dir);
    }
  }, 60_000);

  it('a server whose ripgrep is missing still starts: the search says so, and the server goes on', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'code-reader-start-'));
    try {
      await writeFile(path.join(dir, 'a.txt'), 'hello\n');
      const client = await spawnStdioClient(process.execPath, [BIN, '--root', dir, '--log-level', 'error'], {
        env: { CODE_READER_RG_PATH: path.join(dir, 'no-such-rg') }, // what the start looks up ahead fails
      });
      try {
        const search = await callTool(client.client, 'search_content', { query: 'hello' });
        expect(search.isError).toBe(true);
        expect(search.text).toContain('BACKEND_UNAVAILABLE');
        const extracted = await callTool(client.client, 'extract_code_section', {
          file_path: 'a.txt',
          start_line: 1,
        });
        expect(extracted.isError, extracted.text).toBe(false);
        expect(extracted.text).toContain('hello');
      } finally {
        await client.close();
      }
    } finally {
      await removeDir(dir);
    }
  }, 60_000);

  it('a first search right after the handshake counts its page on the event loop, starting no thread', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'code-reader-start-'));
    try {
      // Enough rows that the page is cut by its tokens (it is counted), not only by its bytes.
      const lines = Array.from(
        { length: 400 },
        (_, i) => `const needle${i} = lookUp('needle', ${i}); // 日本語`,
      );
      await writeFile(path.join(dir, 'a.ts'), `${lines.join('\n')}\n`);
      const report = path.join(dir, 'builtins.json');
      const preload = path.join(dir, 'report.cjs');
      // The modules loaded when the call's answer is written (before any idle-time preparation).
      await writeFile(
        preload,
        `const fs = require('node:fs'); const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('"content"') && !fs.existsSync(${JSON.stringify(report)}))
    fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList));
  return write(chunk, ...rest);
};`,
      );
      const client = await spawnStdioClient(process.execPath, ['--require', preload, BIN, '--root', dir]);
      try {
        await client.client.listTools();
        const search = await callTool(client.client, 'search_content', {
          query: 'needle',
          max_answer_tokens: 1000,
        });
        expect(search.isError, search.text).toBe(false);
        expect(countTokens(search.text)).toBeLessThanOrEqual(1000);
        expect(countTokens(search.text)).toBeGreaterThan(800); // cut by its tokens: a count decided it
        expect(search.text).toContain('next_cursor');
      } finally {
        await client.close();
      }
      const builtins = JSON.parse(await readFile(report, 'utf8')) as string[];
      expect(builtins).toContain('NativeModule vm');
      expect(builtins).not.toContain('NativeModule worker_threads');
    } finally {
      await removeDir(dir);
    }
  }, 60_000);
});
