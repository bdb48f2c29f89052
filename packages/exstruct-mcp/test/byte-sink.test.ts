// A flushing sink's chunk is kept for the next flushing sink on the thread (issue 26 §1: fresh memory is
// slow to fault in): the next sink writes in it, and the finished one can never write there again.
import { describe, expect, it } from 'vitest';
import { ByteSink, CHUNK_BYTES } from '../src/extract/byte-sink.js';

/** A flushing sink that copies what it is handed into `out`, noting the memory each piece came from. */
function fileSink(chunkBytes: number) {
  const out: number[] = [];
  const memory = new Set<ArrayBufferLike>();
  const sink = new ByteSink(chunkBytes, (bytes, offset) => {
    memory.add(bytes.buffer);
    for (let i = 0; i < bytes.length; i++) out[offset + i] = bytes[i]!;
  });
  return { sink, memory, text: () => Buffer.from(out).toString() };
}

describe('ByteSink (flushing)', () => {
  it('hands its chunk on to the next sink once finished, and writes on in fresh memory', () => {
    const first = fileSink(64);
    first.sink.text('a'.repeat(150));
    expect(first.sink.finish()).toBe(150);
    const second = fileSink(64);
    second.sink.text('b'.repeat(100));
    // The finished sink writes on: in memory of its own, not in the chunk the second now fills.
    first.sink.text('c'.repeat(10));
    second.sink.text('d'.repeat(10));
    expect(first.sink.finish()).toBe(160);
    expect(second.sink.finish()).toBe(110);
    expect(first.text()).toBe('a'.repeat(150) + 'c'.repeat(10));
    expect(second.text()).toBe('b'.repeat(100) + 'd'.repeat(10));
    expect([...second.memory].some((m) => first.memory.has(m))).toBe(true);
  });

  it("holds at most 256 KB of an extraction's output however much flows through it", () => {
    const pieces: number[] = [];
    const sink = new ByteSink(CHUNK_BYTES, (bytes) => pieces.push(bytes.length));
    const row = `{"r":1,"c":{"0":"${'x'.repeat(90)}"}},`;
    for (let i = 0; i < 40_000; i++) sink.text(row); // ~4 MB, as a workbook of 1,000 small sheets
    expect(sink.buf.length).toBeLessThanOrEqual(256 * 1024);
    expect(sink.finish()).toBe(row.length * 40_000);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(256 * 1024);
    expect(pieces.length).toBeGreaterThan(10);
  });
});
