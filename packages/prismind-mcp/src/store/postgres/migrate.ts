import os from 'node:os';
import { ToolError, type Logger } from '@mcp-workbench/core/engine';
import type pg from 'pg';
import {
  bulkIndexes,
  INDEX_BUILD_MEMORY,
  migrations,
  trgmFeature,
  vectorFeature,
  type Extensions,
  type Tables,
} from './schema.js';

export interface Prepared {
  extensions: Extensions;
  /** Migration versions this start applied (empty when another server had already done it). */
  applied: number[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Tries `CREATE EXTENSION` inside a savepoint: a missing package or privilege only means "not available". */
async function tryExtension(client: pg.PoolClient, name: string, logger: Logger): Promise<void> {
  await client.query('SAVEPOINT prismind_ext');
  try {
    await client.query(`CREATE EXTENSION IF NOT EXISTS ${name}`);
    await client.query('RELEASE SAVEPOINT prismind_ext');
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT prismind_ext');
    logger.debug(`CREATE EXTENSION ${name} failed: ${(error as Error).message}`);
  }
}

async function installedExtensions(client: pg.PoolClient): Promise<Extensions> {
  const { rows } = await client.query<{ extname: string; nspname: string }>(
    `SELECT e.extname, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = ANY($1::text[])`,
    [['pg_trgm', 'vector']],
  );
  const schemaOf = (name: string) => {
    const row = rows.find((r) => r.extname === name);
    return row ? quote(row.nspname) : undefined;
  };
  return { trgm: schemaOf('pg_trgm'), vector: schemaOf('vector') };
}

function tooNew(display: string, version: number, supported: number): ToolError {
  return new ToolError(
    'STORE_TOO_NEW',
    `The PostgreSQL store at ${display} has schema version ${version}; this prismind-mcp understands up to ${supported}.`,
    {
      hint: 'Upgrade prismind-mcp on this machine (npx -y prismind-mcp@latest), or use another schema (?schema=… in the URL).',
      details: { version, supported },
    },
  );
}

/**
 * Brings the schema up to date on start, in one transaction under a transaction-level advisory lock
 * keyed by the schema: two servers starting together queue on the lock, the second finds the work done.
 * Extensions are created when the role may (pg_trgm and vector are trusted extensions on PostgreSQL ≥ 13
 * and 0.8 respectively only if the administrator allows it); what is missing is reported, never fatal.
 */
export async function prepareDatabase(
  pool: pg.Pool,
  t: Tables,
  { schema, display }: { schema: string; display: string },
  { logger, pgvector }: { logger: Logger; pgvector: boolean },
): Promise<Prepared> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
        'prismind:migrate',
        schema,
      ]);
      await tryExtension(client, 'pg_trgm', logger);
      if (pgvector) await tryExtension(client, 'vector', logger);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${t.migrations} (
           version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL)`,
      );
      const { rows } = await client.query<{ v: number | null }>(
        `SELECT max(version) AS v FROM ${t.migrations}`,
      );
      const current = rows[0]?.v ?? 0;
      const all = migrations(t);
      if (current > all.length) throw tooNew(display, current, all.length);
      const by = `${os.hostname()} pid ${process.pid}`;
      const applied: number[] = [];
      for (let v = current; v < all.length; v++) {
        await client.query(all[v]!);
        await client.query(`INSERT INTO ${t.migrations} (version, applied_by) VALUES ($1, $2)`, [v + 1, by]);
        applied.push(v + 1);
      }
      const installed = await installedExtensions(client);
      const extensions = { ...installed, vector: pgvector ? installed.vector : undefined };
      // Created once their extension is there (also when it is installed after the store was made).
      const missing = async (object: string) =>
        (await client.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [object])).rows[0]
          ?.r == null;
      if (extensions.trgm && (await missing(`${t.schema}.knowledge_trgm`)))
        await client.query(trgmFeature(t, extensions.trgm));
      if (extensions.vector && (await missing(t.knowledgeVec)))
        await client.query(vectorFeature(t, extensions.vector));
      // An index a bulk load had dropped (PostgresBackend.bulk) when that load was cut short.
      for (const kind of ['knowledge', 'catalog'] as const) {
        for (const index of bulkIndexes(t, extensions, kind)) {
          if (!(await missing(`${t.schema}.${index.name}`))) continue;
          logger.info(`PostgreSQL store ${display}: building the missing index ${index.name}`);
          await client.query(`SET LOCAL maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`);
          await client.query(index.create);
        }
      }
      await client.query('COMMIT');
      if (applied.length > 0)
        logger.info(`PostgreSQL store ${display}: applied migrations ${applied.join(', ')}`);
      return { extensions, applied };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}
