import { normalizeText, textRuns, type TextRun } from './normalize.js';

/** A sparse vector of character n-grams with its norm, ready for cosine similarity. */
export interface GramVector {
  /** Keyed by a 32-bit hash of the n-gram (collisions are rare enough not to move a similarity). */
  grams: Map<number, number>;
  norm: number;
}

/** Long texts are cut: similarity of the first part is enough to rank, and keeps scoring fast. */
const MAX_CHARS = 4000;

/** Distinct multipliers per n, so "ab" and the code point pair of a trigram prefix never share a key. */
const hash2 = (a: number, b: number) => Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ 0x2000_0000;
const hash3 = (a: number, b: number, c: number) =>
  Math.imul(a, 0xc2b2ae3d) ^ Math.imul(b, 0x27d4eb2f) ^ Math.imul(c, 0x165667b1) ^ 0x4000_0000;

/**
 * Character uni-, bi- and trigrams of each run of letters (bigrams and trigrams weigh more: they carry
 * order). Works the same for Japanese and English without a dictionary or a model, so it runs offline.
 * Grams are keyed by integer hashes of their code points: no string is built per gram. `visit` gets
 * each occurrence (a gram seen twice comes twice).
 */
export function forEachGram(text: string, visit: (key: number, weight: number) => void): void {
  forEachGramOfRuns(gramRuns(text), visit);
}

/** The runs forEachGram reads: those of the text's first MAX_CHARS characters. */
export function gramRuns(text: string, runsOfWholeText?: TextRun[]): TextRun[] {
  if (runsOfWholeText && text.length <= MAX_CHARS) return runsOfWholeText;
  return textRuns(normalizeText(text.slice(0, MAX_CHARS)));
}

/** forEachGram over runs already cut (gramRuns). */
export function forEachGramOfRuns(runs: TextRun[], visit: (key: number, weight: number) => void): void {
  for (const run of runs) {
    let a = -1;
    let b = -1;
    for (const char of run.text) {
      const c = char.codePointAt(0)!;
      visit(c, 1);
      if (b >= 0) visit(hash2(b, c), 2);
      if (a >= 0) visit(hash3(a, b, c), 3);
      a = b;
      b = c;
    }
  }
}

/** The n-grams of forEachGram as a sparse vector. */
export function gramVector(text: string): GramVector {
  const grams = new Map<number, number>();
  forEachGram(text, (key, weight) => grams.set(key, (grams.get(key) ?? 0) + weight));
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
