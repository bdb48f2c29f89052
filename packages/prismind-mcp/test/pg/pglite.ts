import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite (PostgreSQL compiled to WebAssembly, with pg_trgm and pgvector) behind pglite-socket on
 * loopback: a PostgreSQL server for the `pg` client with Node alone. PGlite is one session: the socket
 * server queues statements and keeps a transaction's statements together, so many connections (several
 * server processes) work, one transaction at a time.
 */
export async function startPglite(): Promise<{ url: string; stop: () => Promise<void> }> {
  const db = await PGlite.create({ extensions: { pg_trgm, vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 500 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
