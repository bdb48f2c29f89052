import { silentLogger } from '@mcp-workbench/core/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/store/postgres/postgres-backend.js';
import { connect, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';

const { url: base, kind } = serverUrl();

describe(`writes that name documents of another project (${kind})`, () => {
  let store: StoreFixture;
  beforeEach(async () => {
    store = await postgresStore(base);
  });
  afterEach(async () => store.cleanup());

  // PGlite is one session for every connection: two writers never wait for each other there.
  it.runIf(kind === 'server')(
    'create_document with related_docs in the other project, from two servers at once, never deadlocks',
    async () => {
      const [a, b] = await Promise.all([connect(store), connect(store)]);
      try {
        await a.call('setup_project', { project: 'alpha', name: 'Alpha' });
        await b.call('setup_project', { project: 'beta', name: 'Beta', force: true });
        const doc = (project: string, name: string, related: string[] = []) => ({
          name,
          doc_type: '設計書',
          content: name,
          phase_task: '共通',
          project,
          related_docs: related,
        });
        const da = await a.call<{ doc_id: string }>('create_document', doc('alpha', 'α設計'));
        const db = await b.call<{ doc_id: string }>('create_document', doc('beta', 'β設計'));
        // Each takes its own project's lock, then looks at the other's document: opposite orders.
        const answers = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            i % 2
              ? b.call('create_document', doc('beta', `β関連${i}`, [da.doc_id]))
              : a.call('create_document', doc('alpha', `α関連${i}`, [db.doc_id])),
          ),
        );
        expect(answers).toHaveLength(16);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );

  it('a transaction that keeps losing deadlocks answers BACKEND_UNAVAILABLE with what to do, not INTERNAL', async () => {
    const backend = await PostgresBackend.open({
      url: store.env.PRISMIND_DATABASE_URL!,
      schema: 'prismind',
      poolSize: 2,
      pgvector: false,
      logger: silentLogger,
    });
    let attempts = 0;
    try {
      const deadlock = backend.write(async () => {
        attempts++;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      });
      await expect(deadlock).rejects.toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        hint: expect.stringContaining('Retry'),
      });
      expect(attempts).toBe(5);
    } finally {
      await backend.close();
    }
  });
});
