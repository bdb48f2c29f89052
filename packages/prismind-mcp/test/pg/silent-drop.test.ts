import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Connected, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';
import { startProxy, type TestProxy } from './tcp-proxy.js';

const { url: base, kind } = serverUrl();

/** The store's URL through the proxy, with a short client-side bound (storage.url's query_timeout). */
function throughProxy(store: StoreFixture, proxy: TestProxy): Record<string, string> {
  const url = new URL(proxy.url(store.env.PRISMIND_DATABASE_URL!));
  url.searchParams.set('query_timeout', '2000');
  return { PRISMIND_DATABASE_URL: url.href };
}

describe(`a network that goes silent under a call (${kind})`, () => {
  let store: StoreFixture;
  let proxy: TestProxy;
  const clients: Connected[] = [];
  beforeEach(async () => {
    store = await postgresStore(base);
    proxy = await startProxy(base);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await proxy.close();
    await store.cleanup();
  });

  it('a call waits no longer than query_timeout and answers BACKEND_UNAVAILABLE; the next call works', async () => {
    const alice = await connect(store, { env: throughProxy(store, proxy) });
    clients.push(alice);
    await alice.call('setup_project', { project: 'trapxtrap', name: 'Trap' });
    await alice.call('add_knowledge', { content: 'ネットワーク分断のテスト', category: '技術Tips' });
    proxy.freeze();
    const started = Date.now();
    const error = await alice.fail('search_knowledge', { query: '分断' });
    expect(error.code).toBe('BACKEND_UNAVAILABLE');
    expect(error.message).toContain('did not answer within 2 s');
    expect(Date.now() - started).toBeLessThan(15_000);
    proxy.reset();
    await alice.call('search_knowledge', { query: '分断' });
  });

  // PGlite is one session for every connection: a write waiting for another's lock would wait for itself.
  it.runIf(kind === 'server')(
    "a write whose answers are lost does not keep the project's lock: PostgreSQL ends it, a teammate's write goes through",
    async () => {
      const alice = await connect(store, { env: throughProxy(store, proxy) });
      const bob = await connect(store);
      clients.push(alice, bob);
      await alice.call('setup_project', { project: 'trapxtrap', name: 'Trap' });
      await alice.call('update_progress', {
        task_id: 'T01',
        new_task: { phase: 'Phase 1', task_id: 'T01', name: '罠の設計' },
      });
      await bob.call('switch_project', { project: 'trapxtrap' });
      // Alice's statements arrive and run (her write takes the project's lock), her answers are lost.
      proxy.freeze('answers');
      const lost = await alice.fail('update_progress', {
        task_id: 'T01',
        notes: 'alice',
        project: 'trapxtrap',
      });
      expect(lost.code).toBe('BACKEND_UNAVAILABLE');
      // Her session still sits in its transaction on the server; bob's write waits for it to end,
      // which must come before his lock_timeout (60 s) gives up.
      const started = Date.now();
      await bob.call('update_progress', { task_id: 'T01', notes: 'bob' });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThan(10_000); // her transaction did hold the lock
      expect(waited).toBeLessThan(55_000);
      const progress = await bob.call<{ phases: { tasks: { notes: string }[] }[] }>('get_progress');
      expect(progress.phases[0]!.tasks[0]!.notes).toBe('bob');
      proxy.reset();
      await alice.call('get_progress', { project: 'trapxtrap' });
    },
  );
});
