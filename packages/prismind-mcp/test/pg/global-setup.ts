/**
 * Starts one PGlite (PostgreSQL compiled to WebAssembly, with pg_trgm and pgvector) behind
 * pglite-socket on loopback for the whole test run, so the PostgreSQL backend's tests run the same `pg`
 * code on any machine with Node alone. Each test gets a schema of its own in it. With
 * PRISMIND_TEST_DATABASE_URL set (CI's throwaway cluster), the backend's tests use that server instead
 * and PGlite serves only the test that checks PGlite itself.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const db = await PGlite.create({ extensions: { pg_trgm, vector } });
  // PGlite is one session: the socket server queues statements and keeps a transaction's statements
  // together, so many connections (several server processes) work, one transaction at a time.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 500 });
  await server.start();
  project.provide('pgliteUrl', `postgres://postgres@${server.getServerConn()}/postgres`);
  return async () => {
    await server.stop();
    await db.close();
  };
}
