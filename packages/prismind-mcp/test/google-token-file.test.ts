// token.json after refreshes that rotate the refresh token: what the next server process starts from.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createToolServer, defineTool, PathPolicy } from '@mcp-workbench/core';
import { silentLogger } from '@mcp-workbench/core/engine';
import { connectInMemory } from '@mcp-workbench/core/testing';
import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { loadAuth } from '../src/store/google/auth.js';
import type { GoogleSettings } from '../src/store/google/settings.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function settingsWithToken(): Promise<GoogleSettings> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'prismind-token-'));
  dirs.push(dir);
  const token_file = path.join(dir, 'token.json');
  await writeFile(
    token_file,
    JSON.stringify({ client_id: 'id', client_secret: 'secret', refresh_token: 'r0', scopes: [] }),
  );
  return {
    credentials_file: path.join(dir, 'credentials.json'),
    token_file,
    scopes: [],
    api_url: 'http://127.0.0.1:9',
    max_retry_seconds: 1,
    retry_initial_delay_ms: 1,
    request_timeout_ms: 1000,
    adc_file: '',
  };
}

it('refreshes that rotate the refresh token in quick succession leave the newest one in token.json', async () => {
  const settings = await settingsWithToken();
  const auth = await loadAuth(settings, silentLogger);
  // Two requests sent with one expired access token each refresh on their 401, back to back: each
  // refresh retires the token before it, so only the last one still works.
  for (let round = 1; round <= 40; round++) {
    auth.client.emit('tokens', { refresh_token: `r${round}`, access_token: `a${round}`, expiry_date: round });
    if (round % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await auth.settle();
  const saved = JSON.parse(await readFile(settings.token_file, 'utf8')) as Record<string, unknown>;
  expect(saved).toMatchObject({
    refresh_token: 'r40',
    access_token: 'a40',
    expiry_date: 40,
    client_id: 'id',
  });
});

it('a refresh that completes after its tool call was cancelled still saves the rotated token', async () => {
  const settings = await settingsWithToken();
  const auth = await loadAuth(settings, silentLogger);
  const tool = defineTool({
    name: 'refreshing_call',
    title: 'Refreshing call',
    description: 'Its request refreshes the token, and the answer to the refresh arrives after a cancel.',
    annotations: {},
    input: {},
    output: { ok: z.boolean() },
    async run(_args, { signal }) {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      auth.client.emit('tokens', { refresh_token: 'r1', access_token: 'a1' });
      return { ok: true };
    },
  });
  const paths = await PathPolicy.create({ roots: [path.dirname(settings.token_file)] });
  const session = await connectInMemory(createToolServer({ name: 't', version: '0' }, [tool], { paths }));
  const controller = new AbortController();
  const call = session.client.callTool({ name: 'refreshing_call', arguments: {} }, undefined, {
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 20);
  await expect(call).rejects.toThrow();
  await expect.poll(() => auth.settle().then(() => readFile(settings.token_file, 'utf8'))).toContain('"r1"');
  await session.close();
});
