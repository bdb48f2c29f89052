import { charLength, hasCjk, isSearchable, normalizeText } from './normalize.js';
import { words } from './words.js';

/** The longest query searched (characters); a longer one is refused before any work. */
export const MAX_QUERY_CHARS = 10_000;
/**
 * The most terms a query is matched by: each term is one more index lookup and one more check per
 * candidate, so a pasted page must not become thousands of them. Similarity still reads the query.
 */
export const MAX_QUERY_TERMS = 32;

/** A query term and how the index can find it. */
export interface QueryTerm {
  /** Normalised text of the term. */
  text: string;
  /**
   * `trigram`: CJK, or Latin with punctuation inside ("e-mail"), three characters or more, found as a
   * substring by the trigram index.
   * `short`: one or two characters, which trigrams cannot match: a CJK term is found as a substring
   * through the unigram/bigram index, a Latin term as a whole word.
   * `word`: Latin, three characters or more, found as the start of a word ("trigger" finds "triggers")
   * through the word index: one posting list instead of a phrase of common trigrams.
   */
  kind: 'trigram' | 'short' | 'word';
  cjk: boolean;
}

const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;

const EMOJI = /\p{Extended_Pictographic}/u;

/** Anything but a letter, a digit or `_`: where the word index cuts a term into parts. */
const INNER_MARK = /[^\p{L}\p{N}_]/u;

/**
 * Splits a query into terms, deciding per term (never per query) how it is matched. Chunks are
 * separated by white space; a chunk with Japanese in it is cut into words by ICU's dictionary
 * segmenter (「WeaponSystem刷新の実装手順書」 → weaponsystem, 刷新, 実装, 手順, 書), dropping particles
 * (hiragana words of one or two characters) unless nothing else is left; emoji are terms of their own.
 * A term needs a letter, a digit or an emoji. At most MAX_QUERY_TERMS distinct terms are taken, in
 * order; `cut` tells that the query had more. Linear in the query's length.
 */
export function parseQuery(query: string): { terms: QueryTerm[]; cut: boolean } {
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  let cut = false;
  const push = (text: string) => {
    if (!text || seen.has(text) || !isSearchable(text)) return;
    if (terms.length >= MAX_QUERY_TERMS) {
      cut = true;
      return;
    }
    seen.add(text);
    const cjk = hasCjk(text);
    // A Latin term with punctuation inside ("e-mail", "x-ray", "c++") is a substring: the word index
    // holds each word once, so the parts of it ("e", "mail") are not found side by side there.
    const kind = charLength(text) < 3 ? 'short' : cjk || INNER_MARK.test(text) ? 'trigram' : 'word';
    terms.push({ text, kind, cjk });
  };
  for (const chunk of normalizeText(query).split(' ')) {
    if (cut) break;
    if (!chunk) continue;
    if (!hasCjk(chunk)) {
      push(chunk);
      continue;
    }
    let found = 0;
    for (const word of words(chunk)) {
      if (cut) break;
      const keep = word.wordLike
        ? !(HIRAGANA_ONLY.test(word.text) && charLength(word.text) <= 2)
        : EMOJI.test(word.text);
      if (!keep) continue;
      found++;
      push(word.text);
    }
    if (found === 0) push(chunk);
  }
  return { terms, cut };
}

/** The terms of parseQuery. */
export function queryTerms(query: string): QueryTerm[] {
  return parseQuery(query).terms;
}

const wordPatterns = new WeakMap<QueryTerm, RegExp>();

/** Whether a normalised text contains the term the way the index matches it. */
export function containsTerm(normalized: string, term: QueryTerm): boolean {
  if (term.kind === 'trigram' || term.cjk) return normalized.includes(term.text);
  // A short Latin term is a whole word ("ui" in "ui design", not in "build"); a longer one starts a word.
  let pattern = wordPatterns.get(term);
  if (!pattern) {
    const escaped = term.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const end = term.kind === 'short' ? '(?![\\p{L}\\p{N}_])' : '';
    pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}${end}`, 'u');
    wordPatterns.set(term, pattern);
  }
  return pattern.test(normalized);
}

/** FTS5 string literal: a phrase in double quotes, inner quotes doubled. */
export function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** The most three-character pieces of a term a fuzzy search looks up (a long term has thousands). */
const MAX_PIECES = 64;

/** The three-character pieces of a term, for loose (any-piece) matching: at most MAX_PIECES, in order. */
export function trigramsOf(text: string): string[] {
  const chars = [...text];
  const out = new Set<string>();
  for (let i = 0; i + 3 <= chars.length && out.size < MAX_PIECES; i++)
    out.add(chars.slice(i, i + 3).join(''));
  return [...out];
}
