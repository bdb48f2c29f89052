// The server's thread loads a tool's engine when that tool is first called, not at start (issue 26 §1,
// memory): an extraction runs on its own thread and needs none of the edit engine, the ops' schemas or
// the package reader on the server's, and loading them at start held ~7 MB more at the 1,000-sheet
// extraction's peak. The tool list stays the same (tool-list.test.ts; LISTED_OP_NAMES below).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  spawnStdioClient,
  writeResolveHook,
  type ResolveLog,
  type SpawnedClient,
} from '@mcp-workbench/core/testing';
import { listedOpNames } from '../src/patch/catalogue.js';
import { LISTED_OP_NAMES } from '../src/tools/op-names.js';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
const DIST = pathToFileURL(path.dirname(bin)).href + '/';

/**
 * Modules of this package that only some tools use, which a fresh server must not have loaded: the edit
 * engine (its bundle, or its modules when unbundled), the ops' schemas, the package reader. The bin runs
 * the build's bundle of the server (scripts/bundle-server.mjs), where each is a file of its own name.
 */
const LOADED_ON_CALL = [
  'stdio-bundle/edit-engine.js',
  'stdio-bundle/workbook-reader.js',
  'stdio-bundle/zip-archive.js',
  'stdio-bundle/validate-input.js',
  'stdio-bundle/extract-thread.js',
  'tools/edit-engine.bundle.js',
  'tools/edit-engine.js',
  'patch/run-patch.js',
  'patch/run-make.js',
  'patch/op-schemas.js',
  'patch/catalogue.js',
  'ooxml/workbook-reader.js',
  'ooxml/zip-archive.js',
  'extract/validate-input.js',
];

let dir: string;
let client: SpawnedClient;
let hook: ResolveLog;

/** This package's modules (paths under dist/) the server has loaded so far. */
async function loaded(): Promise<string[]> {
  const urls = await hook.urls();
  return [...new Set(urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length)))];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-lazy-modules-'));
  // A module hook that notes every module URL the server's thread resolves.
  hook = await writeResolveHook(dir);
  client = await spawnStdioClient(process.execPath, ['--import', hook.register, bin, '--root', dir]);
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('modules a tool loads on its first call', () => {
  it('are not loaded by a fresh server that has listed its tools; the catalogue is once an op is described', async () => {
    const tools = await client.client.listTools();
    expect(tools.tools.length).toBeGreaterThan(10);
    const atStart = await loaded();
    expect(atStart).toContain('stdio-bundle/stdio-server.js'); // the hook sees the bundle at all
    // The server's modules are not loaded beside the bundle (a second copy of each, and of core's classes).
    const unbundled = (file: string) => /^(tools|patch|output)\/|^(stdio-server|server)\.js$/.test(file);
    expect(atStart.filter(unbundled)).toEqual([]);
    expect(atStart.filter((file) => LOADED_ON_CALL.includes(file))).toEqual([]);

    const described = await callTool<{ op: string }>(client.client, 'exstruct_describe_op', {
      op: 'set_value',
    });
    expect(described.isError, described.text).toBe(false);
    expect(described.structured.op).toBe('set_value');
    expect(await loaded()).toContain('stdio-bundle/edit-engine.js');
  });

  it("exstruct_patch's description lists the catalogue's op names", () => {
    expect(LISTED_OP_NAMES).toEqual(listedOpNames());
  });
});
