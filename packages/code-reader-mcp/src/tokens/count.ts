/**
 * o200k_base token counts (the encoding of GPT-4o and later), loaded on first use so that server start
 * does not pay for the rank table. The server counts through counter.ts, which runs this on the
 * tokenizer's own thread.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
// Inlined in the build's bundles (1 kB): an import() of it loaded Node's ES module loader in the call.
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { PACKAGE_ROOT } from '../version.js';
import { createCounter } from './bpe-count.js';
import { RANK_TABLE_FILE, RankTable } from './rank-table.js';

type CountPiece = (text: string) => number;

let loading: Promise<CountPiece> | undefined;

/**
 * The same counts as `gpt-tokenizer/encoding/o200k_base`, from the binary rank table the build wrote
 * (rank-table.ts): it loads in a few ms, where importing the package's rank module compiled 2.4 MB of
 * string literals (0.8 s of CPU) and its JSON form still cost ~0.5 s (parse, Map, GC). Without the
 * file (src/ before a build), the package's module.
 */
function load(): Promise<CountPiece> {
  loading ??= (async () => {
    let file: Uint8Array;
    try {
      // Read off the event loop: the event loop may be the one that counts (counter.ts).
      file = await readFile(path.join(PACKAGE_ROOT, 'dist', RANK_TABLE_FILE));
    } catch {
      const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
      // Source code may contain text such as "<|endoftext|>": count it as plain text, never throw.
      const plainText = { disallowedSpecial: new Set<string>() };
      return (text) => countTokens(text, plainText);
    }
    return createCounter(new RankTable(file), O200K_TOKEN_SPLIT_REGEX);
  })();
  return loading;
}

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
  const countPiece = await load();
  return (text) => countInPieces(text, countPiece);
}
