import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PathPolicy } from '@mcp-workbench/core';
import { connectInMemory } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logFlagsOf, type LogFlags } from '../src/config/logging.js';
import { createServer } from '../src/server.js';
import { localBackend, type StoreFixture } from './harness.js';

describe('[log] of config.toml', () => {
  let store: StoreFixture;
  beforeEach(async () => {
    store = await localBackend.create();
  });
  afterEach(async () => store.cleanup());

  /** Starts a server with this [log] section and the given command-line flags; returns what it logged. */
  async function start(log: string, flags: LogFlags = {}) {
    const configFile = path.join(store.home, 'config.toml');
    writeFileSync(configFile, `[log]\n${log}\n`);
    const lines: string[] = [];
    const paths = await PathPolicy.create({ roots: [store.home] });
    const server = await createServer({
      paths,
      env: store.env,
      configFile,
      logFlags: flags,
      logWrite: (line) => lines.push(line),
    });
    const connection = await connectInMemory(server);
    await connection.close();
    return lines;
  }

  it('format = "json" writes one JSON object per line, to stderr and to file (relative to the config, folder made)', async () => {
    const lines = await start('level = "INFO"\nformat = "json"\nfile = "logs/prismind.log"');
    const started = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.level === 'info');
    expect(started).toMatchObject({ name: 'prismind-mcp', message: expect.stringContaining('Store: local') });
    const file = readFileSync(path.join(store.home, 'logs/prismind.log'), 'utf8');
    expect(
      file
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toContainEqual(started);
  });

  it('level = "ERROR" keeps the info lines out; --log-level and --log-file given on the command line win', async () => {
    expect(await start('level = "ERROR"\nfile = "quiet.log"')).toEqual([]);
    const flagFile = path.join(store.home, 'flag.log');
    const loud = await start('level = "ERROR"\nfile = "quiet.log"', { level: 'info', file: flagFile });
    expect(loud.join('')).toMatch(/INFO \[prismind-mcp\] Store: local/);
    expect(readFileSync(flagFile, 'utf8')).toMatch(/Store: local/);
  });

  it('reads the flags from argv in both spellings, and only those given', () => {
    expect(logFlagsOf(['--root', '/x', '--log-level', 'debug', '--log-file=/tmp/a.log'])).toEqual({
      level: 'debug',
      file: '/tmp/a.log',
    });
    expect(logFlagsOf(['--root', '/x'])).toEqual({ level: undefined, file: undefined });
  });
});
