import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RequestIdScanner } from '../src/bootstrap/request-id-scanner.js';
import { createToolServer, defineTool, runStdioServer } from '../src/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

const echoSize = defineTool({
  name: 'make_text',
  title: 'Make text',
  description: 'Returns a text of the given size, or the size of what it was sent.',
  annotations: { readOnlyHint: true },
  input: { bytes: z.number().int(), payload: z.string().optional() },
  output: { text: z.string() },
  async run(args) {
    return { text: 'x'.repeat(args.bytes) };
  },
});

const tempDir = tempDirsRemovedAfterEach();

/** A server on in-process pipes, with the real size limits of the stdio transport. */
async function serve() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exits: number[] = [];
  const dir = await tempDir('message-size-');
  await runStdioServer(
    {
      name: 'sizes',
      version: '1.0.0',
      description: 'x',
      createServer: ({ paths, logger }) =>
        createToolServer({ name: 'sizes', version: '1.0.0' }, [echoSize], { paths, logger }),
    },
    ['--root', dir, '--log-level', 'warn'],
    { stdin, stdout, stderr, exit: (code) => exits.push(code) },
  );
  const answers = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            id?: number;
            result?: Record<string, unknown>;
            error?: Record<string, unknown>;
          },
      );
  return {
    send: (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`),
    write: (text: string) => stdin.write(text),
    answer: async (id: number) => {
      await expect.poll(() => answers().find((a) => a.id === id), { timeout: 10_000 }).toBeDefined();
      return answers().find((a) => a.id === id)!;
    },
    err: () => err,
    stop: async () => {
      stdin.end();
      await expect.poll(() => exits).toEqual([0]);
    },
  };
}

const textOf = (answer: { result?: Record<string, unknown> }) =>
  (answer.result?.content as { text: string }[])[0]!.text;

const call = (id: number, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'tools/call',
  params: { name: 'make_text', arguments: args },
  id, // last, as the SDK's client writes it
});

describe('message size', () => {
  it('answers a request over 10 MiB with an error carrying its id, and keeps serving', async () => {
    const s = await serve();
    s.send(initialize);
    await s.answer(1);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // 11 MiB of arguments, sent in pieces as a pipe delivers them.
    const line = `${JSON.stringify(call(2, { bytes: 1, payload: 'p'.repeat(11 * 1024 * 1024) }))}\n`;
    for (let i = 0; i < line.length; i += 1 << 20) s.write(line.slice(i, i + (1 << 20)));
    const refused = await s.answer(2);
    expect(refused.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('Request too large'),
    });
    s.send(call(3, { bytes: 5 }));
    expect(textOf(await s.answer(3))).toBe('{"text":"xxxxx"}');
    expect(s.err()).toContain('Refused a request of');
    await s.stop();
  });

  it('replaces an answer over the transport limit by a LIMIT_EXCEEDED tool error', async () => {
    const s = await serve();
    s.send(initialize);
    await s.answer(1);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send(call(2, { bytes: 9 * 1024 * 1024 }));
    const replaced = await s.answer(2);
    expect(replaced.result?.isError).toBe(true);
    const text = (replaced.result?.content as { text: string }[])[0]!.text;
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'LIMIT_EXCEEDED' } });
    expect(JSON.stringify(replaced).length).toBeLessThan(2000);
    s.send(call(3, { bytes: 2 }));
    expect(textOf(await s.answer(3))).toBe('{"text":"xx"}');
    await s.stop();
  });
});

describe('RequestIdScanner', () => {
  const idOf = (text: string, pieces = 3) => {
    const scanner = new RequestIdScanner();
    const bytes = Buffer.from(text);
    const step = Math.ceil(bytes.length / pieces);
    for (let i = 0; i < bytes.length; i += step) scanner.feed(bytes.subarray(i, i + step));
    return scanner.id();
  };

  it('finds the top-level id wherever it is, of either type', () => {
    expect(idOf('{"jsonrpc":"2.0","id":7,"method":"x"}')).toBe(7);
    expect(idOf('{"method":"x","params":{"id":99,"a":[{"id":5}]},"id" : "req-é\\"1" }')).toBe('req-é"1');
    expect(idOf('{"method":"x","params":{"text":"\\"id\\":3,"},"id":-12}')).toBe(-12);
    expect(idOf('{"method":"x","params":{"id":1}}')).toBeUndefined();
    expect(idOf('{"id":{"nested":1}}')).toBeUndefined();
  });
});
