import { charLength, hasCjk, normalizeText } from './normalize.js';

/** A query term and how the index can find it. */
export interface QueryTerm {
  /** Normalised text of the term. */
  text: string;
  /**
   * `trigram`: CJK, three characters or more, found as a substring by the trigram index.
   * `short`: one or two characters, which trigrams cannot match: a CJK term is found as a substring
   * through the unigram/bigram index, a Latin term as a whole word.
   * `word`: Latin, three characters or more, found as the start of a word ("trigger" finds "triggers")
   * through the word index: one posting list instead of a phrase of common trigrams.
   */
  kind: 'trigram' | 'short' | 'word';
  cjk: boolean;
}

const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;

/**
 * Splits a query into terms, deciding per term (never per query) how it is matched. Chunks are
 * separated by white space; a chunk with Japanese in it is cut into words by ICU's dictionary
 * segmenter (「WeaponSystem刷新の実装手順書」 → weaponsystem, 刷新, 実装, 手順, 書), dropping particles
 * (hiragana words of one or two characters) unless nothing else is left.
 */
export function queryTerms(query: string): QueryTerm[] {
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  const push = (text: string) => {
    if (!text || seen.has(text)) return;
    seen.add(text);
    const cjk = hasCjk(text);
    terms.push({ text, kind: charLength(text) < 3 ? 'short' : cjk ? 'trigram' : 'word', cjk });
  };
  for (const chunk of normalizeText(query).split(' ')) {
    if (!chunk) continue;
    if (!hasCjk(chunk)) {
      push(chunk);
      continue;
    }
    const words = [...segmenter.segment(chunk)]
      .filter((s) => s.isWordLike)
      .map((s) => s.segment)
      .filter((w) => !(HIRAGANA_ONLY.test(w) && charLength(w) <= 2));
    if (words.length === 0) push(chunk);
    else for (const word of words) push(word);
  }
  return terms;
}

/** Whether a normalised text contains the term the way the index matches it. */
export function containsTerm(normalized: string, term: QueryTerm): boolean {
  if (term.kind === 'trigram' || term.cjk) return normalized.includes(term.text);
  // A short Latin term is a whole word ("ui" in "ui design", not in "build"); a longer one starts a word.
  const escaped = term.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const end = term.kind === 'short' ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}${end}`, 'u').test(normalized);
}

/** FTS5 string literal: a phrase in double quotes, inner quotes doubled. */
export function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** The three-character pieces of a term, for loose (any-piece) matching. */
export function trigramsOf(text: string): string[] {
  const chars = [...text];
  const out = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(''));
  return [...out];
}
