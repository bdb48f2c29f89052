import { randomBytes } from 'node:crypto';
import { silentLogger } from '@mcp-workbench/core/engine';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/store/postgres/postgres-backend.js';
import { connect, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';

const { url: base, kind } = serverUrl();

describe(`what a failure to reach PostgreSQL says (${kind})`, () => {
  let store: StoreFixture;
  beforeEach(async () => {
    store = await postgresStore(base);
  });
  afterEach(async () => store.cleanup());

  /** The error of list_projects on a server given this URL. */
  async function failureWith(url: string) {
    const client = await connect(store, { env: { PRISMIND_DATABASE_URL: url } });
    try {
      return await client.fail('list_projects');
    } finally {
      await client.close();
    }
  }

  it('a # in the password is named, with how to encode it', async () => {
    for (const url of ['postgres://pwuser:ri#ght@127.0.0.1:5432/db', 'postgres://user:1234#5@127.0.0.1/db']) {
      const error = await failureWith(url);
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.hint).toContain('%23');
    }
  });

  // PGlite lets any user into any database.
  it.runIf(kind === 'server')('an unknown user and an unknown database each get their own hint', async () => {
    const unknownUser = new URL(base);
    unknownUser.username = `nobody_${randomBytes(4).toString('hex')}`;
    const user = await failureWith(unknownUser.href);
    expect(user.message).toContain('refused the login');
    expect(user.hint).toContain('user name and password');
    expect(user.hint).not.toContain('CREATE on the database');
    const unknownDb = new URL(base);
    unknownDb.pathname = `/nodb_${randomBytes(4).toString('hex')}`;
    const db = await failureWith(unknownDb.href);
    expect(db.message).toContain('does not exist');
    expect(db.hint).toContain('database name');
    expect(db.hint).not.toContain('CREATE on the database');
  });

  // PGlite is one session for every connection: a write waiting for another's lock would wait for itself.
  it.runIf(kind === 'server')(
    'a pool whose connections all wait on locks says so, not "cannot be reached"',
    async () => {
      const backend = await PostgresBackend.open({
        url: store.env.PRISMIND_DATABASE_URL!,
        schema: 'prismind',
        poolSize: 1,
        pgvector: false,
        logger: silentLogger,
      });
      const holder = new pg.Client({ connectionString: base });
      await holder.connect();
      try {
        const schema = new URL(store.env.PRISMIND_DATABASE_URL!).searchParams.get('schema')!;
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
          `"${schema}"`,
          'team',
        ]);
        // The pool's one connection waits for the lock; a read then waits for the connection.
        const waiting = backend.write((stores) => stores.projects.get('team'));
        waiting.catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const error = await backend
          .read((stores) => stores.projects.list())
          .then(
            () => undefined,
            (e: unknown) => e as { code: string; message: string },
          );
        expect(error?.code).toBe('BACKEND_UNAVAILABLE');
        expect(error?.message).toContain('busy');
        expect(error?.message).not.toContain('cannot be reached');
        await holder.query('ROLLBACK');
        await waiting;
      } finally {
        await holder.end();
        await backend.close();
      }
    },
  );
});
