import { ToolError } from '@mcp-workbench/core/engine';
import pg from 'pg';
import { KEEPALIVE_DELAY_MS, QUERY_TIMEOUT_MS } from './limits.js';

/** A PostgreSQL identifier this backend creates itself (schema names): no quoting surprises. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export interface ConnectionSettings {
  /** The URL handed to `pg` (without prismind's own `schema` parameter). */
  url: string;
  /** The schema that holds prismind's tables. */
  schema: string;
  /** The URL without its password, for messages and `saved_to`. */
  display: string;
  /** How long a tool call's statement waits for its answer (limits.ts QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
}

function invalidUrl(message: string, hint?: string): ToolError {
  return new ToolError('CONFIG_INVALID', message, {
    hint:
      hint ??
      'Set storage.url in config.toml (or PRISMIND_DATABASE_URL) to postgres://user:password@host:5432/database, optionally with ?schema=name.',
    details: { key: 'storage.url' },
  });
}

/** A password (or user name) with a character that means something in a URL: the usual cause of a broken URL. */
const ENCODE_HINT =
  'Write it as postgres://user:password@host:5432/database. A user name or password with # / ? @ : or % must be percent-encoded in the URL: # as %23, / as %2F, ? as %3F, @ as %40, : as %3A, % as %25 (encodeURIComponent gives it).';

/**
 * Reads `storage.url` (`postgres://user:pass@host:port/db?schema=team_a&sslmode=require`). `schema` is
 * prismind's own parameter (as in Prisma's URLs) and wins over `storage.schema`; every other parameter
 * goes to `pg` as given.
 */
export function connectionSettings(rawUrl: string, defaultSchema: string): ConnectionSettings {
  if (!rawUrl.trim()) {
    throw new ToolError('CONFIG_INVALID', 'storage.backend = "postgres" needs a database URL.', {
      hint: 'Set storage.url = "postgres://user:password@host:5432/database" in config.toml, or PRISMIND_DATABASE_URL.',
      details: { key: 'storage.url' },
    });
  }
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    throw invalidUrl('storage.url is not a URL.', ENCODE_HINT);
  }
  // A # starts the URL's fragment: what follows it (the rest of a password, the host) is cut off.
  if (url.hash) {
    throw invalidUrl(
      'storage.url has a # in it: everything after it is cut off (host and database included).',
      ENCODE_HINT,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw invalidUrl(`storage.url must start with postgres:// (got ${url.protocol}//).`);
  }
  const schema = url.searchParams.get('schema') ?? defaultSchema;
  if (!IDENTIFIER.test(schema)) {
    throw invalidUrl(
      `The schema "${schema}" is not a plain lower-case PostgreSQL identifier (letters, digits, _).`,
    );
  }
  url.searchParams.delete('schema');
  // prismind's own too: node-postgres would apply it to migrations and index builds as well.
  const queryTimeout = url.searchParams.get('query_timeout');
  const queryTimeoutMs = queryTimeout === null ? QUERY_TIMEOUT_MS : Number(queryTimeout);
  if (!Number.isInteger(queryTimeoutMs) || queryTimeoutMs <= 0) {
    throw invalidUrl(
      `query_timeout=${queryTimeout} in storage.url is not a positive number of milliseconds.`,
    );
  }
  url.searchParams.delete('query_timeout');
  const display = new URL(url.href);
  display.password = '';
  display.search = '';
  return { url: url.href, schema, display: `${display.href}#${schema}`, queryTimeoutMs };
}

export function createPool(settings: ConnectionSettings, size: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: size,
    // One connection stays open however long the server idles: a new one pays the server's catalog
    // warm-up (the first search on a fresh connection took 50–100 ms instead of 10–20 ms here).
    min: 1,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'prismind-mcp',
    // A statement is sent without waiting for the answers before it (node-postgres' pipelining): a
    // transaction's BEGIN, its advisory lock and the writes nothing reads back cost no round trip of
    // their own (context.ts send). The server still runs them one after the other, in order.
    pipeline: true,
    // A pooled connection whose peer vanished is found dead (see limits.ts).
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  // An idle connection that the server closes (restart, failover) must not crash the process.
  pool.on('error', () => undefined);
  // Nor one that drops while a call holds it: pg-pool removes its own listener from a checked-out
  // client, and a client's 'error' without a listener is thrown. The query in flight is rejected
  // anyway (and answered as BACKEND_UNAVAILABLE), so the event itself needs nothing more.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
