import { normalizeText, textRuns } from './normalize.js';

/** A sparse vector of character n-grams with its norm, ready for cosine similarity. */
export interface GramVector {
  grams: Map<string, number>;
  norm: number;
}

/** Long texts are cut: similarity of the first part is enough to rank, and keeps scoring fast. */
const MAX_CHARS = 4000;

/**
 * Character uni-, bi- and trigrams of each run of letters (bigrams and trigrams weigh more: they carry
 * order). Works the same for Japanese and English without a dictionary or a model, so it runs offline.
 */
export function gramVector(text: string): GramVector {
  const grams = new Map<string, number>();
  const add = (gram: string, weight: number) => grams.set(gram, (grams.get(gram) ?? 0) + weight);
  for (const run of textRuns(normalizeText(text.slice(0, MAX_CHARS)))) {
    const chars = [...run.text];
    for (let i = 0; i < chars.length; i++) {
      add(chars[i]!, 1);
      if (i + 1 < chars.length) add(chars[i]! + chars[i + 1]!, 2);
      if (i + 2 < chars.length) add(chars[i]! + chars[i + 1]! + chars[i + 2]!, 3);
    }
  }
  let sum = 0;
  for (const weight of grams.values()) sum += weight * weight;
  return { grams, norm: Math.sqrt(sum) };
}

/** Cosine similarity of two gram vectors, in [0, 1]. */
export function gramCosine(a: GramVector, b: GramVector): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  const [small, large] = a.grams.size <= b.grams.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [gram, weight] of small.grams) {
    const other = large.grams.get(gram);
    if (other !== undefined) dot += weight * other;
  }
  return Math.min(1, dot / (a.norm * b.norm));
}

/**
 * Raw n-gram cosines of related short texts sit around 0.4–0.6 (unrelated ones below 0.2), where
 * embedding models put related texts around 0.7–0.85. Reported similarity is 1 − (1 − c)², a monotone
 * stretch that keeps the spec's default `similarity_threshold` of 0.7 meaningful for both.
 */
export function calibrate(cosine: number): number {
  const c = Math.max(0, Math.min(1, cosine));
  return 1 - (1 - c) * (1 - c);
}

/** Similarity of two texts in [0, 1] from character n-grams (offline, any language). */
export function textSimilarity(a: string, b: string): number {
  return calibrate(gramCosine(gramVector(a), gramVector(b)));
}
