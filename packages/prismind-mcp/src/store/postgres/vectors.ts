import type pg from 'pg';
import {
  embedAfterTransaction,
  type PendingVector,
  scoreSimilarities,
  type VectorKind,
} from '../../search/similarity.js';
import { forEachGramOfRuns, gramRuns } from '../../text/ngram.js';
import type { TextRun } from '../../text/normalize.js';
import { query, type PgContext } from './context.js';
import { timed } from './limits.js';
import { GRAM_DIM, type Tables } from './schema.js';

export type { PendingVector, VectorKind };

/**
 * The character n-gram vector of part 1 folded into GRAM_DIM dimensions and normalised, each value
 * rounded to 5 decimals: what the HNSW index compares (cosine) to find texts that share pieces with a
 * query. Ranking still uses the exact n-gram cosine; the folded vector only finds the candidates.
 */
export function foldedGrams(text: string, runsOfWholeText?: TextRun[]): number[] {
  // Straight into the folded buckets, without the sparse map (a bulk load folds 100,000 texts); the
  // weights are small integers, so the sums are exact in any order.
  const folded = new Float64Array(GRAM_DIM);
  forEachGramOfRuns(gramRuns(text, runsOfWholeText), (key, weight) => {
    folded[((key % GRAM_DIM) + GRAM_DIM) % GRAM_DIM]! += weight;
  });
  let norm = 0;
  for (const v of folded) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  return Array.from(folded, (v) => Math.round((v / norm) * 1e5) / 1e5);
}

/**
 * foldedGrams in pgvector's text form (`[0.1,0.25,0]`). A bulk load sends it inside its JSON as a
 * string: PostgreSQL parses 1,000 rows' vectors from strings in about 50 ms, from JSON numbers (numeric,
 * then text, then float) in about 350 ms.
 */
export function foldedGramVector(text: string, runsOfWholeText?: TextRun[]): string {
  return `[${foldedGrams(text, runsOfWholeText).join(',')}]`;
}

/** Similarity of each candidate to the query (see scoreSimilarities), with vectors kept in PostgreSQL. */
export function similarities(
  ctx: PgContext,
  kind: VectorKind,
  text: string,
  candidates: { id: number; text: string }[],
  warnings: string[],
  queue: PendingVector[],
): Promise<number[]> {
  const loadStored = async (model: string, ids: number[]) => {
    const rows = await query<{ item: string; vector: number[] }>(
      ctx,
      `SELECT item, vector FROM ${ctx.t.vectors} WHERE kind = $1 AND model = $2 AND item = ANY($3::bigint[])`,
      [kind, model, ids],
    );
    return new Map(rows.map((row) => [Number(row.item), Float32Array.from(row.vector)]));
  };
  return scoreSimilarities(ctx.embedder, loadStored, kind, text, candidates, warnings, queue);
}

/** Embeds a new or changed text after the transaction; a down embedder only leaves the vector missing. */
export function embedLater(
  ctx: PgContext,
  kind: VectorKind,
  item: number,
  text: string,
  queue: PendingVector[],
): void {
  embedAfterTransaction(ctx.embedder, ctx.after, kind, item, text, queue);
}

export async function storeVectors(
  client: pg.PoolClient,
  t: Tables,
  rows: PendingVector[],
  queryTimeout: number,
): Promise<void> {
  if (rows.length === 0) return;
  // One statement for the batch: rows of arrays, unnested in the same order.
  const statement = {
    text: `INSERT INTO ${t.vectors} (kind, item, model, dim, vector)
     SELECT r.kind, r.item, r.model, r.dim, ARRAY(SELECT e::real FROM jsonb_array_elements_text(r.v) WITH ORDINALITY AS x (e, n) ORDER BY n)
     FROM jsonb_to_recordset($1::jsonb) AS r(kind text, item bigint, model text, dim integer, v jsonb)
     ON CONFLICT (kind, item, model) DO UPDATE SET dim = excluded.dim, vector = excluded.vector`,
    values: [
      JSON.stringify(
        rows.map((r) => ({
          kind: r.kind,
          item: r.item,
          model: r.model,
          dim: r.vector.length,
          v: Array.from(r.vector),
        })),
      ),
    ],
  };
  await client.query(timed(statement, queryTimeout));
}
