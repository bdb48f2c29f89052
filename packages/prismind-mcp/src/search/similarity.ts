import { type Embedder, EmbedderDown, vectorCosine } from './embedder.js';
import { GramScorer } from './rank.js';
import { embedderWarning } from './texts.js';

export type VectorKind = 'catalog' | 'knowledge';

/** A vector embedded during a search, stored by the backend after its transaction. */
export interface PendingVector {
  kind: VectorKind;
  item: number;
  model: string;
  vector: Float32Array;
}

/** Reads the stored vectors of `model` for the given items (a backend's own storage). */
export type LoadStoredVectors = (model: string, ids: number[]) => Promise<Map<number, Float32Array>>;

/**
 * Similarity of each candidate text to the query: embedding cosine when an embedder is configured and
 * answers (stored vectors of the current model are reused; missing ones are embedded in the same request
 * as the query and queued to be stored after the transaction), else calibrated n-gram cosine — never an
 * error. Both backends score this way; only where the vectors are kept differs.
 */
export async function scoreSimilarities(
  embedder: Embedder | undefined,
  loadStored: LoadStoredVectors,
  kind: VectorKind,
  query: string,
  candidates: { id: number; text: string }[],
  warnings: string[],
  queue: PendingVector[],
): Promise<number[]> {
  if (embedder && candidates.length > 0) {
    try {
      const stored = await loadStored(
        embedder.model,
        candidates.map((c) => c.id),
      );
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

/**
 * Embeds a new or changed text once the transaction is over (`after` runs then); a down embedder only
 * leaves the vector missing, to be embedded by a later search.
 */
export function embedAfterTransaction(
  embedder: Embedder | undefined,
  after: (() => Promise<void>)[],
  kind: VectorKind,
  item: number,
  text: string,
  queue: PendingVector[],
): void {
  if (!embedder) return;
  after.push(async () => {
    try {
      const [vector] = await embedder.embed([text]);
      queue.push({ kind, item, model: embedder.model, vector: vector! });
    } catch (error) {
      if (!(error instanceof EmbedderDown)) throw error;
    }
  });
}
