import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolServer, defineTool, PathPolicy, silentLogger } from '../src/index.js';
import { rootUriToPath } from '../src/tools/client-roots.js';
import { callTool } from '../src/testing/index.js';

let base: string;
let project: string;
let sibling: string;
const closers: Array<() => Promise<void>> = [];

const readText = defineTool({
  name: 'read_text',
  title: 'Read',
  description: 'Reads a file inside the roots.',
  annotations: { readOnlyHint: true },
  input: { path: z.string() },
  output: { content: z.string(), roots: z.array(z.string()) },
  async run(args, { paths }) {
    return { content: (await paths.readFile(args.path)).toString(), roots: paths.roots };
  },
});

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'client-roots-')));
  project = path.join(base, 'project');
  sibling = path.join(base, 'sibling');
  for (const dir of [path.join(project, 'app', 'secrets'), path.join(project, 'secrets'), sibling]) {
    await mkdir(dir, { recursive: true });
  }
  await writeFile(path.join(project, 'readme.txt'), 'project readme');
  await writeFile(path.join(project, 'app', 'main.txt'), 'app main');
  await writeFile(path.join(project, 'app', 'secrets', 'token.txt'), 'app token');
  await writeFile(path.join(project, 'secrets', 'key.txt'), 'project key');
  await writeFile(path.join(sibling, 'other.txt'), 'sibling file');
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A server under `--root project` (or an implicit root) and a client offering raw root URIs. */
async function connect(options: { uris: string[] | 'never-answers'; implicit?: boolean; deny?: string[] }) {
  const paths = await PathPolicy.create({
    roots: [project],
    denyGlobs: options.deny ?? [],
    implicitRoots: options.implicit ?? false,
  });
  const server = createToolServer({ name: 't', version: '1' }, [readText], { paths, logger: silentLogger });
  const client = new Client({ name: 'c', version: '1' }, { capabilities: { roots: { listChanged: true } } });
  let uris = options.uris;
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    if (uris === 'never-answers') return new Promise<never>(() => undefined);
    return { roots: uris.map((uri) => ({ uri })) };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return {
    client,
    read: (p: string) => callTool<{ content: string; roots: string[] }>(client, 'read_text', { path: p }),
    offer: async (next: string[]) => {
      uris = next;
      await client.sendRootsListChanged();
    },
  };
}

const url = (dir: string) => pathToFileURL(dir).href;

describe('client roots under the user --root', () => {
  it('narrow the roots to a client root inside them', async () => {
    const s = await connect({ uris: [url(path.join(project, 'app'))] });
    const inside = await s.read('main.txt');
    expect(inside.structured).toEqual({ content: 'app main', roots: [path.join(project, 'app')] });
    expect((await s.read(path.join(project, 'readme.txt'))).error?.code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('never widen them: file:/// leaves exactly the user roots', async () => {
    const s = await connect({ uris: ['file:///'] });
    const read = await s.read('readme.txt');
    expect(read.structured.roots).toEqual([project]);
    expect((await s.read(path.join(sibling, 'other.txt'))).error?.code).toBe('PATH_OUTSIDE_ROOT');
    expect((await s.read('/etc/hostname')).error?.code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('never move them: a client root beside the user root is ignored beside one inside', async () => {
    const s = await connect({ uris: [url(sibling), url(path.join(project, 'app'))] });
    expect((await s.read('main.txt')).structured.roots).toEqual([path.join(project, 'app')]);
    expect((await s.read(path.join(sibling, 'other.txt'))).error?.code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('leave no root when every client root lies outside them, until one meets them again', async () => {
    const s = await connect({ uris: [url(sibling)] });
    const refused = await s.read('readme.txt');
    expect(refused.error?.code).toBe('INVALID_ARGUMENT');
    expect(refused.error?.message).toContain(`The client's roots (${sibling}) lie outside`);
    expect(refused.error?.message).toContain(project);
    expect((await s.read(path.join(sibling, 'other.txt'))).error?.code).toBe('INVALID_ARGUMENT');
    await s.offer([url(project)]);
    await expect
      .poll(async () => (await s.read('readme.txt')).structured?.content, { timeout: 2000 })
      .toBe('project readme');
  });

  it('refuse a percent-encoded .. instead of folding it into the parent', async () => {
    const s = await connect({ uris: [`${url(path.join(project, 'app'))}/%2e%2e/%2E%2E`] });
    expect((await s.read('readme.txt')).structured.roots).toEqual([project]);
    expect((await s.read(path.join(sibling, 'other.txt'))).error?.code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('keep anchored deny globs anchored to the root they were given for', async () => {
    const s = await connect({ uris: [url(project)], deny: ['/secrets/'] });
    expect((await s.read('secrets/key.txt')).error?.code).toBe('PATH_DENIED');
    await s.offer([url(path.join(project, 'app'))]);
    await expect
      .poll(async () => (await s.read('main.txt')).structured.roots, { timeout: 2000 })
      .toEqual([path.join(project, 'app')]);
    // "/secrets/" means project/secrets, not app/secrets, whatever the roots are now.
    expect((await s.read('secrets/token.txt')).structured.content).toBe('app token');
    await s.offer([url(project)]);
    await expect.poll(async () => (await s.read('readme.txt')).isError, { timeout: 2000 }).toBe(false);
    expect((await s.read('secrets/key.txt')).error?.code).toBe('PATH_DENIED');
  });

  it('do not stall calls when the client never answers roots/list', async () => {
    const s = await connect({ uris: 'never-answers' });
    const started = Date.now();
    const read = await s.read('readme.txt');
    expect(read.structured.content).toBe('project readme');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('client roots without a user root', () => {
  it('replace the implicit root, but never with the filesystem root', async () => {
    const s = await connect({ uris: [url(sibling)], implicit: true });
    expect((await s.read('other.txt')).structured).toEqual({ content: 'sibling file', roots: [sibling] });
    await s.offer(['file:///']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await s.read('other.txt')).structured.roots).toEqual([sibling]);
  });
});

describe('rootUriToPath', () => {
  it('accepts local file URIs and skips the rest with a reason', () => {
    expect(rootUriToPath('file:///work/app')).toEqual({ path: '/work/app' });
    expect(rootUriToPath('file://localhost/work/app')).toEqual({ path: '/work/app' });
    expect(rootUriToPath('https://example.com/x')).toHaveProperty('skip');
    expect(rootUriToPath('file://server/share', 'linux')).toHaveProperty('skip');
    expect(rootUriToPath('file://server/share', 'darwin')).toHaveProperty('skip');
    // On Windows a host is a network share (or WSL's), a local path like a drive.
    expect(rootUriToPath('file://server/share/My%20Project', 'win32')).toEqual({
      path: '\\\\server\\share\\My Project',
    });
    expect(rootUriToPath('file://wsl.localhost/Ubuntu/home/me', 'win32')).toEqual({
      path: '\\\\wsl.localhost\\Ubuntu\\home\\me',
    });
    expect(rootUriToPath('file://server/share/%2e%2e/other', 'win32')).toHaveProperty('skip');
    expect(rootUriToPath('file:///work/app/..')).toHaveProperty('skip');
    expect(rootUriToPath('file:///work/app/%2E%2e')).toHaveProperty('skip');
    expect(rootUriToPath('file:///work/./app')).toHaveProperty('skip');
    expect(rootUriToPath('file:///work/a%2fb')).toHaveProperty('skip');
  });
});
