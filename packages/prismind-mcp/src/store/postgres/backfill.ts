import type pg from 'pg';
import type { CatalogEntry } from '../../model/types.js';
import { catalogText, knowledgeText } from '../../search/texts.js';
import { ENTRY_COLUMNS } from './catalog.js';
import { VECTOR_INDEXES, type Tables } from './schema.js';
import { foldedGramVector } from './vectors.js';

/** Rows a batch reads and fills. */
const BATCH = 500;
/**
 * From this many missing vectors on, the table's HNSW index is dropped first and built once afterwards
 * (prepareDatabase builds a missing index): each insert into the graph costs milliseconds.
 */
const REBUILD_FROM = 1000;

/**
 * Gives every knowledge entry and catalog row without an n-gram vector its vector: rows written while
 * the vector tables did not exist (pgvector installed, or storage.pgvector turned on, after the store
 * had entries) were otherwise never found by the vector search. Runs inside prepareDatabase's
 * transaction; returns how many rows it filled.
 */
export async function fillMissingVectors(
  client: pg.PoolClient,
  t: Tables,
  vectorSchema: string,
): Promise<{ knowledge: number; catalog: number }> {
  const kinds = {
    knowledge: {
      vec: t.knowledgeVec,
      rows: `SELECT k.id, k.content, k.tags, k.category FROM ${t.knowledge} k
             WHERE NOT EXISTS (SELECT 1 FROM ${t.knowledgeVec} v WHERE v.id = k.id) AND k.id > $1 ORDER BY k.id LIMIT ${BATCH}`,
      text: (row: Record<string, unknown>) =>
        knowledgeText(row as { content: string; tags: string[]; category: string }),
    },
    catalog: {
      vec: t.catalogVec,
      rows: `SELECT c.id, ${ENTRY_COLUMNS.split(',')
        .map((c) => `c.${c.trim()}`)
        .join(', ')}, d.body FROM ${t.catalog} c
             JOIN ${t.documents} d ON d.project_key = c.project_key AND d.location = c.location
             WHERE NOT EXISTS (SELECT 1 FROM ${t.catalogVec} v WHERE v.id = c.id) AND c.id > $1 ORDER BY c.id LIMIT ${BATCH}`,
      text: (row: Record<string, unknown>) => catalogText(row as unknown as CatalogEntry, row.body as string),
    },
  };
  const filled = { knowledge: 0, catalog: 0 };
  for (const kind of ['knowledge', 'catalog'] as const) {
    const { vec, rows: select, text } = kinds[kind];
    // Runs at every start. A vector's id references its row (a foreign key), so as many vectors as rows
    // means none is missing: two counts, read from the primary keys' indexes, instead of an anti-join
    // that reads the whole vector table (341 MB for 300,000 entries; 0.2–0.3 s at every start, more cold).
    const { rows: counts } = await client.query<{ rows: string; vectors: string }>(
      `SELECT (SELECT count(*) FROM ${kind === 'knowledge' ? t.knowledge : t.catalog}) AS rows,
              (SELECT count(*) FROM ${vec}) AS vectors`,
    );
    const missing = Number(counts[0]!.rows) - Number(counts[0]!.vectors);
    if (missing <= 0) continue;
    let after = 0;
    for (;;) {
      const { rows } = await client.query<Record<string, unknown> & { id: string }>(select, [after]);
      if (rows.length === 0) break;
      // Only once rows to fill are there (a catalog row is filled with its document's text).
      if (filled[kind] === 0 && rows.length === BATCH && missing >= REBUILD_FROM)
        await client.query(`DROP INDEX IF EXISTS ${t.schema}.${VECTOR_INDEXES[kind]}`);
      const input = rows.map((row) => ({ id: row.id, vec: foldedGramVector(text(row)) }));
      await client.query(
        `INSERT INTO ${vec} (id, vec)
         SELECT r.id, r.vec::${vectorSchema}.vector FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, vec text)
         ON CONFLICT (id) DO NOTHING`,
        [JSON.stringify(input)],
      );
      filled[kind] += rows.length;
      after = Number(rows[rows.length - 1]!.id);
    }
  }
  return filled;
}
