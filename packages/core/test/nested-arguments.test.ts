// An unknown key inside an object argument (a typo in options.indnt, sheets.summry) is named with its
// place and the fields that object takes, so an agent fixes it in one retry.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger, createToolServer, defineTool, PathPolicy } from '../src/index.js';
import { callTool, connectInMemory, type TestClient } from '../src/testing/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

const newTempDir = tempDirsRemovedAfterEach();
let session: TestClient | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const nested = defineTool({
  name: 'update_settings',
  title: 'Update settings',
  description: 'Takes nested objects.',
  annotations: {},
  input: {
    project: z.string(),
    sheets: z.object({ summary: z.string(), tasks: z.string() }).strict().optional(),
    rows: z.array(z.object({ cell: z.string(), value: z.number() }).strict()).default([]),
  },
  output: { ok: z.boolean() },
  run: async () => ({ ok: true }),
});
const bare = defineTool({
  name: 'ping_store',
  title: 'Ping',
  description: 'Takes nothing.',
  annotations: {},
  input: {},
  output: { ok: z.boolean() },
  run: async () => ({ ok: true }),
});

async function client() {
  const paths = await PathPolicy.create({ roots: [await newTempDir('nested-')] });
  const server = createToolServer({ name: 't', version: '1' }, [nested, bare], {
    paths,
    logger: createLogger({ level: 'error', write: () => undefined }),
  });
  session = await connectInMemory(server);
  return session.client;
}

describe('unknown keys inside object arguments', () => {
  it('names the object, the key and the fields it takes', async () => {
    const c = await client();
    const typo = await callTool(c, 'update_settings', { project: 'p', sheets: { summry: 'S', tasks: 'T' } });
    expect(typo.error?.code).toBe('INVALID_ARGUMENT');
    expect(typo.error?.message).toContain('unknown field(s) "summry" in sheets');
    expect(typo.error?.hint).toContain('Valid fields of sheets: summary, tasks.');
    const inArray = await callTool(c, 'update_settings', {
      project: 'p',
      rows: [{ cell: 'A1', value: 1, vlue: 2 }],
    });
    expect(inArray.error?.message).toContain('unknown field(s) "vlue" in rows[0]');
    expect(inArray.error?.hint).toContain('Valid fields of rows[0]: cell, value.');
    const top = await callTool(c, 'update_settings', { project: 'p', sheet: {} });
    expect(top.error?.message).toContain('unknown argument(s) "sheet"');
    expect(top.error?.hint).toContain('Valid arguments: project, sheets, rows.');
  });

  it('says a tool takes no arguments rather than listing none', async () => {
    const c = await client();
    const out = await callTool(c, 'ping_store', { verbose: true });
    expect(out.error?.hint).toContain('This tool takes no arguments.');
    expect(out.error?.hint).not.toContain('Valid arguments: .');
  });
});
