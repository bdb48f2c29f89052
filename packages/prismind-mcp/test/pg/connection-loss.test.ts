import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeText, type ErrorBody, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';
import { startProxy, type TestProxy } from './tcp-proxy.js';

const BIN = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const { url: base, kind } = serverUrl();

/** A server process (the built bin) on the store, reaching PostgreSQL through the proxy. */
async function serverThrough(store: StoreFixture, proxy: TestProxy): Promise<SpawnedClient> {
  const env = { ...store.env, PRISMIND_DATABASE_URL: proxy.url(store.env.PRISMIND_DATABASE_URL!) };
  return spawnStdioClient(process.execPath, [BIN, '--root', store.home], { env });
}

async function answer(client: SpawnedClient, name: string, args: Record<string, unknown> = {}) {
  const result = await callTool(client.client, name, args);
  const body = decodeText(result.text);
  return { isError: result.isError, body, error: (body as { error?: ErrorBody }).error };
}

describe(`a connection lost during a call (${kind})`, () => {
  let store: StoreFixture;
  let proxy: TestProxy;
  let server: SpawnedClient | undefined;
  beforeEach(async () => {
    store = await postgresStore(base);
    proxy = await startProxy(base);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await proxy.close();
    await store.cleanup();
  });

  it('answers BACKEND_UNAVAILABLE for the call in flight; the server keeps running and the next call works', async () => {
    server = await serverThrough(store, proxy);
    expect((await answer(server, 'setup_project', { project: 'trapxtrap', name: 'Trap' })).isError).toBe(
      false,
    );
    // The call's statements go out and no answer comes back; then the connection is reset under it
    // (pg-pool leaves a checked-out client without an 'error' listener: that crashed the process).
    proxy.freeze();
    const inFlight = answer(server, 'update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 1', task_id: 'T01', name: '罠の設計' },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    proxy.reset();
    const lost = await inFlight;
    expect(lost.isError).toBe(true);
    expect(lost.error?.code).toBe('BACKEND_UNAVAILABLE');
    const next = await answer(server, 'get_progress', { project: 'trapxtrap' });
    expect(next.isError, JSON.stringify(next.body) + server.stderr().slice(-2000)).toBe(false);
    expect(server.stderr()).not.toContain("Unhandled 'error' event");
  });
});
