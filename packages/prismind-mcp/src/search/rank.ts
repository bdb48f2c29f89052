import {
  calibrate,
  countedCosine,
  GramCounter,
  gramVector,
  type CountedGrams,
  type GramVector,
} from '../text/ngram.js';
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

/**
 * The counted n-grams of texts scored lately, by text: a search scores the same candidates' texts again
 * and again (a document's fields, a knowledge entry), and counting them (normalising, splitting into
 * runs, hashing each gram) was most of a search's CPU time. Bounded by the grams and characters it
 * holds (about 14 MB at most; the oldest go first); longer texts are counted each time.
 */
const GRAM_CACHE_LIMIT = 1_000_000;
const GRAM_CACHE_TEXT = 4000;
const gramCache = new Map<string, CountedGrams>();
let gramCacheSize = 0;
const counter = new GramCounter();

export function countedGrams(text: string): CountedGrams {
  const cached = gramCache.get(text);
  if (cached) {
    // The newest last (a Map iterates in insertion order).
    gramCache.delete(text);
    gramCache.set(text, cached);
    return cached;
  }
  const grams = counter.grams(text);
  if (text.length > GRAM_CACHE_TEXT) return grams;
  gramCache.set(text, grams);
  gramCacheSize += grams.keys.length + text.length;
  for (const [old, oldGrams] of gramCache) {
    if (gramCacheSize <= GRAM_CACHE_LIMIT) break;
    gramCache.delete(old);
    gramCacheSize -= oldGrams.keys.length + old.length;
  }
  return grams;
}

/** Scores texts against a query with n-grams (the offline default). */
export class GramScorer {
  private readonly query: GramVector;
  constructor(query: string) {
    this.query = gramVector(query);
  }
  similarity(text: string): number {
    return calibrate(countedCosine(this.query, countedGrams(text)));
  }
}
