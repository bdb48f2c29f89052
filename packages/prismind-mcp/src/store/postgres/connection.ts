import { ToolError } from '@mcp-workbench/core/engine';
import pg from 'pg';

/** A PostgreSQL identifier this backend creates itself (schema names): no quoting surprises. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export interface ConnectionSettings {
  /** The URL handed to `pg` (without prismind's own `schema` parameter). */
  url: string;
  /** The schema that holds prismind's tables. */
  schema: string;
  /** The URL without its password, for messages and `saved_to`. */
  display: string;
}

function invalidUrl(message: string): ToolError {
  return new ToolError('CONFIG_INVALID', message, {
    hint: 'Set storage.url in config.toml (or PRISMIND_DATABASE_URL) to postgres://user:password@host:5432/database, optionally with ?schema=name.',
    details: { key: 'storage.url' },
  });
}

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
    throw invalidUrl('storage.url is not a URL.');
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
  const display = new URL(url.href);
  display.password = '';
  display.search = '';
  return { url: url.href, schema, display: `${display.href}#${schema}` };
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
  });
  // An idle connection that the server closes (restart, failover) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** SQLSTATE classes and socket errors that mean "the server is not there (now)". */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') {
    const message = error instanceof Error ? error.message : '';
    return /Connection terminated|timeout expired|connect/i.test(message);
  }
  return (
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    code === '53300' ||
    ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'EPIPE'].includes(
      code,
    )
  );
}

export function unavailable(display: string, error: unknown): ToolError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ToolError('BACKEND_UNAVAILABLE', `PostgreSQL at ${display} cannot be reached: ${reason}`, {
    hint: 'Check that the server runs and accepts connections from this machine, and the URL, user and password in storage.url / PRISMIND_DATABASE_URL.',
    cause: error,
  });
}

/** SQLSTATEs after which the whole transaction is simply run again. */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '40001' || code === '40P01';
}

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
