/**
 * o200k token counts over the compact rank table (rank-table.ts): gpt-tokenizer's own pre-token regex
 * (O200K_TOKEN_SPLIT_REGEX, passed in) and byte-pair merge, with its lookup's quirks kept so the counts are its counts (special tokens
 * counted as plain text, as the server asks it to).
 */
import type { RankTable } from './rank-table.js';

/** gpt-tokenizer's UTF-8 check (utfUtil.isValidUTF8) on bytes[start, end). */
function isValidUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const byte1 = bytes[i] as number;
    let numBytes: number;
    let codePoint: number;
    if (byte1 <= 0x7f) {
      i++;
      continue;
    }
    if ((byte1 & 0xe0) === 0xc0) {
      if (byte1 <= 0xc1) return false;
      numBytes = 2;
      codePoint = byte1 & 0x1f;
    } else if ((byte1 & 0xf0) === 0xe0) {
      numBytes = 3;
      codePoint = byte1 & 0x0f;
    } else if ((byte1 & 0xf8) === 0xf0) {
      if (byte1 > 0xf4) return false;
      numBytes = 4;
      codePoint = byte1 & 0x07;
    } else return false;
    if (i + numBytes > end) return false;
    for (let j = 1; j < numBytes; j++) {
      const byte = bytes[i + j] as number;
      if ((byte & 0xc0) !== 0x80) return false;
      codePoint = (codePoint << 6) | (byte & 0x3f);
    }
    if (numBytes === 2 && codePoint < 0x80) return false;
    if (numBytes === 3 && codePoint < 0x800) return false;
    if (numBytes === 4 && codePoint < 0x10000) return false;
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) return false;
    if (codePoint > 0x10ffff) return false;
    i += numBytes;
  }
  return true;
}

/** String.prototype.isWellFormed (Node ≥ 20; not in the ES2023 lib the build compiles against). */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** Keeps repeated identifiers from being merged again; cleared when full (counts do not depend on it). */
const CACHE_LIMIT = 100_000;

export function createCounter(table: RankTable, pretokens: RegExp): (text: string) => number {
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(1024);
  const cache = new Map<string, number>();
  const split = new RegExp(pretokens.source, pretokens.flags); // its own lastIndex

  /**
   * gpt-tokenizer's getBpeRankFromBytes: valid UTF-8 is decoded by a TextDecoder, which drops a leading
   * byte-order mark, and looked up as a string; other bytes among the non-UTF-8 keys. The table holds
   * just those two kinds of key, so only the mark needs handling here.
   */
  const rankOf = (bytes: Uint8Array, start: number, end: number): number => {
    if (
      end - start >= 3 &&
      bytes[start] === 0xef &&
      bytes[start + 1] === 0xbb &&
      bytes[start + 2] === 0xbf &&
      isValidUtf8(bytes, start, end)
    ) {
      return table.rankOf(bytes, start + 3, end);
    }
    return table.rankOf(bytes, start, end);
  };

  /** gpt-tokenizer's bytePairMerge (lowest rank first, leftmost on ties), counting the parts left. */
  const mergeCount = (bytes: Uint8Array, length: number): number => {
    const starts: number[] = [];
    const ranks: number[] = [];
    const rankAt = (index: number): number => {
      const end = starts[index + 2];
      if (end === undefined) return Infinity;
      const rank = rankOf(bytes, starts[index] as number, end);
      return rank < 0 ? Infinity : rank;
    };
    for (let i = 0; i <= length; i++) {
      starts.push(i);
      if (i < length - 1) {
        const rank = rankOf(bytes, i, i + 2);
        ranks.push(rank < 0 ? Infinity : rank);
      } else ranks.push(Infinity);
    }
    while (starts.length > 1) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < ranks.length - 1; i++) {
        const rank = ranks[i] as number;
        if (rank < lowest) {
          lowest = rank;
          at = i;
        }
      }
      if (at === -1) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = rankAt(at);
      if (at > 0) ranks[at - 1] = rankAt(at - 1);
    }
    return starts.length - 1;
  };

  const countPiece = (piece: string): number => {
    if (buffer.length < piece.length * 3) buffer = new Uint8Array(piece.length * 3);
    const { written } = encoder.encodeInto(piece, buffer);
    // gpt-tokenizer looks a whole piece up as a string first: a piece with a lone surrogate is no key.
    if (isWellFormed(piece) && table.rankOf(buffer, 0, written) >= 0) return 1;
    const cached = cache.get(piece);
    if (cached !== undefined) return cached;
    const count = mergeCount(buffer, written);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(piece, count);
    return count;
  };

  return (text) => {
    let total = 0;
    split.lastIndex = 0;
    for (let match = split.exec(text); match !== null; match = split.exec(text))
      total += countPiece(match[0]);
    return total;
  };
}
