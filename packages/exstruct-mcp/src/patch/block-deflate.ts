import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflateRaw = promisify(zlib.deflateRaw) as (data: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

/** Uncompressed bytes per block: a part up to this size is one ordinary deflate stream. */
export const BLOCK_BYTES = 1024 * 1024;
/** Deflate's window: each block is primed with the last 32 KiB before it, so the ratio stays the same. */
const WINDOW = 32 * 1024;
/** Blocks deflating at once (libuv's thread pool has 4 threads; the machine may have 2 cores or more). */
const IN_FLIGHT = 4;
/**
 * Block buffers kept for the next block and the next part: touching fresh memory costs much on a VM that
 * backs its pages lazily (measured here at load 4.5-6: 5-17 ms per fresh MiB, so 48 MiB of fresh blocks
 * cost about as much as deflating them), while a reused buffer costs only the copy.
 */
const spareBlocks: Buffer[] = [];
const SPARE_MAX = IN_FLIGHT + 1;

/** Output pieces of a block's deflate: one pass through the thread pool for a block of XML (~15 % of it). */
const OUT_CHUNK = 256 * 1024;

/**
 * Deflates one part as pigz does: the bytes are cut into 1 MiB blocks at fixed offsets, each deflated on
 * its own (on the thread pool, several at once) with the 32 KiB before it as its dictionary, and the
 * results joined. Every block but the last ends with a sync flush (an empty stored block, no final bit),
 * so the joined bytes are one valid deflate stream that any inflater reads as usual. A one-cell patch of a
 * 48 MB sheet deflated it on one core while the other waited; now both work. The output depends only on
 * the bytes and the level, not on how they arrive; a part of at most one block is deflated exactly as
 * before (one stream, no flush).
 */
export class BlockDeflater {
  /** CRC-32 and length of the uncompressed bytes, compressed length written so far. */
  crc = 0;
  size = 0;
  compressed = 0;
  /** The pieces of the block being filled (views, joined once when it goes). */
  private pieces: Buffer[] = [];
  private filled = 0;
  /** The last block handed to zlib: its tail is the next block's dictionary. */
  private previous: Buffer | undefined;
  /** Blocks handed to zlib, oldest first; `own`: a block buffer of ours, to reuse once deflated. */
  private readonly queue: { done: Promise<Buffer>; own: Buffer | undefined }[] = [];

  constructor(
    private readonly level: number,
    /** Writes compressed bytes in order (awaited before the next). */
    private readonly write: (compressed: Buffer) => Promise<void>,
  ) {}

  async push(piece: Buffer): Promise<void> {
    this.crc = zlib.crc32(piece, this.crc);
    this.size += piece.length;
    for (let at = 0; at < piece.length;) {
      // A full block goes only once more bytes come: the last block is the one that finishes the stream.
      if (this.filled === BLOCK_BYTES) await this.dispatch(zlib.constants.Z_SYNC_FLUSH);
      const n = Math.min(BLOCK_BYTES - this.filled, piece.length - at);
      this.pieces.push(n === piece.length ? piece : piece.subarray(at, at + n));
      this.filled += n;
      at += n;
    }
  }

  /** Deflates the last block and writes everything still pending. */
  async end(): Promise<void> {
    await this.dispatch(zlib.constants.Z_FINISH);
    while (this.queue.length > 0) await this.writeOldest();
  }

  /** Waits for the blocks in flight after a failure (their results are dropped). */
  async abandon(): Promise<void> {
    await Promise.allSettled(this.queue.splice(0).map((block) => block.done));
  }

  private async dispatch(flush: number): Promise<void> {
    let own: Buffer | undefined;
    let input = this.pieces[0] ?? Buffer.alloc(0);
    if (this.pieces.length > 1) {
      // The pieces joined in a block buffer (a spare one when there is one).
      own = spareBlocks.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
      let at = 0;
      for (const piece of this.pieces) at += piece.copy(own, at);
      input = own.subarray(0, at);
    }
    const options: zlib.ZlibOptions = {
      level: this.level,
      finishFlush: flush,
      chunkSize: Math.min(OUT_CHUNK, Math.max(zlib.constants.Z_DEFAULT_CHUNK, input.length >> 2)),
    };
    // zlib copies the dictionary when the stream is made, so the previous block may be dropped after.
    if (this.previous) options.dictionary = this.previous.subarray(this.previous.length - WINDOW);
    const done = deflateRaw(input, options);
    done.catch(() => undefined); // awaited in order below; a failure must not go unhandled meanwhile
    this.queue.push({ done, own });
    this.previous = input;
    this.pieces = [];
    this.filled = 0;
    while (this.queue.length >= IN_FLIGHT) await this.writeOldest();
  }

  private async writeOldest(): Promise<void> {
    const compressed = await this.queue[0]!.done;
    const { own } = this.queue.shift()!;
    // Deflated, and the block after it (if any) has already taken its dictionary: the buffer is free.
    if (own && spareBlocks.length < SPARE_MAX) spareBlocks.push(own);
    this.compressed += compressed.length;
    await this.write(compressed);
  }
}
