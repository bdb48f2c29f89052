import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Connected, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';
import { freePort, startProxy, type TestProxy } from './tcp-proxy.js';

const { url: base, kind } = serverUrl();

describe(`a server started while PostgreSQL is down (${kind})`, () => {
  let store: StoreFixture;
  let proxy: TestProxy | undefined;
  let client: Connected | undefined;
  beforeEach(async () => {
    store = await postgresStore(base);
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await proxy?.close();
    proxy = undefined;
    await store.cleanup();
  });

  it('answers BACKEND_UNAVAILABLE while it is down, and serves once it is up, without a restart', async () => {
    // The server's address leads nowhere until the proxy listens there.
    const port = await freePort();
    const url = new URL(store.env.PRISMIND_DATABASE_URL!);
    url.port = String(port);
    client = await connect(store, { env: { PRISMIND_DATABASE_URL: url.href } });
    for (let i = 0; i < 2; i++) {
      const error = await client.fail('list_projects');
      expect(error.code).toBe('BACKEND_UNAVAILABLE');
    }
    proxy = await startProxy(base, port);
    await client.call('setup_project', { project: 'trapxtrap', name: 'Trap' });
    const listed = await client.call<{ projects: { project_id: string }[] }>('list_projects');
    expect(listed.projects.map((p) => p.project_id)).toEqual(['trapxtrap']);
  });

  it('a bad configuration is not tried again: it stays the answer', async () => {
    client = await connect(store, { env: { PRISMIND_DATABASE_URL: 'mysql://nowhere/db' } });
    expect((await client.fail('list_projects')).code).toBe('CONFIG_INVALID');
    expect((await client.fail('list_projects')).code).toBe('CONFIG_INVALID');
  });
});
