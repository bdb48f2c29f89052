import { ToolError, type Logger } from '@mcp-workbench/core/engine';
import type pg from 'pg';
import type { Embedder } from '../../search/embedder.js';
import type { Backend, BackendInfo, BulkSize, Stores, WriteOptions } from '../backend.js';
import { connectionSettings, createPool, type ConnectionSettings } from './connection.js';
import { connectFailure, isConnectionFailure, isRetryable, openFailure, unavailable } from './failures.js';
import { LOCK_TIMEOUT, READ_IDLE, timed, WRITE_IDLE } from './limits.js';
import { begun, flushPending, settle, type PgContext } from './context.js';
import { PgCatalog } from './catalog.js';
import { PgDocuments } from './documents.js';
import { prepareDatabase } from './migrate.js';
import { PgProjects } from './projects.js';
import {
  bulkIndexes,
  INDEX_BUILD_MEMORY,
  tablesOf,
  VECTOR_INDEXES,
  type Extensions,
  type Tables,
} from './schema.js';
import { PgSearchIndex } from './search-index.js';
import { PgSessions } from './sessions.js';
import { PgTracker } from './tracker.js';
import { storeVectors, type PendingVector } from './vectors.js';

export interface PostgresBackendOptions {
  url: string;
  /** `storage.schema`; a `?schema=` in the URL wins. */
  schema: string;
  poolSize: number;
  /** Use pgvector when it is installed (`storage.pgvector`). */
  pgvector: boolean;
  embedder?: Embedder | undefined;
  logger: Logger;
}

/** How often a transaction that lost a deadlock or a serialisation check is run again. */
const ATTEMPTS = 5;
/** A write that saves only derivable state commits without waiting for the WAL flush (WriteOptions.durable). */
const NOT_DURABLE = '; SET LOCAL synchronous_commit = off';

/**
 * Session settings of the searches (search-index.ts): HNSW keeps walking until enough rows pass the
 * filters; pg_trgm's word similarity a row needs to be a loose candidate when pgvector is not there.
 * Sent with a connection's first BEGIN (no round trip of their own), kept once that transaction commits.
 */
function sessionSettings(ext: Extensions): string {
  const settings: string[] = [];
  if (ext.vector) settings.push('SET hnsw.ef_search = 100', 'SET hnsw.iterative_scan = relaxed_order');
  else if (ext.trgm) settings.push('SET pg_trgm.word_similarity_threshold = 0.3');
  return settings.map((s) => `; ${s}`).join('');
}

/**
 * A bulk load drops a table's search indexes when it adds at least this many rows and at least this
 * share of the rows already there: each insert into an HNSW index walks the graph (about 5 ms for
 * 100,000 rows) and each GIN insert updates a posting list per trigram, while building them once costs
 * a fraction of that per row; a small import into a big store keeps them.
 */
const BULK_MIN_ROWS = 1000;
const BULK_MIN_SHARE = 0.2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The shared store for teams: every store in one PostgreSQL schema, reached through a `pg` pool. Many
 * servers on many machines share it: a write is one transaction that locks the project it changes
 * (advisory lock, then the rows it read with FOR UPDATE), so concurrent writers queue instead of
 * overwriting each other; reads run on a REPEATABLE READ snapshot and never wait.
 */
export class PostgresBackend implements Backend {
  readonly kind = 'postgres' as const;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly settings: ConnectionSettings,
    private readonly t: Tables,
    private readonly ext: Extensions,
    private readonly options: PostgresBackendOptions,
  ) {}

  /** Pooled connections whose session settings are in place (see sessionSettings). */
  private readonly configured = new WeakSet<pg.PoolClient>();

  static async open(options: PostgresBackendOptions): Promise<PostgresBackend> {
    const settings = connectionSettings(options.url, options.schema);
    const pool = createPool(settings, options.poolSize);
    const t = tablesOf(settings.schema);
    try {
      const prepared = await prepareDatabase(pool, t, settings, options);
      return new PostgresBackend(pool, settings, t, prepared.extensions, options);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw openFailure(settings.display, error);
    }
  }

  get location(): string {
    return this.settings.display;
  }

  get info(): BackendInfo {
    return {
      backend: this.kind,
      location: this.location,
      keyword_search: this.ext.trgm
        ? 'pg_trgm trigram index (LIKE) + short-term lexemes (tsvector, GIN)'
        : 'LIKE without an index (pg_trgm is not installed) + short-term lexemes (tsvector, GIN)',
      similarity_search: this.ext.vector
        ? 'pgvector HNSW over n-gram vectors'
        : this.ext.trgm
          ? 'pg_trgm word similarity (pgvector is not installed)'
          : 'none (neither pgvector nor pg_trgm is installed)',
      similarity_score: this.options.embedder
        ? `embeddings (${this.options.embedder.model}), n-grams while the endpoint is down`
        : 'character n-grams',
    };
  }

  private context(
    client: pg.PoolClient,
    writable: boolean,
  ): { ctx: PgContext; stores: Stores; vectors: PendingVector[] } {
    const ctx: PgContext = {
      client,
      t: this.t,
      ext: this.ext,
      writable,
      locked: new Set(),
      inflight: [],
      after: [],
      embedder: this.options.embedder,
      logger: this.options.logger,
      display: this.settings.display,
      queryTimeout: this.settings.queryTimeoutMs,
    };
    const vectors: PendingVector[] = [];
    const stores: Stores = {
      projects: new PgProjects(ctx),
      sessions: new PgSessions(ctx),
      documents: new PgDocuments(ctx),
      tracker: new PgTracker(ctx),
      catalog: new PgCatalog(ctx),
      search: new PgSearchIndex(ctx, vectors),
    };
    return { ctx, stores, vectors };
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw connectFailure(this.settings.display, error, this.options.poolSize);
    }
  }

  async read<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.transaction(false, work);
  }

  async write<T>(work: (stores: Stores) => Promise<T>, options?: WriteOptions): Promise<T> {
    return this.transaction(true, work, options?.durable !== false);
  }

  private async transaction<T>(
    writable: boolean,
    work: (stores: Stores) => Promise<T>,
    durable = true,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      const { ctx, stores, vectors } = this.context(client, writable);
      let broken = false;
      try {
        // SET inside the transaction is undone by a ROLLBACK: the client counts as configured only
        // once it committed.
        const settings = this.configured.has(client) ? '' : sessionSettings(this.ext);
        // Sent with the work's first statement, in the same write (context.ts submit).
        ctx.opening = writable
          ? `BEGIN; SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'; SET LOCAL idle_in_transaction_session_timeout = '${WRITE_IDLE}'${durable ? '' : NOT_DURABLE}${settings}`
          : `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL idle_in_transaction_session_timeout = '${READ_IDLE}'${settings}`;
        const value = await work(stores);
        await flushPending(ctx);
        await settle(ctx);
        // A work that sent no statement began no transaction: nothing to end.
        if (begun(ctx)) {
          if (writable) await client.query(this.statement('COMMIT'));
          else {
            // A read-only transaction has nothing to make durable and its reads are answered: its
            // COMMIT is sent and not waited for (one round trip less a read). The connection runs it
            // before the next transaction's first statement; a connection that fails meanwhile fails
            // that statement, which is retried on another connection like any connection failure
            // (nor does it need a query_timeout: one that went silent times that statement out).
            client.query('COMMIT').catch(() => undefined);
          }
          if (settings) this.configured.add(client);
        }
        client.release();
        await this.finish(ctx, vectors);
        return value;
      } catch (error) {
        broken = isConnectionFailure(error);
        if (!broken && begun(ctx))
          await client.query(this.statement('ROLLBACK')).catch(() => (broken = true));
        client.release(broken);
        if (isRetryable(error)) {
          if (attempt < ATTEMPTS) {
            await sleep(10 * attempt + Math.random() * 20 * attempt);
            continue;
          }
          throw new ToolError(
            'BACKEND_UNAVAILABLE',
            `PostgreSQL ended this transaction ${ATTEMPTS} times to resolve a ${(error as { code?: unknown }).code === '40P01' ? 'deadlock' : 'serialisation conflict'} with other servers' writes; nothing was saved.`,
            {
              hint: 'Retry in a moment. If it keeps happening, tell the prismind-mcp maintainers which tools ran at the same time.',
              cause: error,
            },
          );
        }
        if (broken)
          throw unavailable(this.settings.display, ctx.noAnswer ?? error, this.settings.queryTimeoutMs);
        if ((error as { code?: unknown }).code === '55P03') {
          throw new ToolError(
            'BACKEND_UNAVAILABLE',
            `Another server held a lock on this project for ${LOCK_TIMEOUT}; nothing was saved.`,
            {
              hint: 'Retry; if it keeps happening, look for a stuck session in pg_stat_activity.',
              cause: error,
            },
          );
        }
        throw error;
      }
    }
  }

  /** After COMMIT: embedding (network) and then storing its vectors in a short transaction of their own. */
  private async finish(ctx: PgContext, vectors: PendingVector[]): Promise<void> {
    for (const task of ctx.after) {
      try {
        await task();
      } catch (error) {
        this.options.logger.warn('Work after a transaction failed; it is done again when needed', error);
      }
    }
    if (vectors.length === 0) return;
    try {
      await this.saveVectors(vectors);
    } catch (error) {
      this.options.logger.warn('Storing embedding vectors failed; they will be computed again', error);
    }
  }

  private async saveVectors(rows: PendingVector[]): Promise<void> {
    const client = await this.connect();
    let broken = false;
    try {
      await storeVectors(client, this.t, rows, this.settings.queryTimeoutMs);
    } catch (error) {
      broken = isConnectionFailure(error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** A statement of a tool call's transaction, bounded like the others (limits.ts QUERY_TIMEOUT_MS). */
  private statement(text: string): pg.QueryConfig {
    return timed({ text }, this.settings.queryTimeoutMs);
  }

  /** Bulk loads running in this process: only the outermost one drops and builds indexes. */
  private bulkDepth = 0;

  /**
   * Drops the search indexes of the knowledge or catalog table (bulkIndexes: lexemes, trigrams, HNSW)
   * when the load grows it by a good share (see BULK_MIN_SHARE), runs the load, and builds each index
   * once at the end — also when the load fails. The drop and the build are transactions of their own:
   * other servers keep reading and writing meanwhile (their searches scan the table until the indexes
   * are back; a write waits for the build). A server that starts while an index is missing (this
   * process died mid-load) builds it (migrate.ts).
   */
  async bulk<T>(size: BulkSize, work: () => Promise<T>): Promise<T> {
    if (this.bulkDepth > 0) return this.nested(work);
    const counts = await this.admin(
      `SELECT (SELECT count(*) FROM ${this.t.knowledge}) AS knowledge, (SELECT count(*) FROM ${this.t.catalog}) AS catalog`,
    );
    const row = counts[0] as { knowledge: string; catalog: string };
    const indexes = (['knowledge', 'catalog'] as const)
      .filter((kind) => {
        const adding = kind === 'knowledge' ? size.knowledge : size.documents;
        return adding >= BULK_MIN_ROWS && adding >= BULK_MIN_SHARE * Number(row[kind]);
      })
      .flatMap((kind) => bulkIndexes(this.t, this.ext, kind));
    if (indexes.length === 0) return this.nested(work);
    await this.admin(
      indexes.map((index) => `DROP INDEX IF EXISTS ${this.t.schema}.${index.name}`).join('; '),
    );
    try {
      return await this.nested(work);
    } finally {
      await this.buildIndexes(indexes);
    }
  }

  /**
   * Builds the indexes in two transactions at once, on two connections: the HNSW graphs (pgvector's
   * build, the longest) beside the GIN indexes (each a single process), so a machine with two cores
   * builds them in about the time of the graphs alone. Both run to their end; the first failure is
   * thrown.
   */
  private async buildIndexes(indexes: { name: string; create: string }[]): Promise<void> {
    const graphs = new Set<string>(Object.values(VECTOR_INDEXES));
    const lanes = [
      indexes.filter((index) => graphs.has(index.name)),
      indexes.filter((index) => !graphs.has(index.name)),
    ].filter((lane) => lane.length > 0);
    const built = await Promise.allSettled(
      lanes.map((lane) =>
        this.admin(
          [
            `SET LOCAL maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`,
            ...lane.map((index) => index.create),
          ].join('; '),
        ),
      ),
    );
    const failed = built.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async nested<T>(work: () => Promise<T>): Promise<T> {
    this.bulkDepth++;
    try {
      return await work();
    } finally {
      this.bulkDepth--;
    }
  }

  /** Statements without parameters in one transaction of their own (one round trip); the last result's rows. */
  private async admin(statements: string): Promise<Record<string, unknown>[]> {
    const client = await this.connect();
    let broken = false;
    try {
      const results = await client.query(
        `BEGIN; SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'; ${statements}; COMMIT`,
      );
      // A multi-statement query answers with one result per statement.
      const all = (Array.isArray(results) ? results : [results]) as pg.QueryResult<Record<string, unknown>>[];
      return all.filter((r) => r.command === 'SELECT').at(-1)?.rows ?? [];
    } catch (error) {
      broken = isConnectionFailure(error);
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      throw broken ? unavailable(this.settings.display, error) : error;
    } finally {
      // A connection that failed goes, instead of back into the pool for the next call to trip on.
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
