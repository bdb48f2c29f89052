import type pg from 'pg';

/**
 * How long the PostgreSQL store waits, and lets the server wait, before a call gives up. Without bounds
 * a silent network drop (no FIN, no RST: a VPN, a failover, a sleeping laptop) hung a call forever, and
 * a write whose answers were lost kept its project's advisory lock until the connection died, hours
 * later: every teammate's write to that project waited LOCK_TIMEOUT and failed meanwhile.
 */

/** The longest a write waits for another server's lock before it gives up with BACKEND_UNAVAILABLE. */
export const LOCK_TIMEOUT = '60s';

/**
 * The longest a statement of a tool call waits for its answer (client side, node-postgres'
 * query_timeout; the connection is closed then). Above LOCK_TIMEOUT, so a write that waits for a lock
 * hears PostgreSQL's own answer first. `?query_timeout=` (milliseconds) in storage.url changes it.
 * Migrations and index builds (start, bulk loads) have no such bound: they may rightly run for minutes.
 */
export const QUERY_TIMEOUT_MS = 90_000;

/**
 * The server ends a session that sits inside a transaction doing nothing this long
 * (idle_in_transaction_session_timeout, set per transaction: a startup parameter would be refused by
 * PgBouncer): a write whose client vanished releases its project's lock well within the LOCK_TIMEOUT
 * its teammates wait. A write sends its statements back to back (only embedding waits on the network,
 * and that runs after COMMIT), so it is never idle that long itself.
 */
export const WRITE_IDLE = '30s';

/**
 * Reads may wait on the embeddings endpoint inside their transaction (search.embeddings_timeout_ms, at
 * most 120 s, one request a search); they hold no lock, so they get a longer bound of their own.
 */
export const READ_IDLE = '5min';

/**
 * TCP keepalive on every connection, first probe after this long idle: a pooled connection whose peer
 * vanished is found dead and dropped instead of being handed to the next call.
 */
export const KEEPALIVE_DELAY_MS = 10_000;

/** `config` with its own answer bound: node-postgres reads query_timeout from a query too (its types omit it). */
export function timed<V>(config: pg.QueryConfig<V>, ms: number): pg.QueryConfig<V> {
  return Object.assign(config, { query_timeout: ms });
}
