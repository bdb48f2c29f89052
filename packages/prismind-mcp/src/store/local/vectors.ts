import { blobToVector, vectorToBlob } from '../../search/embedder.js';
import {
  embedAfterTransaction,
  type PendingVector,
  scoreSimilarities,
  type VectorKind,
} from '../../search/similarity.js';
import type { LocalContext } from './context.js';

export type { PendingVector, VectorKind };

/** Similarity of each candidate to the query (see scoreSimilarities), with vectors kept in SQLite. */
export function similarities(
  ctx: LocalContext,
  kind: VectorKind,
  query: string,
  candidates: { id: number; text: string }[],
  warnings: string[],
  queue: PendingVector[],
): Promise<number[]> {
  const loadStored = async (model: string, ids: number[]) => {
    const rows = ctx.db
      .prepare(
        `SELECT item, vector FROM vectors WHERE kind = ? AND model = ?
           AND item IN (SELECT value FROM json_each(?))`,
      )
      .all(kind, model, JSON.stringify(ids)) as { item: number; vector: Buffer }[];
    return new Map(rows.map((row) => [row.item, blobToVector(row.vector)]));
  };
  return scoreSimilarities(ctx.embedder, loadStored, kind, query, candidates, warnings, queue);
}

/** Embeds a new or changed text after the transaction; a down embedder only leaves the vector missing. */
export function embedLater(
  ctx: LocalContext,
  kind: VectorKind,
  item: number,
  text: string,
  queue: PendingVector[],
) {
  embedAfterTransaction(ctx.embedder, ctx.after, kind, item, text, queue);
}

export function storeVectors(ctx: LocalContext, rows: PendingVector[]): void {
  const insert = ctx.db.prepare(
    `INSERT INTO vectors (kind, item, model, dim, vector) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kind, item, model) DO UPDATE SET dim = excluded.dim, vector = excluded.vector`,
  );
  for (const row of rows)
    insert.run(row.kind, row.item, row.model, row.vector.length, vectorToBlob(row.vector));
}
