import type { TextRun } from './normalize.js';

/**
 * The longest word the index keeps (characters). A longer one (a base64 blob, a minified line) is found
 * by no query word, and PostgreSQL refuses lexemes over 2 KB.
 */
export const MAX_WORD_CHARS = 200;

/**
 * The tokens of the short-term index, from the runs of the normalised text. FTS5's trigram tokenizer
 * cannot match a term of one or two characters, so every CJK character and every pair of neighbouring
 * CJK characters becomes a token, and every other word becomes a token of its own. Indexed with the `ascii` tokenizer, which splits on
 * spaces and keeps non-ASCII characters as they are.
 *
 * A one- or two-character CJK term therefore matches as a substring (「罠」 finds 「罠を仕掛ける」), a
 * short Latin term as a whole word ("ui" finds "UI design", not "build").
 */
/**
 * The three-character pieces of the CJK runs (for PostgreSQL's sections of long documents: an exact
 * lexeme where a trigram index needs its rows rechecked; see search-index.ts).
 */
export function cjkTrigramList(runs: TextRun[]): string[] {
  const pieces = new Set<string>();
  for (const run of runs) {
    if (!run.cjk) continue;
    const chars = [...run.text];
    for (let i = 0; i + 2 < chars.length; i++) pieces.add(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  }
  return [...pieces];
}

export function shortTermTokenList(runs: TextRun[]): string[] {
  const tokens = new Set<string>();
  for (const run of runs) {
    if (!run.cjk) {
      if (run.text.length <= MAX_WORD_CHARS) tokens.add(run.text);
      continue;
    }
    const chars = [...run.text];
    for (let i = 0; i < chars.length; i++) {
      tokens.add(chars[i]!);
      if (i + 1 < chars.length) tokens.add(chars[i]! + chars[i + 1]!);
    }
  }
  return [...tokens];
}
