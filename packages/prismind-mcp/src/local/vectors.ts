import { blobToVector, EmbedderDown, vectorCosine, vectorToBlob } from '../search/embedder.js';
import { GramScorer } from '../search/rank.js';
import { embedderWarning } from '../search/texts.js';
import type { LocalContext } from './context.js';

export type VectorKind = 'catalog' | 'knowledge';

export interface PendingVector {
  kind: VectorKind;
  item: number;
  model: string;
  vector: Float32Array;
}

/**
 * Similarity of each candidate text to the query: embedding cosine when an embedder is configured and
 * answers (stored vectors of the current model are reused; missing ones are embedded in the same request
 * as the query and stored after the transaction), else calibrated n-gram cosine — never an error.
 */
export async function similarities(
  ctx: LocalContext,
  kind: VectorKind,
  query: string,
  candidates: { id: number; text: string }[],
  warnings: string[],
  queue: PendingVector[],
): Promise<number[]> {
  const embedder = ctx.embedder;
  if (embedder && candidates.length > 0) {
    try {
      const stored = new Map<number, Float32Array>();
      const rows = ctx.db
        .prepare(
          `SELECT item, vector FROM vectors WHERE kind = ? AND model = ?
           AND item IN (SELECT value FROM json_each(?))`,
        )
        .all(kind, embedder.model, JSON.stringify(candidates.map((c) => c.id))) as {
        item: number;
        vector: Buffer;
      }[];
      for (const row of rows) stored.set(row.item, blobToVector(row.vector));
      const missing = candidates.filter((c) => !stored.has(c.id));
      const [queryVector, ...fresh] = await embedder.embed([query, ...missing.map((c) => c.text)]);
      missing.forEach((c, i) => {
        stored.set(c.id, fresh[i]!);
        queue.push({ kind, item: c.id, model: embedder.model, vector: fresh[i]! });
      });
      return candidates.map((c) => vectorCosine(queryVector!, stored.get(c.id)!));
    } catch (error) {
      if (!(error instanceof EmbedderDown)) throw error;
      warnings.push(embedderWarning(embedder.url));
    }
  } else if (embedder && !embedder.available) {
    warnings.push(embedderWarning(embedder.url));
  }
  const scorer = new GramScorer(query);
  return candidates.map((c) => scorer.similarity(c.text));
}

/** Embeds a new or changed text after the transaction; a down embedder only leaves the vector missing. */
export function embedLater(
  ctx: LocalContext,
  kind: VectorKind,
  item: number,
  text: string,
  queue: PendingVector[],
) {
  const embedder = ctx.embedder;
  if (!embedder) return;
  ctx.after.push(async () => {
    try {
      const [vector] = await embedder.embed([text]);
      queue.push({ kind, item, model: embedder.model, vector: vector! });
    } catch (error) {
      if (!(error instanceof EmbedderDown)) throw error;
    }
  });
}

export function storeVectors(ctx: LocalContext, rows: PendingVector[]): void {
  const insert = ctx.db.prepare(
    `INSERT INTO vectors (kind, item, model, dim, vector) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kind, item, model) DO UPDATE SET dim = excluded.dim, vector = excluded.vector`,
  );
  for (const row of rows)
    insert.run(row.kind, row.item, row.model, row.vector.length, vectorToBlob(row.vector));
}
