import type { FileHandle } from 'node:fs/promises';
import { PassThrough, Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { PartInflater } from './part-inflater.js';
import { ToolError, localFiles, type FileAccess } from '@mcp-workbench/core/engine';

/** Caps that stop a zip bomb: bytes are counted while inflating, never trusted from headers. */
export interface ZipLimits {
  /** Most bytes one entry may inflate to. */
  maxEntryBytes: number;
  /** Most bytes all entries read from one archive may inflate to. */
  maxTotalBytes: number;
  /** Highest inflated/compressed ratio tolerated for an entry larger than `ratioFloorBytes`. */
  maxRatio: number;
  /** Entries smaller than this are never judged by ratio (tiny XML compresses extremely well). */
  ratioFloorBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntryBytes: 1024 * 1024 * 1024,
  maxTotalBytes: 2 * 1024 * 1024 * 1024,
  maxRatio: 1000,
  ratioFloorBytes: 16 * 1024 * 1024,
};

/** Output chunk size of the inflater (see inflatingStream). */
const INFLATE_CHUNK_BYTES = 256 * 1024;
/** How far (in bytes) the inflater may run ahead of the part's reader. */
const READ_AHEAD_BYTES = 1024 * 1024;
/** Size of each read from the file (yauzl's own file reader reads 16 KB at a time). */
const FILE_READ_BYTES = 1024 * 1024;
/**
 * Packages up to this size are read into memory in one go: yauzl then reads the central directory and
 * every local header from memory instead of one trip to the thread pool each (a workbook of 1,000
 * sheets made 4,000 reads).
 */
const IN_MEMORY_MAX_BYTES = 32 * 1024 * 1024;
/** Parts up to this size (inflated) are inflated in one synchronous call from the package in memory. */
const SMALL_PART_BYTES = 1024 * 1024;
/** Memory kept for the next package read with `reuseMemory` is at most this large. */
const SPARE_PACKAGE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Memory of a package read whole with `reuseMemory` whose archive is closed, kept for the next one on
 * this thread: fresh memory is slow here (faulting in the 3.3 MB of a workbook of 1,000 small sheets
 * took 15-36 ms, against 5-10 ms for the whole read), and an extraction thread reads package after
 * package.
 */
let sparePackage: Buffer | undefined;

/** Memory for a package of `size` bytes: the spare when it is large enough. */
function packageMemory(size: number): Buffer {
  const spare = sparePackage;
  sparePackage = undefined;
  return spare && spare.length >= size ? spare : Buffer.allocUnsafeSlow(size);
}

/**
 * yauzl's reader over a file handle of ours, reading in large pieces: a 7 MB compressed sheet is then a
 * handful of reads instead of hundreds of trips to the thread pool. yauzl calls close() once the zip is
 * closed and its last stream has ended.
 */
class FileHandleReader extends yauzl.RandomAccessReader {
  constructor(private readonly handle: FileHandle) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const { handle } = this;
    let position = start;
    // Positional reads on the handle: fs read streams close their descriptor when yauzl destroys them.
    return new Readable({
      highWaterMark: FILE_READ_BYTES,
      read() {
        const length = Math.min(FILE_READ_BYTES, end - position);
        if (length <= 0) {
          this.push(null);
          return;
        }
        handle.read(Buffer.allocUnsafe(length), 0, length, position).then(
          ({ bytesRead, buffer }) => {
            if (bytesRead === 0) {
              this.destroy(new Error('The file ends before the zip entry does.'));
              return;
            }
            position += bytesRead;
            this.push(buffer.subarray(0, bytesRead));
          },
          (error: Error) => this.destroy(error),
        );
      },
    });
  }

  override close(callback: (error: Error | null) => void): void {
    this.handle.close().then(() => callback(null), callback);
  }
}

/**
 * yauzl's reader over a package held in memory. yauzl's own (fromBuffer) answers every read through
 * setImmediate, a turn of the event loop each: opening a workbook of 1,000 sheets took two per entry,
 * ~2,000 turns. Reads here are answered as soon as the current job yields (a microtask), still after
 * `read` returns, as fs.read would.
 */
class InMemoryReader extends yauzl.RandomAccessReader {
  constructor(private readonly bytes: Buffer) {
    super();
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, bytesRead?: number) => void,
  ): void {
    const end = Math.min(position + Math.min(length, buffer.length - offset), this.bytes.length);
    const bytesRead = Math.max(0, end - position);
    if (bytesRead > 0) this.bytes.copy(buffer, offset, position, end);
    queueMicrotask(() => callback(null, bytesRead));
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // In pieces, as yauzl's own reader hands them to an inflater.
    const stream = new PassThrough();
    for (let at = start; at < end; at += STREAM_PIECE_BYTES)
      stream.write(this.bytes.subarray(at, Math.min(end, at + STREAM_PIECE_BYTES)));
    stream.end();
    return stream;
  }
}

/** Piece size of a part streamed from a package in memory (yauzl's own). */
const STREAM_PIECE_BYTES = 0x10000;

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  encrypted: boolean;
}

function duplicateEntry(first: string, second: string): ToolError {
  return new ToolError(
    'CORRUPT_WORKBOOK',
    first === second
      ? `The package holds "${first}" twice; readers disagree on which copy is the workbook's, so it is not read.`
      : `The package holds both "${first}" and "${second}", one part under two spellings (part names ignore case); readers disagree on which is the workbook's, so it is not read.`,
    {
      hint: 'Open the file in Excel or LibreOffice and save a copy, or rebuild it with a tool that writes each part once.',
      details: { part: first },
    },
  );
}

function zipBomb(message: string, details: Record<string, unknown>): ToolError {
  return new ToolError('ZIP_BOMB', message, {
    hint: 'The file inflates far beyond a plausible workbook; it was not read. Check where it came from.',
    details,
  });
}

/**
 * Read access to an OOXML package (.xlsx/.xlsm): the central directory is read once, entries are
 * inflated on demand as streams, and every inflated byte counts against the limits.
 */
export class ZipArchive {
  private inflatedTotal = 0;
  /** Inflates the parts lent by borrowPart, into memory reused from part to part. */
  private readonly inflater = new PartInflater();
  /** A part borrowed from the inflater's memory is still in use. */
  private lent = false;

  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly byName: Map<string, { info: ZipEntryInfo; entry: yauzl.Entry }>,
    private readonly limits: ZipLimits,
    /** True when the package was decrypted from an OLE file with Excel's default password. */
    readonly decrypted = false,
    /** The whole package, when it was read into memory. */
    private readonly bytes?: Buffer,
  ) {}

  /** Memory the package was read into, kept for the next package once this archive is closed. */
  private reusable: Buffer | undefined;

  /**
   * Opens a package through `files` (a server passes its PathPolicy: the file is opened as it was
   * checked, and only a regular file is read).
   */
  static async open(
    file: string,
    limits: Partial<ZipLimits> = {},
    files: FileAccess = localFiles,
  ): Promise<ZipArchive> {
    return ZipArchive.fromHandle((await files.openFile(file)).handle, limits);
  }

  /**
   * Reads a package from an open handle, which the archive then owns (closed with it). With
   * `reuseMemory`, a package read whole goes into memory kept from the last such archive closed on this
   * thread, and its memory is kept in turn once this one is closed: for readers that keep no bytes of
   * the package past `close` (extraction copies what it keeps).
   */
  static async fromHandle(
    handle: FileHandle,
    limits: Partial<ZipLimits> = {},
    options: { reuseMemory?: boolean } = {},
  ): Promise<ZipArchive> {
    const { size } = await handle.stat().catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    if (size <= IN_MEMORY_MAX_BYTES) {
      const memory = options.reuseMemory ? packageMemory(size) : undefined;
      let bytes: Buffer;
      try {
        bytes = await readWhole(handle, size, memory);
      } finally {
        await handle.close();
      }
      const archive = await ZipArchive.fromBuffer(bytes, limits);
      archive.reusable = memory;
      return archive;
    }
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      handle
        .stat()
        .then(({ size }) =>
          yauzl.fromRandomAccessReader(
            new FileHandleReader(handle),
            size,
            { lazyEntries: true, autoClose: false, validateEntrySizes: true },
            (error, opened) => (error ? reject(error) : resolve(opened)),
          ),
        )
        .catch(reject);
    }).catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    return ZipArchive.fromZipFile(zip, limits, {});
  }

  /** Reads a package held in memory (a workbook decrypted from its OLE container). */
  static async fromBuffer(
    buffer: Buffer,
    limits: Partial<ZipLimits> = {},
    origin: { decrypted?: boolean } = {},
  ): Promise<ZipArchive> {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.fromRandomAccessReader(
        new InMemoryReader(buffer),
        buffer.length,
        { lazyEntries: true, validateEntrySizes: true, autoClose: false },
        (error, opened) => (error ? reject(error) : resolve(opened)),
      );
    });
    return ZipArchive.fromZipFile(zip, limits, origin, buffer);
  }

  private static async fromZipFile(
    zip: yauzl.ZipFile,
    limits: Partial<ZipLimits>,
    origin: { decrypted?: boolean },
    bytes?: Buffer,
  ): Promise<ZipArchive> {
    const resolved = { ...DEFAULT_ZIP_LIMITS, ...limits };
    const byName = new Map<string, { info: ZipEntryInfo; entry: yauzl.Entry }>();
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        const info: ZipEntryInfo = {
          name: entry.fileName,
          compressedSize: entry.compressedSize,
          uncompressedSize: entry.uncompressedSize,
          encrypted: (entry.generalPurposeBitFlag & 0x1) !== 0,
        };
        // Part names are case-insensitive in OPC, and a package may not hold two equivalent names.
        // Readers disagree on which copy counts (Python's zipfile, so openpyxl, reads the last; this
        // reader would read the first), so a file that shows one thing to a checker and another to
        // Excel is refused rather than read either way (as LibreOffice and .NET's packaging refuse it).
        const key = normalizePartName(entry.fileName);
        const first = byName.get(key);
        if (first) {
          reject(duplicateEntry(first.info.name, entry.fileName));
          return;
        }
        byName.set(key, { info, entry });
        zip.readEntry();
      });
      zip.once('end', () => resolve());
      zip.once('error', reject);
      zip.readEntry();
    }).catch((error: unknown) => {
      zip.close();
      throw error;
    });
    const archive = new ZipArchive(zip, byName, resolved, origin.decrypted === true, bytes);
    const declared = [...byName.values()].reduce((sum, { info }) => sum + info.uncompressedSize, 0);
    if (declared > resolved.maxTotalBytes) {
      archive.close();
      throw zipBomb(
        `The archive declares ${declared} uncompressed bytes, above the ${resolved.maxTotalBytes} limit.`,
        {
          declared_bytes: declared,
          limit_bytes: resolved.maxTotalBytes,
        },
      );
    }
    return archive;
  }

  /** Every entry, in central-directory order. */
  list(): ZipEntryInfo[] {
    return [...this.byName.values()].map(({ info }) => info);
  }

  has(name: string): boolean {
    return this.byName.has(normalizePartName(name));
  }

  info(name: string): ZipEntryInfo | undefined {
    return this.byName.get(normalizePartName(name))?.info;
  }

  /**
   * A small part of a package held in memory, inflated at once (see inflateSmall) and counted as a
   * stream would count it; undefined for a part that is read as a stream (or that openStream refuses,
   * which then says why).
   */
  wholePart(name: string): Buffer | undefined {
    const found = this.byName.get(normalizePartName(name));
    if (!found || found.info.encrypted) return undefined;
    return this.inflateSmall(name, found.entry);
  }

  /**
   * Like wholePart, but the bytes may lie in memory the archive reuses for the next part borrowed: they
   * are valid until `release` (a part borrowed while another is out gets memory of its own). For
   * readers that go through a part once and keep nothing of its bytes (the sheets).
   */
  borrowPart(name: string): { bytes: Buffer; release: () => void } | undefined {
    const found = this.byName.get(normalizePartName(name));
    if (!found || found.info.encrypted) return undefined;
    const reuse = !this.lent;
    const bytes = this.inflateSmall(name, found.entry, reuse);
    if (!bytes) return undefined;
    if (!reuse) return { bytes, release: () => undefined };
    this.lent = true;
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.lent = false;
      },
    };
  }

  /** An inflating stream of one part; throws ZIP_BOMB mid-stream if a cap is crossed. */
  async openStream(name: string): Promise<Readable> {
    const found = this.byName.get(normalizePartName(name));
    if (!found) throw new ToolError('NOT_FOUND', `The workbook has no part "${name}".`);
    if (found.info.encrypted) {
      throw new ToolError('ENCRYPTED_WORKBOOK', `The part "${name}" is encrypted.`, {
        hint: 'Remove the password in Excel (File → Info → Protect Workbook) and save a copy.',
      });
    }
    const small = this.inflateSmall(name, found.entry);
    if (small) return Readable.from([small], { objectMode: false });
    const raw = await this.inflatingStream(found.entry);
    let entryBytes = 0;
    const { limits } = this;
    const compressed = Math.max(1, found.info.compressedSize);
    const counter = new Transform({
      // Let inflating run ahead of the reader, so the two overlap.
      highWaterMark: READ_AHEAD_BYTES,
      transform: (chunk: Buffer, _encoding, callback) => {
        entryBytes += chunk.length;
        this.inflatedTotal += chunk.length;
        if (entryBytes > limits.maxEntryBytes) {
          callback(zipBomb(`Part "${name}" inflates beyond ${limits.maxEntryBytes} bytes.`, { part: name }));
        } else if (this.inflatedTotal > limits.maxTotalBytes) {
          callback(
            zipBomb(`The workbook inflates beyond ${limits.maxTotalBytes} bytes in total.`, { part: name }),
          );
        } else if (entryBytes > limits.ratioFloorBytes && entryBytes / compressed > limits.maxRatio) {
          callback(
            zipBomb(`Part "${name}" has a compression ratio above ${limits.maxRatio}:1.`, {
              part: name,
              ratio: Math.round(entryBytes / compressed),
            }),
          );
        } else {
          callback(null, chunk);
        }
      },
    });
    raw.on('error', (error) => counter.destroy(error));
    return raw.pipe(counter);
  }

  /**
   * A small part of a package held in memory, inflated in one call (no streams, no thread pool, no
   * 256 KiB output buffer per part), its bytes counted as the streams count them; undefined for parts
   * that stream.
   */
  private inflateSmall(name: string, entry: yauzl.Entry, reuse = false): Buffer | undefined {
    const { limits } = this;
    if (entry.uncompressedSize > SMALL_PART_BYTES) return undefined;
    const raw = this.storedBytes(entry);
    if (!raw) return undefined;
    let data: Buffer;
    const reused =
      reuse && entry.compressionMethod === 8 ? this.inflater.inflate(raw, entry.uncompressedSize) : undefined;
    if (entry.compressionMethod === 0) data = raw;
    else if (reused) data = reused;
    else {
      try {
        // One byte more than declared: a part that inflates beyond its size is caught, not cut.
        data = zlib.inflateRawSync(raw, { maxOutputLength: entry.uncompressedSize + 1 });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          throw zipBomb(`Part "${name}" inflates beyond its declared size.`, { part: name });
        throw error;
      }
    }
    if (data.length !== entry.uncompressedSize) {
      throw zipBomb(
        `Part "${name}" inflates to ${data.length} bytes, not the declared ${entry.uncompressedSize}.`,
        {
          part: name,
        },
      );
    }
    this.inflatedTotal += data.length;
    if (this.inflatedTotal > limits.maxTotalBytes) {
      throw zipBomb(`The workbook inflates beyond ${limits.maxTotalBytes} bytes in total.`, { part: name });
    }
    return data;
  }

  /**
   * The bytes of a stored or deflated entry as the package in memory holds them (still compressed);
   * undefined when the package is not in memory or the entry is not where its header says (yauzl then
   * reads it, and says what is wrong).
   */
  private storedBytes(entry: yauzl.Entry): Buffer | undefined {
    const { bytes } = this;
    if (!bytes) return undefined;
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) return undefined;
    const header = entry.relativeOffsetOfLocalHeader;
    if (header + 30 > bytes.length || bytes.readUInt32LE(header) !== 0x04034b50) return undefined;
    const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
    const raw = bytes.subarray(start, start + entry.compressedSize);
    return raw.length === entry.compressedSize ? raw : undefined;
  }

  /**
   * The part's bytes, inflated here with large output chunks: yauzl's own inflater hands out 16 KB
   * chunks, and on a 50 MB sheet the per-chunk stream overhead costs more than the inflating itself.
   * The compressed bytes arrive in large pieces (FileHandleReader): fed in small ones, each piece is a
   * trip to the thread pool that waits for the main thread, so inflating stalls while the reader parses;
   * with large ones it runs ahead on the pool (bounded by READ_AHEAD_BYTES) and overlaps the parsing.
   */
  private async inflatingStream(entry: yauzl.Entry): Promise<Readable> {
    if (entry.compressionMethod !== 8) {
      return new Promise<Readable>((resolve, reject) => {
        this.zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream)));
      });
    }
    // zlib streams pass highWaterMark on to their Transform (the typings leave it out).
    const inflate = zlib.createInflateRaw({
      chunkSize: INFLATE_CHUNK_BYTES,
      highWaterMark: READ_AHEAD_BYTES,
    } as zlib.ZlibOptions);
    // A package in memory hands the inflater the whole part at once: fed in yauzl's 64 KB pieces, each
    // piece's output was a trip to the thread pool of its own, and the inflater kept waiting for the
    // parser (a 48 MB sheet streamed in 122-132 ms against 140-164, the parser busy 91 ms).
    const inMemory = this.storedBytes(entry);
    if (inMemory) {
      inflate.end(inMemory);
      return inflate;
    }
    const compressed = await new Promise<Readable>((resolve, reject) => {
      this.zip.openReadStream(entry, { decompress: false }, (error, stream) =>
        error ? reject(error) : resolve(stream),
      );
    });
    compressed.on('error', (error) => inflate.destroy(error));
    return compressed.pipe(inflate);
  }

  /** A whole part in memory (for the small parts: workbook.xml, rels, styles, drawings). */
  async readBuffer(name: string): Promise<Buffer> {
    const found = this.byName.get(normalizePartName(name));
    const small = found && !found.info.encrypted ? this.inflateSmall(name, found.entry) : undefined;
    if (small) return small;
    const stream = await this.openStream(name);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async readText(name: string): Promise<string> {
    return (await this.readBuffer(name)).toString('utf8');
  }

  /** The raw (still compressed) bytes and metadata of an entry, for copying it unchanged into a new zip. */
  async openRawStream(name: string): Promise<{ stream: Readable; entry: yauzl.Entry }> {
    const found = this.byName.get(normalizePartName(name));
    if (!found) throw new ToolError('NOT_FOUND', `The workbook has no part "${name}".`);
    const stream = await new Promise<Readable>((resolve, reject) => {
      this.zip.openReadStream(found.entry, { decompress: false }, (error, s) =>
        error ? reject(error) : resolve(s),
      );
    });
    return { stream, entry: found.entry };
  }

  /**
   * The bytes of an entry exactly as stored (compressed, or plain for a stored entry) and its
   * metadata, for copying it unchanged into a new zip. Unlike openRawStream it also takes stored
   * entries (method 0), which yauzl refuses to open with `decompress: false`.
   */
  async openCopyStream(name: string): Promise<{ stream: Readable; entry: yauzl.Entry }> {
    const found = this.byName.get(normalizePartName(name));
    if (!found) throw new ToolError('NOT_FOUND', `The workbook has no part "${name}".`);
    // A package in memory hands the bytes over at once: yauzl's stream gives them in 64 KB pieces, each
    // a trip through the stream (an inflater fed them waited for its reader; a copy wrote each).
    const inMemory = this.storedBytes(found.entry);
    if (inMemory) return { stream: Readable.from([inMemory], { objectMode: false }), entry: found.entry };
    const options = found.entry.compressionMethod === 0 ? {} : { decompress: false as const };
    const stream = await new Promise<Readable>((resolve, reject) => {
      this.zip.openReadStream(found.entry, options, (error, s) => (error ? reject(error) : resolve(s)));
    });
    return { stream, entry: found.entry };
  }

  close(): void {
    this.inflater.close();
    this.zip.close();
    if (this.reusable && this.reusable.length <= SPARE_PACKAGE_MAX_BYTES) sparePackage = this.reusable;
    this.reusable = undefined;
  }
}

/** The whole file behind a handle, read in large pieces (into `memory` when given). */
async function readWhole(handle: FileHandle, size: number, memory?: Buffer): Promise<Buffer> {
  const bytes = memory ? memory.subarray(0, size) : Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(bytes, done, Math.min(FILE_READ_BYTES * 8, size - done), done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === size ? bytes : bytes.subarray(0, done);
}

/** OPC part names: no leading slash, forward slashes, case-insensitive. */
export function normalizePartName(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}
