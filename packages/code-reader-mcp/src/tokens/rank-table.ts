/**
 * The o200k rank table in a compact binary form that loads in a few ms: JSON.parse of the 2 MB table and
 * gpt-tokenizer's 200,000-entry Map cost a first count ~0.5 s of CPU (issue 25). The build writes it
 * (scripts/write-token-ranks.mjs) with exactly the keys gpt-tokenizer's lookup can find, so that
 * counting over it gives gpt-tokenizer's counts (test/tokenizer-thread.test.ts compares them).
 *
 * File: u32 LE entry count N; N length bytes (0: the rank has no key); then every key's bytes, in rank order.
 */

/** Written by the build into dist/. */
export const RANK_TABLE_FILE = 'o200k_base.ranks';

/** Serialises keys by rank (undefined: no key) into the file's bytes. */
export function encodeRankTable(keys: (Uint8Array | undefined)[]): Uint8Array {
  let size = 4 + keys.length;
  for (const key of keys) {
    if (key && (key.length === 0 || key.length > 255)) throw new Error(`A key of ${key.length} bytes.`);
    size += key?.length ?? 0;
  }
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, keys.length, true);
  let at = 4 + keys.length;
  keys.forEach((key, rank) => {
    if (!key) return;
    out[4 + rank] = key.length;
    out.set(key, at);
    at += key.length;
  });
  return out;
}

function hash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5; // FNV-1a
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

/** Byte sequence → rank, by open addressing over the file's own bytes (no strings, no Map). */
export class RankTable {
  private readonly offsets: Uint32Array;
  private readonly slots: Int32Array; // rank + 1; 0 = empty
  private readonly mask: number;

  constructor(private readonly file: Uint8Array) {
    const count = new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(0, true);
    this.offsets = new Uint32Array(count);
    let capacity = 1;
    while (capacity < count * 2.5) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    let at = 4 + count;
    for (let rank = 0; rank < count; rank++) {
      const length = file[4 + rank] as number;
      if (length === 0) continue;
      this.offsets[rank] = at;
      this.insert(rank, at, at + length);
      at += length;
    }
  }

  /** A later rank with the same key replaces the earlier one, as in gpt-tokenizer's Map. */
  private insert(rank: number, start: number, end: number): void {
    let slot = hash(this.file, start, end) & this.mask;
    for (;;) {
      const found = (this.slots[slot] as number) - 1;
      if (found < 0 || this.equals(found, this.file, start, end)) {
        this.slots[slot] = rank + 1;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  private equals(rank: number, bytes: Uint8Array, start: number, end: number): boolean {
    const length = end - start;
    if (this.file[4 + rank] !== length) return false;
    const offset = this.offsets[rank] as number;
    for (let i = 0; i < length; i++) if (this.file[offset + i] !== bytes[start + i]) return false;
    return true;
  }

  /** The rank of bytes[start, end), or -1. */
  rankOf(bytes: Uint8Array, start: number, end: number): number {
    if (end - start > 255 || end <= start) return -1;
    let slot = hash(bytes, start, end) & this.mask;
    for (;;) {
      const found = (this.slots[slot] as number) - 1;
      if (found < 0) return -1;
      if (this.equals(found, bytes, start, end)) return found;
      slot = (slot + 1) & this.mask;
    }
  }
}
