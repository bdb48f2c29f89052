import { ToolError } from '@mcp-workbench/core/engine';

/** node-postgres' error when a statement's answer did not come within query_timeout (limits.ts). */
const NO_ANSWER = 'Query read timeout';

export function isNoAnswer(error: unknown): boolean {
  return error instanceof Error && error.message === NO_ANSWER;
}

/** SQLSTATE classes and socket errors that mean "the server is not there (now)". */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') {
    const message = error instanceof Error ? error.message : '';
    return /Connection terminated|timeout expired|connect|Query read timeout/i.test(message);
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

export function unavailable(display: string, error: unknown, queryTimeoutMs?: number): ToolError {
  const reason = error instanceof Error ? error.message : String(error);
  if (isNoAnswer(error)) {
    const seconds = queryTimeoutMs === undefined ? '' : ` within ${queryTimeoutMs / 1000} s`;
    return new ToolError(
      'BACKEND_UNAVAILABLE',
      `PostgreSQL at ${display} did not answer${seconds}; the connection was closed. A write may or may not have been saved.`,
      {
        hint: 'The network to the server or the server itself is stuck. Retry; check the write with a read before repeating it.',
        cause: error,
      },
    );
  }
  return new ToolError('BACKEND_UNAVAILABLE', `PostgreSQL at ${display} cannot be reached: ${reason}`, {
    hint: 'Check that the server runs and accepts connections from this machine, and the URL, user and password in storage.url / PRISMIND_DATABASE_URL.',
    cause: error,
  });
}

/** pg-pool's error when every connection of the pool stayed in use for connectionTimeoutMillis. */
const POOL_BUSY = 'timeout exceeded when trying to connect';

/**
 * Why a connection could not be had, each cause with its own remedy: the pool's connections all busy
 * (calls queued on locks), the user refused (SQLSTATE class 28), the database missing
 * (3D000), else the server not reachable.
 */
export function connectFailure(display: string, error: unknown, poolSize?: number): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  const code = sqlState(error);
  if (message === POOL_BUSY) {
    const connections = poolSize === undefined ? 'connections' : `${poolSize} connections`;
    return new ToolError(
      'BACKEND_UNAVAILABLE',
      `All ${connections} of this server to PostgreSQL at ${display} are busy (calls waiting for project locks or for a slow answer); this call waited for one in vain.`,
      {
        hint: 'Retry when the calls before it are done. If it keeps happening, raise storage.pool_size, or look in pg_stat_activity for a session holding a project lock.',
        cause: error,
      },
    );
  }
  if (code?.startsWith('28')) {
    return new ToolError('BACKEND_UNAVAILABLE', `PostgreSQL at ${display} refused the login: ${message}`, {
      hint: 'Check the user name and password in storage.url / PRISMIND_DATABASE_URL (special characters in them percent-encoded: # as %23, @ as %40), and that pg_hba.conf lets this user in from this machine.',
      details: { key: 'storage.url', sqlstate: code },
      cause: error,
    });
  }
  if (code === '3D000') {
    return new ToolError('BACKEND_UNAVAILABLE', `PostgreSQL at ${display}: ${message}`, {
      hint: 'Fix the database name (after the host and port) in storage.url, or have it created (CREATE DATABASE name).',
      details: { key: 'storage.url', sqlstate: code },
      cause: error,
    });
  }
  return unavailable(display, error);
}

/** Why the store could not be opened (PostgresBackend.open): connecting, then preparing the schema. */
export function openFailure(display: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const code = sqlState(error);
  if (isConnectionFailure(error) || code?.startsWith('28') || code === '3D000') {
    return connectFailure(display, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    'BACKEND_UNAVAILABLE',
    `The PostgreSQL store at ${display} could not be prepared: ${message}`,
    {
      hint:
        code === '42501'
          ? 'The role in storage.url needs CREATE on the database, or a schema of that name it owns (CREATE SCHEMA name AUTHORIZATION role, by an administrator).'
          : 'See the server log; the role in storage.url needs CREATE on the database or a schema of that name it owns.',
      cause: error,
    },
  );
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
