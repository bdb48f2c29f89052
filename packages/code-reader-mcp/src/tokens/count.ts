/**
 * o200k_base token counts (the encoding of GPT-4o and later), loaded on first use so that server start
 * does not pay for the 2 MB rank table. The server counts through counter.ts, which runs this on the
 * tokenizer's own thread (loading it blocks for 0.7–0.8 s).
 */
type CountTokens = (text: string, options?: { disallowedSpecial?: Set<string> }) => number;

let loading: Promise<CountTokens> | undefined;

function load(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => module.countTokens as CountTokens);
  return loading;
}

// Source code may contain text such as "<|endoftext|>": count it as plain text, never throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Longest run of non-whitespace (or of whitespace) characters given to the tokenizer in one piece. */
export const MAX_RUN = 2048;

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x2028 || code === 0x2029;
}

/**
 * BPE merging is quadratic in the length of one pre-token, so a long run without whitespace (minified
 * code, base64, a 2 MB line of `x`) would take minutes and block the server. Runs longer than MAX_RUN
 * characters are therefore counted in MAX_RUN-character pieces, and the text around them separately:
 * each such split may shift the count by about one token. Text without such runs (normal source) is
 * counted in one piece, exactly. One linear scan, no regular expression (which would backtrack).
 */
export function countInPieces(text: string, count: (piece: string) => number): number {
  if (text.length <= MAX_RUN) return text.length === 0 ? 0 : count(text);
  let total = 0;
  let done = 0; // text before `done` has been counted
  let runStart = 0;
  let runSpace = isSpace(text.charCodeAt(0));
  for (let i = 1; i <= text.length; i++) {
    const space = i < text.length ? isSpace(text.charCodeAt(i)) : !runSpace;
    if (space === runSpace) continue;
    if (i - runStart > MAX_RUN) {
      if (runStart > done) total += count(text.slice(done, runStart));
      let at = runStart;
      while (at < i) {
        let end = Math.min(at + MAX_RUN, i);
        const last = text.charCodeAt(end - 1);
        if (end < i && last >= 0xd800 && last <= 0xdbff) end++; // keep a surrogate pair together
        total += count(text.slice(at, end));
        at = end;
      }
      done = i;
    }
    runStart = i;
    runSpace = space;
  }
  if (done < text.length) total += count(text.slice(done));
  return total;
}

/** A synchronous counter, once the tokenizer is loaded (on the thread that calls it). */
export async function loadTokenizer(): Promise<(text: string) => number> {
  const count = await load();
  const countPiece = (piece: string) => count(piece, PLAIN_TEXT);
  return (text) => countInPieces(text, countPiece);
}
