/**
 * The o200k rank table in a compact binary form that loads in a few ms: JSON.parse of the 2 MB table and
 * gpt-tokenizer's 200,000-entry Map cost a first count ~0.5 s of CPU (issue 25). The build writes it
 * (scripts/write-token-ranks.mjs) with exactly the keys gpt-tokenizer's lookup can find, so that
 * counting over it gives gpt-tokenizer's counts (test/tokenizer-thread.test.ts compares them).
 *
 * File: u32 LE entry count N; N length bytes (0: the rank has no key); then every key's bytes, in rank
 * order. Then, from the next multiple of 4, the lookup's hash table as the build made it: u32 LE slot
 * count C, C i32 LE slots, N u32 LE key offsets. Hashing the 200,000 keys at each load cost the first
 * count of every process ~60-110 ms of CPU, beside ripgrep on a first search (issue 25); a file without
 * the table (or a big-endian machine) still loads, by hashing.
 */
import os from 'node:os';

/** Written by the build into dist/. */
export const RANK_TABLE_FILE = 'o200k_base.ranks';

/** Serialises keys by rank (undefined: no key) into the file's bytes, with the lookup's hash table. */
export function encodeRankTable(keys: (Uint8Array | undefined)[]): Uint8Array {
  const table = encodeKeys(keys);
  const lookup = new RankTable(table, false).hashTable();
  const start = alignedEnd(table.length);
  const out = new Uint8Array(start + 4 + lookup.slots.byteLength + lookup.offsets.byteLength);
  out.set(table);
  const view = new DataView(out.buffer);
  view.setUint32(start, lookup.slots.length, true);
  let at = start + 4;
  for (const slot of lookup.slots) {
    view.setInt32(at, slot, true);
    at += 4;
  }
  for (const offset of lookup.offsets) {
    view.setUint32(at, offset, true);
    at += 4;
  }
  return out;
}

/** The next multiple of 4 from `length`. */
function alignedEnd(length: number): number {
  return Math.ceil(length / 4) * 4;
}

/** `count` 32-bit words at bytes[from…]: a view where aligned (a file read whole is), else a copy. */
function words<T extends Int32Array | Uint32Array>(
  make: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; new (length: number): T },
  bytes: Uint8Array,
  from: number,
  count: number,
): T {
  const at = bytes.byteOffset + from;
  if (at % 4 === 0) return new make(bytes.buffer, at, count);
  const array = new make(count);
  new Uint8Array(array.buffer).set(bytes.subarray(from, from + count * 4));
  return array;
}

function encodeKeys(keys: (Uint8Array | undefined)[]): Uint8Array {
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

  /** `stored`: use the hash table the file carries, when it has one (false: hash the keys). */
  constructor(
    private readonly file: Uint8Array,
    stored = true,
  ) {
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const count = view.getUint32(0, true);
    let keysEnd = 4 + count;
    for (let rank = 0; rank < count; rank++) keysEnd += file[4 + rank] as number;
    const start = alignedEnd(keysEnd);
    if (stored && os.endianness() === 'LE' && file.length >= start + 4) {
      const capacity = view.getUint32(start, true);
      if (
        file.length === start + 4 + 4 * (capacity + count) &&
        capacity > 0 &&
        (capacity & (capacity - 1)) === 0
      ) {
        this.slots = words(Int32Array, file, start + 4, capacity);
        this.offsets = words(Uint32Array, file, start + 4 + 4 * capacity, count);
        this.mask = capacity - 1;
        return;
      }
    }
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

  /** The lookup's arrays, for the file (encodeRankTable). */
  hashTable(): { slots: Int32Array; offsets: Uint32Array } {
    return { slots: this.slots, offsets: this.offsets };
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
