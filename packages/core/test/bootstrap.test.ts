import { spawn } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createToolServer,
  defineTool,
  parseCommonFlags,
  renderHelp,
  runStdioServer,
  type StdioServerSpec,
} from '../src/index.js';
import { callTool, spawnStdioClient, type SpawnedClient } from '../src/testing/index.js';

const distIndex = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let dir: string;
let serverScript: string;
let spawned: SpawnedClient | undefined;

// A minimal server built only from the published core API (dist), the way a server package uses it.
const serverSource = (coreUrl: string) => `
import { z } from 'zod';
import { createToolServer, defineTool, runStdioServer } from ${JSON.stringify(coreUrl)};
const head = defineTool({
  name: 'head', title: 'First line', description: 'First line of a file.', annotations: { readOnlyHint: true },
  input: { path: z.string() }, output: { line: z.string() },
  async run(args, { paths }) {
    const { readFile } = await import('node:fs/promises');
    const file = await paths.resolve(args.path, { mustExist: true, kind: 'file' });
    return { line: (await readFile(file, 'utf8')).split('\\n')[0] };
  },
});
await runStdioServer({
  name: 'demo-server', version: '9.8.7', description: 'a test server',
  flags: { mode: { type: 'string', choices: ['a', 'b'], default: 'a', description: 'A mode.' } },
  createServer: ({ paths, logger, flags }) => {
    logger.info('mode=' + flags.mode);
    return createToolServer({ name: 'demo-server', version: '9.8.7' }, [head], { paths, logger });
  },
});
`;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bootstrap-')));
  await writeFile(path.join(dir, 'notes.txt'), 'first line\nsecond line');
  // The script must resolve 'zod' like a package would: place it inside packages/core.
  serverScript = fileURLToPath(new URL('../.reports/demo-server.mjs', import.meta.url));
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.dirname(serverScript), { recursive: true });
  await writeFile(serverScript, serverSource(pathToFileURL(distIndex).href));
});

afterEach(async () => {
  await spawned?.close();
  spawned = undefined;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[], options: { stdin?: string } = {}) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(process.execPath, [serverScript, ...args], { stdio: 'pipe' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
      if (options.stdin !== undefined) child.stdin.end(options.stdin);
    },
  );
}

describe('runStdioServer over real stdio', () => {
  it('serves tools to a real client, with roots from --root, logs only on stderr', async () => {
    spawned = await spawnStdioClient(process.execPath, [serverScript, '--root', dir, '--mode', 'b']);
    const { tools } = await spawned.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['head']);
    const out = await callTool(spawned.client, 'head', { path: 'notes.txt' });
    expect(out.structured).toEqual({ line: 'first line' });
    const denied = await callTool(spawned.client, 'head', { path: '/etc/hostname' });
    expect(denied.error?.code).toBe('PATH_OUTSIDE_ROOT');
    expect(spawned.stderr()).toContain('mode=b');
    expect(spawned.stderr()).toContain('ready on stdio');
    expect(spawned.client.getServerVersion()).toMatchObject({ name: 'demo-server', version: '9.8.7' });
  });

  it('--structured-output (or MCP_STRUCTURED_OUTPUT=1) adds outputSchema and structuredContent; default is text only', async () => {
    spawned = await spawnStdioClient(process.execPath, [serverScript, '--root', dir]);
    expect((await spawned.client.listTools()).tools[0]).not.toHaveProperty('outputSchema');
    expect((await callTool(spawned.client, 'head', { path: 'notes.txt' })).structuredContent).toBeUndefined();
    await spawned.close();
    for (const [args, env] of [
      [['--structured-output'], {}],
      [[], { MCP_STRUCTURED_OUTPUT: '1' }],
    ] as const) {
      spawned = await spawnStdioClient(process.execPath, [serverScript, '--root', dir, ...args], { env });
      expect((await spawned.client.listTools()).tools[0]?.outputSchema?.properties).toHaveProperty('line');
      const out = await callTool(spawned.client, 'head', { path: 'notes.txt' });
      expect(out.structuredContent).toEqual({ line: 'first line' });
      expect(JSON.parse(out.text)).toEqual({ line: 'first line' });
      await spawned.close();
      spawned = undefined;
    }
  });

  it('accepts positional root directories', async () => {
    spawned = await spawnStdioClient(process.execPath, [serverScript, dir]);
    expect((await callTool(spawned.client, 'head', { path: 'notes.txt' })).isError).toBe(false);
  });

  it('exits 0 when stdin closes', async () => {
    const result = await run(['--root', dir], { stdin: '' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('stdin closed');
  });

  it('exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [serverScript, '--root', dir], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await expect.poll(() => stderr, { timeout: 30_000 }).toContain('ready');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM');
  });

  it('prints --help and --version on stdout and exits 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: demo-server');
    for (const flag of ['--root', '--deny-glob', '--log-level', '--log-file', '--mode'])
      expect(help.stdout).toContain(flag);
    const version = await run(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: '9.8.7\n' });
  });

  it('rejects unknown flags, bad choices and missing roots with exit code 2 and a message', async () => {
    const unknown = await run(['--rooot', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--rooot'");
    const choice = await run(['--mode', 'c']);
    expect(choice.code).toBe(2);
    expect(choice.stderr).toContain('--mode must be one of a, b');
    const missing = await run(['--root', path.join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Root directory does not exist');
  });

  it('writes the log to --log-file at the chosen --log-level', async () => {
    const logFile = path.join(dir, 'server.log');
    const result = await run(['--root', dir, '--log-level', 'debug', '--log-file', logFile], { stdin: '' });
    expect(result.code).toBe(0);
    const log = await readFile(logFile, 'utf8');
    expect(log).toContain('INFO [demo-server] mode=a');
  });
});

describe('runStdioServer in process', () => {
  const tool = defineTool({
    name: 'ping',
    title: 'Ping',
    description: 'Answers pong.',
    annotations: { readOnlyHint: true },
    input: {},
    output: { pong: z.boolean() },
    run: async () => ({ pong: true }),
  });
  const spec: StdioServerSpec = {
    name: 'inproc',
    version: '1.0.0',
    description: 'in-process server',
    createServer: ({ paths, logger }) =>
      createToolServer({ name: 'inproc', version: '1.0.0' }, [tool], { paths, logger }),
  };

  function io() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exits: number[] = [];
    return {
      streams: { stdin, stdout, stderr, exit: (code: number) => exits.push(code) },
      out: () => out,
      err: () => err,
      exits,
    };
  }

  it('answers JSON-RPC lines on stdout and exits 0 when stdin ends', async () => {
    const t = io();
    await runStdioServer(spec, ['--root', dir, '--log-level', 'silent'], t.streams);
    t.streams.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      }) + '\n',
    );
    await expect.poll(() => t.out()).toContain('"serverInfo"');
    expect(JSON.parse(t.out().split('\n')[0]!)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'inproc' } },
    });
    t.streams.stdin.end();
    await expect.poll(() => t.exits).toEqual([0]);
  });

  it('handles --help, --version and usage errors without starting', async () => {
    const help = io();
    await runStdioServer(spec, ['-h'], help.streams);
    expect(help.exits).toEqual([0]);
    expect(help.out()).toContain('Usage: inproc');
    const version = io();
    await runStdioServer(spec, ['-v'], version.streams);
    expect(version.out()).toBe('1.0.0\n');
    const bad = io();
    await runStdioServer(spec, ['--nope'], bad.streams);
    expect(bad.exits).toEqual([2]);
    expect(bad.err()).toContain('Usage: inproc');
  });
});

describe('parseCommonFlags', () => {
  it('collects repeatable roots and deny globs with defaults for the rest', () => {
    const flags = parseCommonFlags([
      '--root',
      '/a',
      '--deny-glob',
      '.env',
      '/b',
      '--root',
      '/c',
      '--deny-glob',
      '*.pem',
    ]);
    expect(flags).toMatchObject({
      roots: ['/a', '/c', '/b'],
      denyGlobs: ['.env', '*.pem'],
      logLevel: 'info',
      help: false,
    });
  });

  it('returns server flags with their defaults', () => {
    const spec = {
      'on-conflict': {
        type: 'string' as const,
        choices: ['overwrite', 'skip'],
        default: 'overwrite',
        description: 'x',
      },
    };
    expect(parseCommonFlags([], spec).extra).toEqual({ 'on-conflict': 'overwrite' });
    expect(parseCommonFlags(['--on-conflict', 'skip'], spec).extra).toEqual({ 'on-conflict': 'skip' });
    expect(() => parseCommonFlags(['--on-conflict', 'merge'], spec)).toThrow(
      /must be one of overwrite, skip/,
    );
  });

  it('reads --structured-output and MCP_STRUCTURED_OUTPUT, and refuses a value it cannot read', () => {
    expect(parseCommonFlags([], {}, {}).structuredOutput).toBe(false);
    expect(parseCommonFlags(['--structured-output'], {}, {}).structuredOutput).toBe(true);
    expect(parseCommonFlags([], {}, { MCP_STRUCTURED_OUTPUT: 'true' }).structuredOutput).toBe(true);
    expect(parseCommonFlags([], {}, { MCP_STRUCTURED_OUTPUT: '0' }).structuredOutput).toBe(false);
    expect(() => parseCommonFlags([], {}, { MCP_STRUCTURED_OUTPUT: 'maybe' })).toThrow(
      /MCP_STRUCTURED_OUTPUT/,
    );
  });

  it('renders help with every flag, its value name and default', () => {
    const text = renderHelp('x-mcp', 'does x', { fast: { type: 'boolean', description: 'Go fast.' } });
    expect(text).toContain('--fast');
    expect(text).toMatch(/--log-level <level>\s+Log verbosity/);
    expect(text).toContain('[default: info]');
  });
});
