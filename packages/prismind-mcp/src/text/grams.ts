import { normalizeText, textRuns, type TextRun } from './normalize.js';

/**
 * The text of the short-term index: FTS5's trigram tokenizer cannot match a term of one or two
 * characters, so every CJK character and every pair of neighbouring CJK characters becomes a token, and
 * every other word becomes a token of its own. Indexed with the `ascii` tokenizer, which splits on
 * spaces and keeps non-ASCII characters as they are.
 *
 * A one- or two-character CJK term therefore matches as a substring (「罠」 finds 「罠を仕掛ける」), a
 * short Latin term as a whole word ("ui" finds "UI design", not "build").
 */
export function shortTermTokens(text: string): string {
  return shortTermTokenList(textRuns(normalizeText(text))).join(' ');
}

/** shortTermTokens as a list, from the runs of the normalised text (one normalisation per text). */
export function shortTermTokenList(runs: TextRun[]): string[] {
  const tokens = new Set<string>();
  for (const run of runs) {
    if (!run.cjk) {
      tokens.add(run.text);
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
