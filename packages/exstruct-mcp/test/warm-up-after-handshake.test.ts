// The extraction thread starts (and warms up) only once the client has finished the MCP handshake and the
// server is idle (issue 26 §1): started earlier, it competed with the server's own start and every
// session answered `initialize` later; started at the handshake, with a first call made right after it
// (src/jobs/idle-start.ts). Observed from outside the product: Node's own debug log (NODE_DEBUG=worker) says
// on stderr when a Worker is created. The handshake is spoken by hand over the built bin's stdio so the
// `initialized` notification can be held back.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES } from './extract-helpers.js';

const BIN = path.join(FIXTURES, '..', '..', 'dist', 'index.js');
const WORKER_CREATED = /created Worker with ID/;

let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

/** Resolves when `test` holds for the text read so far, or rejects after `ms`. */
async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The built bin, spoken to by hand: its stdout and stderr so far, and a way to send a message. */
function startBin(logLevel = ['--log-level', 'error']) {
  const server = spawn(process.execPath, [BIN, '--root', FIXTURES, ...logLevel], {
    env: { ...process.env, NODE_DEBUG: 'worker' },
  });
  child = server;
  const seen = { stdout: '', stderr: '' };
  server.stdout.on('data', (chunk: Buffer) => (seen.stdout += chunk.toString('utf8')));
  server.stderr.on('data', (chunk: Buffer) => (seen.stderr += chunk.toString('utf8')));
  // Messages given together go in one write, so the server reads them together: a call "right after the
  // handshake" is then right after it however loaded the machine is (apart, a 100 ms pause between the
  // two reads on a busy CI machine rightly let the server start the thread in between).
  const send = (...messages: object[]) =>
    server.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  const initialize = () =>
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'handshake-test', version: '0' },
      },
    });
  return { seen, send, initialize };
}

describe('the extraction thread of a fresh server', () => {
  it('is created after notifications/initialized, not at start nor at initialize', async () => {
    const { seen, send, initialize } = startBin();
    initialize();
    await until(() => seen.stdout.includes('"id":1'), 30_000, 'the initialize answer');
    expect(JSON.parse(seen.stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: {} } });
    // Long enough for a thread started at the bin's start or at initialize to have shown up.
    await sleep(1000);
    expect(seen.stderr).not.toMatch(WORKER_CREATED);

    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await until(() => WORKER_CREATED.test(seen.stderr), 30_000, 'the extraction thread');
  }, 60_000);

  // The call fails with a coded error, which the server logs (at debug) on stderr as the call ends: its
  // Worker line must come after that one in the same stream. (Comparing when the test saw the answer on
  // stdout with when it saw the Worker line on stderr raced: a test process held up 100 ms on a busy CI
  // machine saw both at once.)
  it('is not created while a call made right after the handshake runs, only once the server is idle', async () => {
    const { seen, send, initialize } = startBin(['--log-level', 'debug']);
    initialize();
    await until(() => seen.stdout.includes('"id":1'), 30_000, 'the initialize answer');
    send(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'exstruct_read_json_chunk', arguments: { out_path: 'missing.json' } },
      },
    );
    await until(() => seen.stdout.includes('"id":2'), 30_000, "the call's answer");
    expect(seen.stdout).toContain('NOT_FOUND');
    await until(() => WORKER_CREATED.test(seen.stderr), 30_000, 'the extraction thread');
    const callEnded = seen.stderr.indexOf('Tool exstruct_read_json_chunk: NOT_FOUND');
    expect(callEnded).toBeGreaterThan(-1);
    expect(seen.stderr.search(WORKER_CREATED)).toBeGreaterThan(callEnded);
  }, 60_000);
});
