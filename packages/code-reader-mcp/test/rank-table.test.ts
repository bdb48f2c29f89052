// The rank table file carries its lookup's hash table (issue 25: hashing 200,000 keys at every load was
// CPU taken from ripgrep on a first search). Loading it must find exactly what hashing the keys finds,
// from any buffer, and a file without the table (an older build's) must still load.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RankTable, encodeRankTable } from '../src/tokens/rank-table.js';

const FILE = readFileSync(fileURLToPath(new URL('../dist/o200k_base.ranks', import.meta.url)));

/** Every key of the file, by rank (the file's own layout: N lengths, then the keys in rank order). */
function keysOf(file: Uint8Array): { keys: (Uint8Array | undefined)[]; end: number } {
  const count = new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(0, true);
  const keys: (Uint8Array | undefined)[] = [];
  let at = 4 + count;
  for (let rank = 0; rank < count; rank++) {
    const length = file[4 + rank]!;
    keys.push(length === 0 ? undefined : file.subarray(at, at + length));
    at += length;
  }
  return { keys, end: at };
}

/** The rank each key is found by (a later rank with the same key wins, as in gpt-tokenizer). */
function ranksFound(table: RankTable, keys: (Uint8Array | undefined)[]): number[] {
  return keys.map((key) => (key ? table.rankOf(key, 0, key.length) : -2));
}

describe('the rank table file (dist/o200k_base.ranks)', () => {
  const { keys, end } = keysOf(FILE);
  const hashed = ranksFound(new RankTable(FILE, false), keys);

  it('holds the hash table the build made: the same rank for every key as hashing the keys', () => {
    expect(keys.length).toBeGreaterThan(199_000);
    expect(FILE.length).toBeGreaterThan(end + 4); // the stored table is there
    expect(ranksFound(new RankTable(FILE), keys)).toEqual(hashed);
    expect(Buffer.from(encodeRankTable(keys)).equals(FILE)).toBe(true); // the build's output, exactly
    // And it is the stored table that is read: with its slots emptied, nothing is found.
    const emptied = Uint8Array.from(FILE);
    const slotsAt = Math.ceil(end / 4) * 4 + 4;
    const slots = new DataView(FILE.buffer, FILE.byteOffset + slotsAt - 4, 4).getUint32(0, true);
    emptied.fill(0, slotsAt, slotsAt + 4 * slots);
    expect(new Set(ranksFound(new RankTable(emptied), keys).filter((rank) => rank !== -2))).toEqual(
      new Set([-1]),
    );
  });

  it('finds the same ranks from a buffer at an odd offset (the table is copied, not viewed)', () => {
    const shifted = new Uint8Array(FILE.length + 1);
    shifted.set(FILE, 1);
    const table = new RankTable(shifted.subarray(1));
    expect(ranksFound(table, keys)).toEqual(hashed);
    const text = new TextEncoder().encode(' toLowerCase 日本語');
    expect(table.rankOf(text, 0, text.length)).toBe(-1); // no such key
  });

  it('loads a file without the stored table (or with a damaged one) by hashing its keys', () => {
    expect(ranksFound(new RankTable(FILE.subarray(0, end)), keys)).toEqual(hashed);
    expect(ranksFound(new RankTable(FILE.subarray(0, FILE.length - 4)), keys)).toEqual(hashed);
  });
});
