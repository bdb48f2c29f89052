import os from 'node:os';
import { ToolError, type Logger } from '@mcp-workbench/core/engine';
import type pg from 'pg';
import type { CatalogEntry } from '../../model/types.js';
import { knowledgeText } from '../../search/texts.js';
import { shortTermTokenList } from '../../text/grams.js';
import { normalizeText, textRuns } from '../../text/normalize.js';
import { fillMissingVectors } from './backfill.js';
import { ENTRY_COLUMNS } from './catalog.js';
import {
  bulkIndexes,
  INDEX_BUILD_MEMORY,
  migrations,
  trgmFeature,
  vectorFeature,
  type Extensions,
  type Tables,
} from './schema.js';
import { catalogTokens, sectionRows } from './search-index.js';

/**
 * Text that version 4 of the store indexed differently: documents longer than the 2,000 characters of
 * body it kept, and emoji (not indexed before). Such documents and knowledge entries are indexed again
 * once, right after migration 5.
 */
const EMOJI_PATTERN = '[\\U00010000-\\U0010FFFF\\u2190-\\u2bff\\u00a9\\u00ae]';
const OLD_BODY_INDEXED = 2000;
const REINDEX_BATCH = 200;

async function indexAgain(
  client: pg.PoolClient,
  t: Tables,
): Promise<{ documents: number; knowledge: number }> {
  const columns = ENTRY_COLUMNS.split(',')
    .map((c) => `c.${c.trim()}`)
    .join(', ');
  const docs = await client.query<CatalogEntry & { id: string; body: string }>(
    `SELECT c.id, ${columns}, d.body FROM ${t.catalog} c
     JOIN ${t.documents} d ON d.project_key = c.project_key AND d.location = c.location
     WHERE length(d.body) > $1 OR d.body ~ $2`,
    [OLD_BODY_INDEXED, EMOJI_PATTERN],
  );
  for (let i = 0; i < docs.rows.length; i += REINDEX_BATCH) {
    // Section 0 goes into the catalog row's own columns, the others into catalog_text (new: empty).
    const rows = docs.rows
      .slice(i, i + REINDEX_BATCH)
      .flatMap(({ id, body, ...entry }) =>
        sectionRows(entry, body).map((section, part) => ({ id, part, ...section })),
      );
    await client.query(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, part integer, search_text text, tokens jsonb)
       ),
       head AS (
         UPDATE ${t.catalog} c SET search_text = r.search_text,
           tokens = array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r.tokens)))
         FROM input r WHERE r.part = 0 AND c.id = r.id
       )
       INSERT INTO ${t.catalogText} (id, part, search_text, tokens)
       SELECT r.id, r.part, r.search_text, array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r.tokens)))
       FROM input r WHERE r.part > 0`,
      [JSON.stringify(rows)],
    );
  }
  const knowledge = await client.query<{ id: string; content: string; tags: string[]; category: string }>(
    `SELECT id, content, tags, category FROM ${t.knowledge} WHERE content ~ $1 OR tags::text ~ $1 OR category ~ $1`,
    [EMOJI_PATTERN],
  );
  for (let i = 0; i < knowledge.rows.length; i += REINDEX_BATCH) {
    const rows = knowledge.rows.slice(i, i + REINDEX_BATCH).map((row) => {
      const searchText = normalizeText(knowledgeText(row));
      return { id: row.id, search_text: searchText, tokens: shortTermTokenList(textRuns(searchText)) };
    });
    await client.query(
      `UPDATE ${t.knowledge} k SET search_text = r.search_text,
         tokens = array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r.tokens)))
       FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, search_text text, tokens jsonb) WHERE k.id = r.id`,
      [JSON.stringify(rows)],
    );
  }
  return { documents: docs.rows.length, knowledge: knowledge.rows.length };
}

/**
 * Migration 6: every catalog row's lexemes get the pieces of its Japanese (recomputed from its stored
 * search text by catalogTokens, as sectionRows makes them), and each long document's first section becomes part 0 of
 * catalog_text. Returns how many catalog rows were indexed again.
 */
async function indexPiecesAgain(client: pg.PoolClient, t: Tables): Promise<number> {
  let after = 0;
  let count = 0;
  for (;;) {
    const { rows } = await client.query<{ id: string; search_text: string }>(
      `SELECT id, search_text FROM ${t.catalog} WHERE search_text IS NOT NULL AND id > $1 ORDER BY id LIMIT ${REINDEX_BATCH}`,
      [after],
    );
    if (rows.length === 0) break;
    const input = rows.map(({ id, search_text }) => ({ id, tokens: catalogTokens(search_text) }));
    await client.query(
      `UPDATE ${t.catalog} c SET tokens = array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r.tokens)))
       FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, tokens jsonb) WHERE c.id = r.id`,
      [JSON.stringify(input)],
    );
    after = Number(rows[rows.length - 1]!.id);
    count += rows.length;
  }
  await client.query(
    `INSERT INTO ${t.catalogText} (id, part, search_text, tokens)
     SELECT c.id, 0, c.search_text, c.tokens FROM ${t.catalog} c
     WHERE c.search_text IS NOT NULL AND c.id IN (SELECT id FROM ${t.catalogText})
     ON CONFLICT (id, part) DO NOTHING`,
  );
  return count;
}

export interface Prepared {
  extensions: Extensions;
  /** Migration versions this start applied (empty when another server had already done it). */
  applied: number[];
}

/** The migration after which documents are indexed whole (see indexAgain). */
const WHOLE_DOCUMENTS = 5;
/** The migration after which Japanese pieces are lexemes of every catalog row (see indexPiecesAgain). */
const PIECES_AS_LEXEMES = 6;

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
  const vector = schemaOf('vector');
  return { trgm: schemaOf('pg_trgm'), vector, vectorTables: vector };
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
      // Looked up first: CREATE SCHEMA IF NOT EXISTS checks CREATE on the database even when the
      // schema is there, so a role that only owns its schema (no CREATE on the database) could not start.
      const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (!rowCount) await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`);
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
      if (applied.includes(WHOLE_DOCUMENTS)) {
        const again = await indexAgain(client, t);
        if (again.documents + again.knowledge > 0)
          logger.info(
            `PostgreSQL store ${display}: indexed ${again.documents} documents whole and ${again.knowledge} knowledge entries with emoji again`,
          );
      }
      if (applied.includes(PIECES_AS_LEXEMES)) {
        const again = await indexPiecesAgain(client, t);
        if (again > 0)
          logger.info(`PostgreSQL store ${display}: indexed the Japanese of ${again} catalog rows again`);
      }
      const installed = await installedExtensions(client);
      // Created once their extension is there (also when it is installed after the store was made).
      const missing = async (object: string) =>
        (await client.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [object])).rows[0]
          ?.r == null;
      if (installed.trgm && (await missing(`${t.schema}.knowledge_trgm`)))
        await client.query(trgmFeature(t, installed.trgm));
      if (pgvector && installed.vector && (await missing(t.knowledgeVec)))
        await client.query(vectorFeature(t, installed.vector));
      const extensions = {
        ...installed,
        vector: pgvector ? installed.vector : undefined,
        vectorTables: installed.vector && !(await missing(t.knowledgeVec)) ? installed.vector : undefined,
      };
      if (extensions.vectorTables) {
        const filled = await fillMissingVectors(client, t, extensions.vectorTables);
        if (filled.knowledge + filled.catalog > 0)
          logger.info(
            `PostgreSQL store ${display}: computed the n-gram vectors of ${filled.knowledge} knowledge entries and ${filled.catalog} documents written without them`,
          );
      }
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
