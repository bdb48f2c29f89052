import { gramCosine, gramVector, calibrate, type GramVector } from '../text/ngram.js';
import { normalizeText } from '../text/normalize.js';
import { containsTerm, type QueryTerm } from '../text/terms.js';

/** Rows that match only some pieces of the query are shown when they score at least this. */
export const LOOSE_MIN_RELEVANCE = 0.2;

/**
 * relevance_score in [0, 1]: half for how many query terms the text contains (each term matched the
 * way the index matches it), half for similarity (embedding cosine when an embedder answered, else
 * calibrated character n-gram cosine). A text containing every term scores at least 0.5.
 */
export function relevance(coverage: number, similarity: number): number {
  return Math.round((0.5 * coverage + 0.5 * similarity) * 10_000) / 10_000;
}

export function coverage(terms: QueryTerm[], text: string): number {
  if (terms.length === 0) return 0;
  const normalized = normalizeText(text);
  return terms.filter((t) => containsTerm(normalized, t)).length / terms.length;
}

/** Scores texts against a query with n-grams (the offline default). */
export class GramScorer {
  private readonly query: GramVector;
  constructor(query: string) {
    this.query = gramVector(query);
  }
  similarity(text: string): number {
    return calibrate(gramCosine(this.query, gramVector(text)));
  }
}
