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

/** How block `input` is deflated: the same options ahead of time (EarlyBlocks) and when written. */
function blockOptions(
  level: number,
  flush: number,
  input: Buffer,
  before: Buffer | undefined,
): zlib.ZlibOptions {
  const options: zlib.ZlibOptions = {
    level,
    finishFlush: flush,
    chunkSize: Math.min(OUT_CHUNK, Math.max(zlib.constants.Z_DEFAULT_CHUNK, input.length >> 2)),
  };
  // zlib copies the dictionary when the stream is made, so the block before may be dropped after.
  if (before) options.dictionary = before.subarray(before.length - WINDOW);
  return options;
}

/** `pieces` joined in a block buffer (a spare one when there is one). */
function joinBlock(pieces: Buffer[]): { own: Buffer; input: Buffer } {
  const own = spareBlocks.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
  let at = 0;
  for (const piece of pieces) at += piece.copy(own, at);
  return { own, input: own.subarray(0, at) };
}

function release(own: Buffer | undefined): void {
  if (own && spareBlocks.length < SPARE_MAX) spareBlocks.push(own);
}

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
  /** Blocks handed on so far. */
  private blocks = 0;

  constructor(
    private readonly level: number,
    /** Writes compressed bytes in order (awaited before the next). */
    private readonly write: (compressed: Buffer) => Promise<void>,
    /** The part's first blocks as they were read, deflated ahead (see EarlyBlocks). */
    private readonly early?: EarlyBlocks,
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
    if (this.pieces.length > 1) ({ own, input } = joinBlock(this.pieces));
    const ahead =
      flush === zlib.constants.Z_SYNC_FLUSH ? this.early?.take(this.blocks, input, this.previous) : undefined;
    const done = ahead ?? deflateRaw(input, blockOptions(this.level, flush, input, this.previous));
    done.catch(() => undefined); // awaited in order below; a failure must not go unhandled meanwhile
    this.queue.push({ done, own });
    this.blocks++;
    this.previous = input;
    this.pieces = [];
    this.filled = 0;
    while (this.queue.length >= IN_FLIGHT) await this.writeOldest();
  }

  private async writeOldest(): Promise<void> {
    const compressed = await this.queue[0]!.done;
    const { own } = this.queue.shift()!;
    // Deflated, and the block after it (if any) has already taken its dictionary: the buffer is free.
    release(own);
    this.compressed += compressed.length;
    await this.write(compressed);
  }
}

/** Blocks deflated ahead at once, beside the inflation of the part (which needs a thread of the pool). */
const EARLY_IN_FLIGHT = 2;

/**
 * A part's first blocks deflated while the part is still being read. A sheet's loading pass inflates it on
 * one thread and finds its rows on another while the second core has little to do; the rows before the
 * first one the ops may change usually go out as they came. The writer takes block k from here, instead
 * of deflating it again, when its bytes and the 32 KiB before them came out the same as they were read:
 * then these are the very bytes it would have made. Blocks are cut at the same fixed offsets, so an edit
 * that changes a row's length leaves only the blocks before it to take.
 */
export class EarlyBlocks {
  /** Blocks as read (views of bytes the reader keeps unchanged), and their deflate once started. */
  private readonly blocks: { pieces: Buffer[]; done?: Promise<Buffer>; taken?: boolean }[] = [];
  private pieces: Buffer[] = [];
  private filled = 0;
  private running = 0;
  private next = 0;
  private stopped = false;

  constructor(private readonly level: number) {}

  /** The part's next bytes (never changed afterwards). */
  add(chunk: Buffer): void {
    for (let at = 0; at < chunk.length && !this.stopped;) {
      const n = Math.min(BLOCK_BYTES - this.filled, chunk.length - at);
      this.pieces.push(n === chunk.length ? chunk : chunk.subarray(at, at + n));
      this.filled += n;
      at += n;
      if (this.filled === BLOCK_BYTES) {
        this.blocks.push({ pieces: this.pieces });
        this.pieces = [];
        this.filled = 0;
        this.pump();
      }
    }
  }

  /** No further blocks are wanted (those already cut are still deflated: they come before). */
  stop(): void {
    this.stopped = true;
    this.pieces = [];
  }

  /** Block `index` deflated ahead, if `input` is its bytes as read and `before` ends as the block before. */
  take(index: number, input: Buffer, before: Buffer | undefined): Promise<Buffer> | undefined {
    const block = this.blocks[index];
    if (block && !block.done) block.taken = true; // the writer got there first: it deflates the block
    if (!block?.done || input.length !== BLOCK_BYTES || !sameBytes(input, block.pieces, 0)) return undefined;
    if (index === 0) return before === undefined ? block.done : undefined;
    const prior = this.blocks[index - 1]!;
    return before?.length === BLOCK_BYTES &&
      sameBytes(before.subarray(BLOCK_BYTES - WINDOW), prior.pieces, BLOCK_BYTES - WINDOW)
      ? block.done
      : undefined;
  }

  private pump(): void {
    while (this.running < EARLY_IN_FLIGHT && this.next < this.blocks.length) {
      const index = this.next++;
      const block = this.blocks[index]!;
      if (block.taken) continue;
      const { own, input } = joinBlock(block.pieces);
      const before = index > 0 ? Buffer.concat(tail(this.blocks[index - 1]!.pieces, WINDOW)) : undefined;
      this.running++;
      block.done = deflateRaw(input, blockOptions(this.level, zlib.constants.Z_SYNC_FLUSH, input, before));
      block.done
        .catch(() => undefined)
        .finally(() => {
          release(own);
          this.running--;
          this.pump();
        });
    }
  }
}

/** Whether `buf` equals the bytes of `pieces` from offset `from` of their join on. */
function sameBytes(buf: Buffer, pieces: Buffer[], from: number): boolean {
  let at = 0;
  let skip = from;
  for (const piece of pieces) {
    if (skip >= piece.length) {
      skip -= piece.length;
      continue;
    }
    const part = skip > 0 ? piece.subarray(skip) : piece;
    skip = 0;
    if (!buf.subarray(at, at + part.length).equals(part)) return false;
    at += part.length;
  }
  return at === buf.length;
}

/** The views of the last `bytes` bytes of `pieces`. */
function tail(pieces: Buffer[], bytes: number): Buffer[] {
  const out: Buffer[] = [];
  for (let k = pieces.length - 1; k >= 0 && bytes > 0; k--) {
    const piece = pieces[k]!;
    out.unshift(piece.length > bytes ? piece.subarray(piece.length - bytes) : piece);
    bytes -= Math.min(bytes, piece.length);
  }
  return out;
}
