import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToolServer, runStdioServer } from '../src/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

// Shutdown, broken pipes and malformed input, against a real child process built from dist.
const distIndex = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const serverScript = fileURLToPath(new URL('../.reports/lifecycle-server.mjs', import.meta.url));
const serverSource = `
import { z } from 'zod';
import { createToolServer, defineTool, runStdioServer, withAtomicFile } from ${JSON.stringify(pathToFileURL(distIndex).href)};
// Streams a file through withAtomicFile in slow chunks and, like many engines, ignores its signal.
const slowWrite = defineTool({
  name: 'slow_write', title: 'Slow write', description: 'x', annotations: {},
  input: { path: z.string(), chunks: z.number(), delay_ms: z.number() }, output: { ok: z.boolean() },
  async run(args, { paths }) {
    const file = await paths.resolve(args.path);
    await withAtomicFile(file, async (fh) => {
      for (let i = 0; i < args.chunks; i++) {
        await fh.write('chunk\\n');
        await new Promise((r) => setTimeout(r, args.delay_ms));
      }
    });
    return { ok: true };
  },
});
await runStdioServer({
  name: 'lifecycle', version: '1.0.0', description: 'x', shutdownGraceMs: Number(process.env.GRACE_MS ?? 3000),
  createServer: ({ paths, logger }) => createToolServer({ name: 'lifecycle', version: '1.0.0' }, [slowWrite], { paths, logger }),
});
`;

beforeAll(async () => {
  await mkdir(path.dirname(serverScript), { recursive: true });
  await writeFile(serverScript, serverSource);
});

// A server a test stops without waiting for its exit may still be writing there: retry the removal.
const tempDir = tempDirsRemovedAfterEach({ retries: 5 });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const slowCall = (chunks: number, delayMs = 50) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'slow_write', arguments: { path: 'target.txt', chunks, delay_ms: delayMs } },
});

interface Child {
  proc: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  send: (message: unknown) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The JSON-RPC answer with this id, once it is on stdout. */
  answer: (id: number) => Record<string, unknown> | undefined;
}

async function start(env: Record<string, string> = {}) {
  const ws = await realpath(await tempDir('lifecycle-'));
  await writeFile(path.join(ws, 'target.txt'), 'ORIGINAL\n');
  const proc = spawn(process.execPath, [serverScript, '--root', ws], {
    stdio: 'pipe',
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const child: Child = {
    proc,
    out: () => out,
    err: () => err,
    send: (message) => proc.stdin.write(`${JSON.stringify(message)}\n`),
    exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
    answer: (id) =>
      out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((message) => message.id === id),
  };
  const temps = async () => (await readdir(ws)).filter((name) => name.endsWith('.tmp'));
  const target = () => readFile(path.join(ws, 'target.txt'), 'utf8');
  return { child, ws, temps, target };
}

describe('shutdown with a call in flight', () => {
  it('stdin closed (a piped session): finishes the call, sends its answer, then exits 0', async () => {
    const { child, ws, target } = await start();
    child.send(initialize);
    child.send(initialized);
    child.send(slowCall(10));
    child.proc.stdin.end();
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.answer(2)).toMatchObject({ result: { content: [{ type: 'text', text: '{"ok":true}' }] } });
    expect(await target()).toBe('chunk\n'.repeat(10));
    expect(await readdir(ws)).toEqual(['target.txt']);
  });

  it('a second request with the id of one still running is refused at once; the first finishes and answers', async () => {
    const { child, target } = await start();
    child.send(initialize);
    child.send(initialized);
    child.send(slowCall(10));
    child.send(slowCall(1)); // the same id, 2, while the first runs
    await expect.poll(() => child.answer(2), { timeout: 30_000 }).toBeDefined();
    expect(child.answer(2)).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('already in use') },
    });
    child.proc.stdin.end();
    expect(await child.exited).toEqual({ code: 0, signal: null });
    const answers = child
      .out()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id?: number; result?: unknown });
    expect(answers.filter((a) => a.id === 2).map((a) => (a.result ? 'result' : 'error'))).toEqual([
      'error',
      'result',
    ]);
    expect(await target()).toBe('chunk\n'.repeat(10));
  });

  it('SIGTERM: lets a call that ends within the grace period finish and answer', async () => {
    const { child, ws, temps, target } = await start();
    child.send(initialize);
    child.send(initialized);
    child.send(slowCall(10));
    await expect.poll(temps, { timeout: 30_000 }).toHaveLength(1);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.answer(2)).toMatchObject({ result: { content: [{ type: 'text', text: '{"ok":true}' }] } });
    expect(await target()).toBe('chunk\n'.repeat(10));
    expect(await readdir(ws)).toEqual(['target.txt']);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: cancels a call that outlasts the grace period, leaves no temp file, answers with an error',
    async (signal) => {
      const { child, ws, temps, target } = await start({ GRACE_MS: '300' });
      child.send(initialize);
      child.send(initialized);
      child.send(slowCall(1000));
      await expect.poll(temps, { timeout: 30_000 }).toHaveLength(1);
      const t0 = Date.now();
      child.proc.kill(signal);
      await expect.poll(child.err, { timeout: 15_000 }).toContain(`Shutting down (${signal})`);
      child.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' }); // arrives while shutting down
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - t0).toBeLessThan(10_000); // the call alone would take 50 s
      expect(child.answer(2)).toMatchObject({ error: { code: -32000 } });
      expect(child.answer(3)).toMatchObject({ error: { message: expect.stringContaining('shutting down') } });
      expect(await target()).toBe('ORIGINAL\n');
      expect(await readdir(ws)).toEqual(['target.txt']);
      expect(child.err()).toContain('Cancelling 1 call(s)');
    },
  );
});

describe('broken pipes and malformed input', () => {
  it('exits quietly with code 0 when the client closes stdout but keeps stdin open', async () => {
    const { child } = await start();
    child.send(initialize);
    await expect.poll(() => child.answer(1), { timeout: 30_000 }).toBeDefined();
    child.proc.stdout.destroy();
    for (let id = 2; id < 6; id++) child.send({ jsonrpc: '2.0', id, method: 'tools/list' });
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.err()).toContain('Shutting down (stdout closed: EPIPE)');
    expect(child.err()).not.toMatch(/Unhandled|node:events|\n\s+at /);
  });

  it('answers lines that are not JSON-RPC with -32700 / -32600 (with the id when it can be read), logs a warning and keeps serving', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exits: number[] = [];
    const dir = await tempDir('lifecycle-');
    await runStdioServer(
      {
        name: 'inproc',
        version: '1.0.0',
        description: 'x',
        createServer: ({ paths, logger }) =>
          createToolServer({ name: 'inproc', version: '1.0.0' }, [], { paths, logger }),
      },
      ['--root', dir, '--log-level', 'warn'],
      { stdin, stdout, stderr, exit: (code) => exits.push(code) },
    );
    stdin.write('{not json\n');
    stdin.write('{"foo":1}\n');
    // Malformed requests whose id can be read: the error carries it, so the client's call ends.
    stdin.write('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":"notanobject"}\n');
    stdin.write('{"jsonrpc":"2.0","id":"q7","method":7}\n');
    stdin.write(`${JSON.stringify(initialize)}\n`);
    await expect.poll(() => out.split('\n').filter(Boolean).length).toBe(5);
    const [parse, invalid, withNumber, withString, init] = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id?: number; error?: { code: number } });
    expect(parse).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    expect(invalid).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(invalid).not.toHaveProperty('id');
    expect(withNumber).toMatchObject({ jsonrpc: '2.0', id: 42, error: { code: -32600 } });
    expect(withString).toMatchObject({ jsonrpc: '2.0', id: 'q7', error: { code: -32600 } });
    expect(init).toMatchObject({ id: 1, result: { serverInfo: { name: 'inproc' } } });
    expect(err).toContain('WARN [inproc] Ignored a line from the client that is not JSON');
    expect(err).toContain('not a JSON-RPC 2.0');
    stdin.end();
    await expect.poll(() => exits).toEqual([0]);
  });
});

describe('temp files a SIGKILL left behind', () => {
  it('are removed by the next start (only those this library journaled)', async () => {
    const state = await tempDir('lifecycle-state-');
    const first = await start({ MCP_WORKBENCH_STATE_DIR: state });
    first.child.send(initialize);
    first.child.send(initialized);
    first.child.send(slowCall(1000));
    await expect.poll(first.temps, { timeout: 30_000 }).toHaveLength(1);
    first.child.proc.kill('SIGKILL');
    await first.child.exited;
    const [left] = await first.temps();
    expect(left).toMatch(new RegExp(`^\\.target\\.txt\\.${first.child.proc.pid}\\.[0-9a-f]{12}\\.tmp$`));
    // A file of the same shape that no journal lists is someone else's: it stays.
    const decoy = '.other.txt.99999999.0123456789ab.tmp';
    await writeFile(path.join(first.ws, decoy), 'not ours');

    const second = spawn(process.execPath, [serverScript, '--root', first.ws], {
      stdio: 'pipe',
      env: { ...process.env, MCP_WORKBENCH_STATE_DIR: state },
    });
    try {
      await expect.poll(first.temps, { timeout: 15_000 }).toEqual([decoy]);
      expect(await first.target()).toBe('ORIGINAL\n');
      // The journal goes once its temp files are gone (in that order, so a crash between keeps it): wait.
      const journals = () => readdir(path.join(state, 'pending-writes'));
      await expect.poll(journals, { timeout: 15_000 }).not.toContain(`${first.child.proc.pid}.log`);
    } finally {
      second.kill('SIGTERM');
    }
  });
});

describe('the default root', () => {
  it.each([
    ['the filesystem root', '/'],
    ['the home folder', 'HOME'],
  ] as const)('is not %s: calls fail with an error that names --root', async (_what, cwdName) => {
    const home = await realpath(await tempDir('lifecycle-home-'));
    const cwd = cwdName === 'HOME' ? home : cwdName;
    const proc = spawn(process.execPath, [serverScript], {
      cwd,
      stdio: 'pipe',
      env: { ...process.env, HOME: home, USERPROFILE: home },
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const send = (message: unknown) => proc.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send(initialize);
      send(initialized);
      send(slowCall(1));
      const answer = async () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { id?: number; result?: { content: { text: string }[] } })
          .find((message) => message.id === 2);
      await expect.poll(answer, { timeout: 15_000 }).toBeDefined();
      const text = (await answer())!.result!.content[0]!.text;
      expect(JSON.parse(text)).toMatchObject({
        error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('without --root') },
      });
      expect(err).toContain('--root');
      expect(await readdir(home)).toEqual([]);
    } finally {
      proc.kill('SIGTERM');
    }
  });
});
