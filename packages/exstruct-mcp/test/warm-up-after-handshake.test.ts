// The extraction thread starts (and warms up) only once the client has finished the MCP handshake
// (issue 26 §1): started earlier, it competed with the server's own start and every session answered
// `initialize` later. Observed from outside the product: Node's own debug log (NODE_DEBUG=worker) says
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

describe('the extraction thread of a fresh server', () => {
  it('is created after notifications/initialized, not at start nor at initialize', async () => {
    const server = spawn(process.execPath, [BIN, '--root', FIXTURES, '--log-level', 'error'], {
      env: { ...process.env, NODE_DEBUG: 'worker' },
    });
    child = server;
    let stdout = '';
    let stderr = '';
    server.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);

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
    await until(() => stdout.includes('"id":1'), 30_000, 'the initialize answer');
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: {} } });
    // Long enough for a thread started at the bin's start or at initialize to have shown up.
    await sleep(1000);
    expect(stderr).not.toMatch(WORKER_CREATED);

    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await until(() => WORKER_CREATED.test(stderr), 30_000, 'the extraction thread');
  }, 60_000);
});
