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

/** A text's n-grams as two parallel arrays (gram key, summed weight) with their norm: compact to keep. */
export interface CountedGrams {
  keys: Int32Array;
  counts: Float64Array;
  norm: number;
}

/**
 * Counts the n-grams of one text after another in a reusable open-addressing table instead of a new
 * Map per text (no Map and no closure per gram), and hands them out as CountedGrams.
 */
export class GramCounter {
  private keys = new Int32Array(1 << 12);
  private counts = new Float64Array(1 << 12);
  /** Slot → the text it was last written for (0: never): no clearing between texts. */
  private stamps = new Uint32Array(1 << 12);
  /** Slots in the order their grams first appeared. */
  private order = new Int32Array(1 << 12);
  private size = 0;
  private stamp = 0;
  private shift = 20;

  /** The n-grams forEachGram reads of `text` (the first MAX_CHARS characters). */
  grams(text: string): CountedGrams {
    this.count(gramRuns(text));
    const keys = new Int32Array(this.size);
    const counts = new Float64Array(this.size);
    let sum = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = this.order[i]!;
      keys[i] = this.keys[slot]!;
      counts[i] = this.counts[slot]!;
      sum += counts[i]! * counts[i]!;
    }
    return { keys, counts, norm: Math.sqrt(sum) };
  }

  private count(runs: TextRun[]): void {
    let chars = 0;
    for (const run of runs) chars += run.text.length;
    // At most three grams per character: keep the table at most a quarter full.
    if (chars * 3 * 4 > this.keys.length) this.grow(chars * 3 * 4);
    this.stamp++;
    if (this.stamp === 0xffff_ffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
    this.size = 0;
    for (const run of runs) {
      let a = -1;
      let b = -1;
      for (const char of run.text) {
        const c = char.codePointAt(0)!;
        this.add(c, 1);
        if (b >= 0) this.add(hash2(b, c), 2);
        if (a >= 0) this.add(hash3(a, b, c), 3);
        a = b;
        b = c;
      }
    }
  }

  private add(key: number, weight: number): void {
    const mask = this.keys.length - 1;
    for (let slot = Math.imul(key, 0x9e3779b1) >>> this.shift; ; slot = (slot + 1) & mask) {
      if (this.stamps[slot] !== this.stamp) {
        this.stamps[slot] = this.stamp;
        this.keys[slot] = key;
        this.counts[slot] = weight;
        this.order[this.size++] = slot;
        return;
      }
      if (this.keys[slot] === key) {
        this.counts[slot]! += weight;
        return;
      }
    }
  }

  private grow(at: number): void {
    let capacity = this.keys.length;
    while (capacity < at) capacity *= 2;
    this.keys = new Int32Array(capacity);
    this.counts = new Float64Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.order = new Int32Array(capacity);
    this.shift = 32 - Math.log2(capacity);
    this.stamp = 0;
  }
}

/**
 * gramCosine of a query's vector and a text's counted grams: exactly gramCosine(query, gramVector(text))
 * (the weights are small integers, so every sum is exact in any order).
 */
export function countedCosine(query: GramVector, text: CountedGrams): number {
  if (query.norm === 0 || text.norm === 0) return 0;
  let dot = 0;
  for (let i = 0; i < text.keys.length; i++) {
    const other = query.grams.get(text.keys[i]!);
    if (other !== undefined) dot += text.counts[i]! * other;
  }
  return Math.min(1, dot / (query.norm * text.norm));
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
