import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ToolError } from '@mcp-workbench/core/engine';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** How long one statement waits for another process's lock before the async retry takes over. */
  busyTimeoutMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

/** Total time a writer keeps retrying a busy database before it reports BACKEND_UNAVAILABLE. */
const BUSY_GIVE_UP_MS = 60_000;

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY: other server processes on the same home hold
 * the write lock for milliseconds, so waiting (with jittered backoff, without blocking the event loop)
 * is always right; after a minute something is wrong and the caller hears it.
 */
export async function retryBusy<T>(attempt: () => T, what: string): Promise<T> {
  const started = Date.now();
  for (let delay = 5; ; delay = Math.min(delay * 2, 250)) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() - started > BUSY_GIVE_UP_MS) {
        throw new ToolError('BACKEND_UNAVAILABLE', `The local store stayed locked for a minute (${what}).`, {
          hint: 'Another process holds the database; retry, or stop the process that keeps it locked.',
          cause: error,
        });
      }
      await sleep(delay / 2 + Math.random() * delay);
    }
  }
}

/** An error that means "this process may not write here" (permissions, a read-only file system). */
function cannotWrite(error: unknown): boolean {
  const value = (error as { code?: unknown }).code;
  const code = typeof value === 'string' ? value : '';
  return (
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_CANTOPEN') ||
    code === 'SQLITE_PERM' ||
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS'
  );
}

/**
 * The database file itself, created 0600 before SQLite opens it (its WAL files take its mode). Several
 * servers may start on a new store at once: one that finds the file made meanwhile takes it as it is.
 */
function createPrivately(file: string): void {
  let info = lstatSync(file, { throwIfNoEntry: false });
  if (!info) {
    try {
      closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      info = lstatSync(file, { throwIfNoEntry: false });
    }
  }
  if (info?.isSymbolicLink()) {
    throw new ToolError(
      'BACKEND_UNAVAILABLE',
      `${file} is a symbolic link; the store does not follow links.`,
      {
        hint: 'Replace the link with the database file itself, or point PRISMIND_HOME at the folder that holds it.',
      },
    );
  }
}

/**
 * Opens (creating if needed) the store's database: WAL so readers never block the writer, a busy
 * timeout, foreign keys, a bounded WAL file, then the migrations up to this version. A database written
 * by a newer version is refused rather than misread. The folder is made 0700 and the file 0600. Where
 * this process may not write (permissions, a read-only file system) the store is opened read-only.
 */
export async function openDatabase(
  file: string,
  options: OpenOptions,
): Promise<{ db: Db; readOnly: boolean }> {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    createPrivately(file);
    return { db: await openWritable(file, options), readOnly: false };
  } catch (error) {
    if (!cannotWrite(error) || !existsSync(file)) throw error;
    return { db: openReadOnly(file), readOnly: true };
  }
}

/**
 * A store this process may only read. SQLite reads a WAL database read-only when its -shm file exists;
 * a store closed cleanly has none and its folder may not be writable, so the file is then read into
 * memory as it is (without a -wal file nothing is missing from it).
 */
function openReadOnly(file: string): Db {
  let db: Db | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    // exec, not prepare: a probe must leave no Statement behind (see keptStatements).
    db.exec('SELECT count(*) FROM sqlite_master');
  } catch {
    db?.close();
    const image = readFileSync(file);
    // Bytes 18 and 19 say "WAL": an in-memory copy reads in rollback-journal mode.
    if (image[18] === 2) image[18] = 1;
    if (image[19] === 2) image[19] = 1;
    db = new Database(image, { readonly: true });
  }
  cacheStatements(db);
  const version = userVersion(db);
  if (version > SCHEMA_VERSION) {
    db.close();
    throw tooNew(file, version);
  }
  if (version < SCHEMA_VERSION) {
    db.close();
    throw new ToolError(
      'PERMISSION_DENIED',
      `${file} was written by an older prismind-mcp and this process may not write to upgrade it.`,
      {
        hint: 'Open the store once with write access (the owner of the folder), then read-only access works.',
      },
    );
  }
  return db;
}

async function openWritable(file: string, options: OpenOptions): Promise<Db> {
  const db = new Database(file, { timeout: options.busyTimeoutMs });
  cacheStatements(db);
  try {
    await retryBusy(() => db.exec('PRAGMA journal_mode = WAL'), 'enabling WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // After each checkpoint the WAL file is cut back to 4 MiB, so it cannot grow without bound.
    db.exec('PRAGMA journal_size_limit = 4194304');
    await migrate(db, file);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Every prepared statement of every connection, kept for the life of the process. better-sqlite3 12's
 * Statement destructor, run by the garbage collector on Node 24, can abort the process
 * (`node::RemoveEnvironmentCleanupHook`: "Assertion failed: (env) != nullptr"; fixed upstream only in the
 * Node-API rewrite, 13.x, which crashed on Node 20). A statement that is never collected never runs it.
 */
const keptStatements: Map<string, Database.Statement>[] = [];

/**
 * Prepared statements are reused: parsing the same SQL on every call costs more than running it, and
 * (see above) a statement must never become garbage. The stores only ever run statements to completion
 * (get/all/run), so sharing one is safe; the SQL texts are a fixed, small set.
 */
function cacheStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  keptStatements.push(cache);
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
}

function userVersion(db: Db): number {
  return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
}

async function migrate(db: Db, file: string): Promise<void> {
  const current = userVersion(db);
  if (current > SCHEMA_VERSION) throw tooNew(file, current);
  if (current === SCHEMA_VERSION) return;
  await retryBusy(() => db.exec('BEGIN IMMEDIATE'), 'migrating');
  try {
    // Read again under the write lock: another process may have migrated meanwhile.
    const version = userVersion(db);
    if (version > SCHEMA_VERSION) throw tooNew(file, version);
    for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

function tooNew(file: string, version: number): ToolError {
  return new ToolError(
    'STORE_TOO_NEW',
    `${file} has schema version ${version}; this prismind-mcp understands up to ${SCHEMA_VERSION}.`,
    {
      hint: 'Upgrade prismind-mcp (npx -y prismind-mcp@latest), or point PRISMIND_HOME at another folder.',
      details: { file, version, supported: SCHEMA_VERSION },
    },
  );
}
