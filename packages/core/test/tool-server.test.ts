import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  createLogger,
  createToolServer,
  defineTool,
  enableStructuredOutput,
  ERROR_TEXT_LIMITS,
  PathPolicy,
  reply,
  ToolError,
  toolSchemas,
  withImages,
} from '../src/index.js';
import { callTool, connectInMemory, decodeToonText, type TestClient } from '../src/testing/index.js';

let dir: string;
let other: string;
let logLines: string[];
let session: TestClient | undefined;

const readText = defineTool({
  name: 'read_text',
  title: 'Read a text file',
  description: 'Reads a UTF-8 file inside the roots.',
  annotations: { readOnlyHint: true },
  input: { path: z.string(), format: z.enum(['json', 'toon']).default('json') },
  output: {
    path: z.string(),
    content: z.string(),
    lines: z.array(z.object({ n: z.number(), text: z.string() })),
  },
  textFormat: (args) => args.format,
  async run(args, { paths }) {
    const file = await paths.resolve(args.path, { mustExist: true, kind: 'file' });
    const { readFile } = await import('node:fs/promises');
    const content = await readFile(file, 'utf8');
    return {
      path: paths.displayPath(file),
      content,
      lines: content.split('\n').map((text, i) => ({ n: i + 1, text })),
    };
  },
});

const failing = defineTool({
  name: 'explode',
  title: 'Fails on purpose',
  description: 'Throws the kind of error asked for.',
  annotations: {},
  input: { kind: z.enum(['tool', 'internal', 'bad-output', 'enoent']) },
  output: { ok: z.boolean() },
  async run(args) {
    if (args.kind === 'tool')
      throw new ToolError('CONFLICT', 'It changed.', { hint: 'Reload.', details: { a: 1 } });
    if (args.kind === 'internal') throw new Error('secret stack detail');
    if (args.kind === 'enoent') {
      const { readFile } = await import('node:fs/promises');
      await readFile('/definitely/not/here');
    }
    return { ok: 'yes' } as unknown as { ok: boolean };
  },
});

const progressTool = defineTool({
  name: 'slow_count',
  title: 'Counts with progress',
  description: 'Sends progress notifications and returns a custom text.',
  annotations: { readOnlyHint: true },
  input: { to: z.number().int().min(1).max(10) },
  output: { counted: z.number() },
  async run(args, { progress }) {
    for (let i = 1; i <= args.to; i++) await progress(i, args.to, `step ${i}`);
    return reply({ counted: args.to }, `counted to ${args.to}`);
  },
});

// A 1×1 transparent PNG.
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const pictureTool = defineTool({
  name: 'picture',
  title: 'Answers with an image',
  description: 'Returns a value and a PNG.',
  annotations: { readOnlyHint: true },
  input: {},
  output: { drawn: z.number() },
  async run() {
    return withImages({ drawn: 1 }, [{ data: PIXEL, mimeType: 'image/png' }]);
  },
});

async function start(
  options: { clientRoots?: string[]; structuredOutput?: boolean; implicitRoots?: boolean } = {},
) {
  const paths = await PathPolicy.create({ roots: [dir], implicitRoots: options.implicitRoots ?? false });
  logLines = [];
  const logger = createLogger({ level: 'debug', write: (line) => logLines.push(line) });
  const server = createToolServer(
    { name: 'test-server', version: '1.2.3' },
    [readText, failing, progressTool, pictureTool],
    { paths, logger, structuredOutput: options.structuredOutput ?? false },
  );
  session = await connectInMemory(server, options.clientRoots ? { roots: options.clientRoots } : {});
  return session.client;
}

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'core-server-')));
  other = await realpath(await mkdtemp(path.join(os.tmpdir(), 'core-other-')));
  await writeFile(path.join(dir, 'a.txt'), 'hello, "world"\n  indented: yes');
  await mkdir(path.join(other, 'sub'));
  await writeFile(path.join(other, 'sub', 'b.txt'), 'from the client root');
});

afterEach(async () => {
  await session?.close();
  session = undefined;
  await rm(dir, { recursive: true, force: true });
  await rm(other, { recursive: true, force: true });
});

describe('createToolServer', () => {
  it('lists tools with title, annotations and an input schema, and no output schema by default', async () => {
    const client = await start();
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'read_text')!;
    expect(tool.title).toBe('Read a text file');
    expect(tool.annotations?.readOnlyHint).toBe(true);
    expect(tool.inputSchema.required).toEqual(['path']);
    expect(tool).not.toHaveProperty('outputSchema');
  });

  it('answers with one JSON text block and no structuredContent by default (what every client shows)', async () => {
    const client = await start();
    const out = await callTool(client, 'read_text', { path: 'a.txt' });
    expect(out.isError).toBe(false);
    expect(out.raw).not.toHaveProperty('structuredContent');
    expect(out.raw.content).toHaveLength(1);
    expect(out.format).toBe('json');
    expect(JSON.parse(out.text)).toMatchObject({ path: 'a.txt', content: 'hello, "world"\n  indented: yes' });
    expect(out.structured).toEqual(JSON.parse(out.text));
  });

  it('with structuredOutput, declares the output schema and sends structuredContent plus the same text', async () => {
    const client = await start({ structuredOutput: true });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'read_text')?.outputSchema?.properties).toHaveProperty('content');
    const out = await callTool(client, 'read_text', { path: 'a.txt', format: 'toon' });
    expect(out.structuredContent).toMatchObject({
      path: 'a.txt',
      content: 'hello, "world"\n  indented: yes',
    });
    expect(decodeToonText(out.text)).toEqual(out.structuredContent);
    // Errors stay text-only: clients drop structuredContent on isError.
    const failed = await callTool(client, 'explode', { kind: 'tool' });
    expect(failed.raw).not.toHaveProperty('structuredContent');
    expect(failed.error?.code).toBe('CONFLICT');
  });

  it('enableStructuredOutput turns structured output on for a server already built (what --structured-output does)', async () => {
    const paths = await PathPolicy.create({ roots: [dir] });
    const server = createToolServer({ name: 't', version: '1' }, [readText], { paths });
    expect(enableStructuredOutput(server)).toBe(true);
    session = await connectInMemory(server);
    const out = await callTool(session.client, 'read_text', { path: 'a.txt' });
    expect(out.structuredContent).toEqual(out.structured);
  });

  it('serves the schemas a build precomputed (toolSchemas), still validates calls with zod, and ignores a stale entry', async () => {
    const paths = await PathPolicy.create({ roots: [dir] });
    const built = toolSchemas([readText, progressTool]);
    const plain = createToolServer({ name: 't', version: '1' }, [readText, progressTool], { paths });
    session = await connectInMemory(plain);
    const converted = (await session.client.listTools()).tools;
    await session.close();

    // Precomputed = what the server converts at start, so serving it changes nothing a client sees.
    const marked = structuredClone(built) as Record<string, { input: Record<string, unknown> }>;
    marked.read_text!.input.description = 'from the build';
    // A stale build (an argument was added since) must not hide the new argument.
    delete (marked.slow_count!.input.properties as Record<string, unknown>).to;
    const served = createToolServer({ name: 't', version: '1' }, [readText, progressTool], {
      paths,
      schemas: marked as never,
    });
    enableStructuredOutput(served);
    session = await connectInMemory(served);
    const { tools } = await session.client.listTools();
    expect(tools.find((t) => t.name === 'read_text')?.inputSchema).toEqual({
      ...converted.find((t) => t.name === 'read_text')?.inputSchema,
      description: 'from the build',
    });
    expect(tools.find((t) => t.name === 'read_text')?.outputSchema).toEqual(built.read_text!.output);
    expect(tools.find((t) => t.name === 'slow_count')?.inputSchema).toEqual(
      converted.find((t) => t.name === 'slow_count')?.inputSchema,
    );
    const bad = await callTool(session.client, 'read_text', { path: 1 });
    expect(bad.error?.code).toBe('INVALID_ARGUMENT');
    expect((await callTool(session.client, 'read_text', { path: 'a.txt' })).isError).toBe(false);
  });

  it('clips error answers that echo huge input: a 60,000-character message or argument name stays under 8 KB', async () => {
    const client = await start();
    const hugeName = 'x'.repeat(60_000);
    const unknownArg = await callTool(client, 'read_text', { path: 'a.txt', [hugeName]: 1 });
    expect(unknownArg.error?.code).toBe('INVALID_ARGUMENT');
    expect(unknownArg.text.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.total);
    expect(unknownArg.error?.message).toContain('characters clipped');
    const unknownTool = await callTool(client, hugeName);
    expect(unknownTool.error?.code).toBe('NOT_FOUND');
    expect(unknownTool.text.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.total);
    const badPath = await callTool(client, 'read_text', { path: `${'é'.repeat(30_000)}.txt` });
    expect(badPath.text.length).toBeLessThanOrEqual(ERROR_TEXT_LIMITS.total);
  });

  it('returns the TOON document itself as text when TOON is asked for, and it decodes to the same value', async () => {
    const client = await start();
    const out = await callTool(client, 'read_text', { path: 'a.txt', format: 'toon' });
    expect(out.text.startsWith('{')).toBe(false);
    expect(out.text).toContain('lines[2]{n,text}:');
    expect(decodeToonText(out.text)).toEqual(out.structured);
  });

  it('maps a ToolError to an isError result with code, message, hint and details', async () => {
    const client = await start();
    const out = await callTool(client, 'explode', { kind: 'tool' });
    expect(out.isError).toBe(true);
    expect(out.error).toEqual({
      code: 'CONFLICT',
      message: 'It changed.',
      hint: 'Reload.',
      details: { a: 1 },
    });
  });

  it('turns an unexpected exception into INTERNAL without leaking the stack, and logs it to the logger', async () => {
    const client = await start();
    const out = await callTool(client, 'explode', { kind: 'internal' });
    expect(out.error?.code).toBe('INTERNAL');
    expect(out.text).not.toContain('secret stack detail');
    expect(logLines.join('')).toContain('secret stack detail');
  });

  it('maps ENOENT to NOT_FOUND', async () => {
    const client = await start();
    const out = await callTool(client, 'explode', { kind: 'enoent' });
    expect(out.error?.code).toBe('NOT_FOUND');
    expect(out.error?.message).toContain('/definitely/not/here');
  });

  it('reports output that breaks the declared schema as INTERNAL instead of sending it', async () => {
    const client = await start();
    const out = await callTool(client, 'explode', { kind: 'bad-output' });
    expect(out.error?.code).toBe('INTERNAL');
    expect(logLines.join('')).toContain('breaks its schema');
  });

  it('rejects bad and unknown arguments with INVALID_ARGUMENT naming the field and the valid names', async () => {
    const client = await start();
    const wrongType = await callTool(client, 'read_text', { path: 42 });
    expect(wrongType.error?.code).toBe('INVALID_ARGUMENT');
    expect(wrongType.error?.message).toContain('path');
    expect(wrongType.error?.hint).toContain('Valid arguments: path, format');
    const unknown = await callTool(client, 'read_text', { path: 'a.txt', pth: 'x' });
    expect(unknown.error?.code).toBe('INVALID_ARGUMENT');
    expect(unknown.error?.message).toContain('"pth"');
  });

  it('answers malformed tools/call params with JSON-RPC -32602 Invalid params, and keeps serving', async () => {
    const client = await start();
    for (const params of [{ name: 5 }, {}, { name: 'read_text', arguments: 'path=a.txt' }, undefined]) {
      const request = params === undefined ? { method: 'tools/call' } : { method: 'tools/call', params };
      const failure = await client.request(request, CallToolResultSchema).then(
        () => undefined,
        (error: unknown) => error as { code?: number; message?: string },
      );
      expect(failure?.code, JSON.stringify(params)).toBe(-32602);
      expect(failure?.message).toContain('Invalid tools/call request');
    }
    expect((await callTool(client, 'read_text', { path: 'a.txt' })).isError).toBe(false);
  });

  it('answers an unknown tool with NOT_FOUND listing the available tools', async () => {
    const client = await start();
    const out = await callTool(client, 'nope');
    expect(out.error?.code).toBe('NOT_FOUND');
    expect(out.error?.hint).toContain('read_text');
  });

  it('refuses paths outside the roots through the tool', async () => {
    const client = await start();
    const out = await callTool(client, 'read_text', { path: '../../etc/passwd' });
    expect(out.error?.code).toBe('PATH_OUTSIDE_ROOT');
    expect(out.error?.message).toContain(dir);
  });

  it('sends image content after the usual text block when a tool answers withImages', async () => {
    const client = await start();
    const result = await client.callTool({ name: 'picture', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: '{"drawn":1}' },
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
    ]);
  });

  it('sends progress notifications when the client asks, and uses a custom text block', async () => {
    const client = await start();
    const seen: number[] = [];
    const result = await client.callTool({ name: 'slow_count', arguments: { to: 3 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(result.structuredContent).toBeUndefined();
  });

  it("replaces an implicit root with the client's MCP roots and follows roots/list_changed", async () => {
    const client = await start({ clientRoots: [other], implicitRoots: true });
    const fromClientRoot = await callTool(client, 'read_text', { path: 'sub/b.txt' });
    expect(fromClientRoot.structured.content).toBe('from the client root');
    const oldRoot = await callTool(client, 'read_text', { path: path.join(dir, 'a.txt') });
    expect(oldRoot.error?.code).toBe('PATH_OUTSIDE_ROOT');

    await session!.setRoots([dir]);
    await expect
      .poll(async () => (await callTool(client, 'read_text', { path: 'a.txt' })).isError, { timeout: 2000 })
      .toBe(false);
  });

  it('keeps the configured roots when the client offers only unusable roots', async () => {
    const client = await start({ clientRoots: [path.join(other, 'missing')] });
    const out = await callTool(client, 'read_text', { path: 'a.txt' });
    expect(out.isError).toBe(false);
    await expect.poll(() => logLines.join('')).toContain('Could not apply the client roots');
  });
});

describe('ToolContext.structuredOutput', () => {
  const seesMode = defineTool({
    name: 'sees_mode',
    title: 'Reports the answer mode',
    description: 'Says whether its answer also goes out as structuredContent.',
    annotations: { readOnlyHint: true },
    input: {},
    output: { structured: z.boolean() },
    async run(_args, ctx) {
      return { structured: ctx.structuredOutput === true };
    },
  });

  it('tells a tool whether structuredContent is sent: off by default, on with the option or the flag', async () => {
    const paths = await PathPolicy.create({ roots: [dir], implicitRoots: false });
    for (const [how, expected] of [
      ['default', false],
      ['option', true],
      ['enable', true],
    ] as const) {
      const server = createToolServer({ name: 't', version: '1' }, [seesMode], {
        paths,
        structuredOutput: how === 'option',
      });
      if (how === 'enable') enableStructuredOutput(server);
      session = await connectInMemory(server);
      const out = await callTool(session.client, 'sees_mode', {});
      expect(out.structured, how).toEqual({ structured: expected });
      await session.close();
      session = undefined;
    }
  });
});
