// Output written as UTF-8 bytes into large chunks, never as one big string or buffer: extraction writes
// each sheet's rows here as it parses them (fast-rows.ts), and the workbook's JSON is put together from
// views of these chunks (extraction.ts), not copied. A sink made with a `flush` target instead hands each
// full chunk to it (the output file, at the chunk's offset) and writes on in the same memory.

/**
 * Bytes per chunk. A flushing sink (an extraction job's output file) holds one, for the whole call and
 * between calls (see spareChunk): 256 KB rather than 1 MB keeps 0.75 MB less resident in the extraction
 * thread (issue 26 §1, memory), for a write to the file per 256 KB: 64 instead of 16 for the 16.5 MB
 * JSON of the 1M-cell workbook, 3-4 ms of writes either way.
 */
export const CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();

/**
 * The chunk of the last flushing sink finished on this thread, kept for the next one: fresh memory is
 * slow to fault in here (a megabyte per extraction, ~5-10 ms), and an extraction thread writes output
 * after output.
 */
let spareChunk: Uint8Array | undefined;

/** A chunk of at least `bytes` for a flushing sink: the spare one when it is large enough. */
function flushChunk(bytes: number): Uint8Array {
  const spare = spareChunk;
  spareChunk = undefined;
  return spare && spare.length >= bytes ? spare : new Uint8Array(bytes);
}

/**
 * A growing run of bytes in chunks. `buf`/`pos` are the chunk being filled, public so that hot loops
 * can write to them directly after `reserve`. Offsets count from the sink's start.
 */
export class ByteSink {
  buf: Uint8Array;
  pos = 0;
  /** Filled chunks, and the offset each starts at. */
  private readonly full: Uint8Array[] = [];
  private readonly fullStart: number[] = [];
  /** The offset `buf` starts at. */
  private start = 0;

  /**
   * `flush`: where the bytes go instead of being kept (`bytes` at `offset`; the memory is reused as soon
   * as it returns). Such a sink keeps one chunk: `views` and `chunks` are not for it, and `truncate` to
   * an offset already flushed only moves the offset back (what was flushed beyond it is written over
   * or cut off by whoever made the sink, at `finish`'s offset).
   */
  constructor(
    private readonly chunkBytes = CHUNK_BYTES,
    private readonly flush?: ((bytes: Uint8Array, offset: number) => void) | undefined,
    /** Memory to write first (a non-flushing sink then takes chunks of its own). */
    first?: Uint8Array,
  ) {
    this.buf = first ?? new Uint8Array(0);
  }

  /** Bytes written so far. */
  get offset(): number {
    return this.start + this.pos;
  }

  /** Makes room for `n` more bytes in `buf` (a new chunk, at least `n` long, when the current one is full). */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.flush) {
      this.flushOut();
      if (n > this.buf.length) this.buf = flushChunk(Math.max(this.chunkBytes, n));
      return;
    }
    this.seal();
    this.buf = new Uint8Array(Math.max(this.chunkBytes, n));
  }

  /** Ends the current chunk; writing goes on in the rest of its memory, so a chunk is never written again. */
  private seal(): void {
    if (this.pos === 0) return;
    this.full.push(this.buf.subarray(0, this.pos));
    this.fullStart.push(this.start);
    this.buf = this.buf.subarray(this.pos);
    this.start += this.pos;
    this.pos = 0;
  }

  /** A flushing sink: hands what it holds to `flush`; the memory is written on from its start. */
  private flushOut(): void {
    if (this.pos === 0) return;
    this.flush!(this.buf.subarray(0, this.pos), this.start);
    this.start += this.pos;
    this.pos = 0;
  }

  /**
   * A flushing sink: flushes the rest; returns the length of what was written (the offset). Its chunk is
   * kept for the next flushing sink (writing on takes a new one).
   */
  finish(): number {
    this.flushOut();
    if (this.flush && this.buf.length > 0 && this.buf.length <= 2 * CHUNK_BYTES) spareChunk = this.buf;
    this.buf = new Uint8Array(0);
    return this.start;
  }

  byte(value: number): void {
    this.reserve(1);
    this.buf[this.pos++] = value;
  }

  /** Bytes as they are, through the chunk (a long run in pieces, so no chunk is made to fit it). */
  write(bytes: Uint8Array): void {
    const piece = Math.min(this.chunkBytes, 64 * 1024);
    for (let at = 0; at < bytes.length; at += piece) {
      const n = Math.min(piece, bytes.length - at);
      this.reserve(n);
      this.buf.set(bytes.subarray(at, at + n), this.pos);
      this.pos += n;
    }
  }

  /** A string as UTF-8. */
  text(value: string): void {
    // At most 3 bytes per UTF-16 unit; a long text may take less room than that in a fresh chunk.
    this.reserve(value.length * 3);
    this.pos += encoder.encodeInto(value, this.buf.subarray(this.pos)).written;
  }

  /** Takes back everything written after `offset`. */
  truncate(offset: number): void {
    if (offset > this.offset || offset < 0) throw new RangeError(`No offset ${offset} to go back to.`);
    if (this.flush) {
      if (offset >= this.start) this.pos = offset - this.start;
      else {
        this.start = offset;
        this.pos = 0;
      }
      return;
    }
    while (offset < this.start) {
      const last = this.full.pop()!;
      this.start = this.fullStart.pop()!;
      // The chunk the offset falls in is written on from there (its memory runs on past its end).
      this.buf = new Uint8Array(last.buffer, last.byteOffset);
    }
    this.pos = offset - this.start;
  }

  /** Views of the bytes from `from` to `to` (no copy; valid while nothing is written over them). */
  views(from: number, to: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    const pieces = [...this.full, this.buf.subarray(0, this.pos)];
    const starts = [...this.fullStart, this.start];
    for (let k = 0; k < pieces.length; k++) {
      const piece = pieces[k]!;
      const at = starts[k]!;
      const s = Math.max(from, at);
      const e = Math.min(to, at + piece.length);
      if (s < e) out.push(piece.subarray(s - at, e - at));
    }
    return out;
  }

  /**
   * Takes what was written since the last take, as views of the chunks; the sink goes on after them
   * (they are no longer there to `truncate` or `views`).
   */
  chunks(): Uint8Array[] {
    this.seal();
    this.fullStart.length = 0;
    return this.full.splice(0);
  }
}
