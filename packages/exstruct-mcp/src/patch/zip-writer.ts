import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ToolError } from '@mcp-workbench/core/engine';
import { BlockDeflater, type EarlyBlocks } from './block-deflate.js';

/** What the writer needs of an entry read with yauzl to copy it byte for byte. */
export interface RawEntryInfo {
  fileName: string;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  lastModFileTime: number;
  lastModFileDate: number;
  externalFileAttributes: number;
}

interface CentralRecord {
  name: Buffer;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  external: number;
  offset: number;
}

const MAX32 = 0xffffffff;

/**
 * Writes a ZIP (OOXML package) sequentially into an open file: untouched entries are copied still
 * compressed (same bytes, same CRC), rewritten ones are deflated from a stream. No ZIP64: a package
 * beyond 4 GiB is refused rather than written wrongly.
 */
export class ZipWriter {
  private position = 0;
  private readonly records: CentralRecord[] = [];

  constructor(
    private readonly file: FileHandle,
    private readonly level = 6,
  ) {}

  /** Copies an entry's compressed bytes unchanged. */
  async addRaw(info: RawEntryInfo, raw: Readable): Promise<void> {
    const now = { time: info.lastModFileTime, date: info.lastModFileDate };
    const record = this.startRecord(info.fileName, info.compressionMethod, now, info.externalFileAttributes);
    record.crc = info.crc32;
    record.compressedSize = info.compressedSize;
    record.size = info.uncompressedSize;
    await this.write(this.localHeader(record));
    let copied = 0;
    for await (const chunk of raw) {
      copied += (chunk as Buffer).length;
      await this.write(chunk as Buffer);
    }
    if (copied !== info.compressedSize) {
      throw new ToolError(
        'INTERNAL',
        `Copying "${info.fileName}" read ${copied} of ${info.compressedSize} bytes.`,
      );
    }
    this.records.push(record);
  }

  /** Deflates a part from a stream (or a buffer/string) of its uncompressed bytes. */
  async addDeflated(
    name: string,
    data: AsyncIterable<Buffer | string> | Buffer | string,
    stamp?: { time: number; date: number },
    /** Its first blocks, deflated ahead while it was read. */
    early?: EarlyBlocks,
  ): Promise<void> {
    const record = this.startRecord(name, 8, stamp ?? dosNow(), 0);
    const headerAt = this.position;
    await this.write(this.localHeader(record));
    const deflater = new BlockDeflater(this.level, (bytes) => this.write(bytes), early);
    try {
      if (typeof data === 'string' || Buffer.isBuffer(data)) {
        await deflater.push(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      } else {
        for await (const piece of data)
          await deflater.push(typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
      }
      await deflater.end();
    } catch (error) {
      await deflater.abandon();
      throw error;
    }
    const { crc, size, compressed } = deflater;
    record.crc = crc >>> 0;
    record.size = size;
    record.compressedSize = compressed;
    checkSize(name, size);
    checkSize(name, compressed);
    const fixed = Buffer.alloc(12);
    fixed.writeUInt32LE(record.crc, 0);
    fixed.writeUInt32LE(compressed, 4);
    fixed.writeUInt32LE(size, 8);
    await this.file.write(fixed, 0, 12, headerAt + 14);
    this.records.push(record);
  }

  /** Writes the central directory; the file is a complete package afterwards. */
  async finish(): Promise<void> {
    if (this.records.length > 0xffff) {
      throw new ToolError('LIMIT_EXCEEDED', 'The package would hold more than 65535 parts.');
    }
    const start = this.position;
    for (const r of this.records) {
      const head = Buffer.alloc(46);
      head.writeUInt32LE(0x02014b50, 0);
      head.writeUInt16LE(0x031e, 4); // made by: UNIX, spec 3.0
      this.writeEntryFields(head, 6, r);
      head.writeUInt32LE(r.external >>> 0, 38);
      head.writeUInt32LE(r.offset, 42);
      await this.write(Buffer.concat([head, r.name]));
    }
    const size = this.position - start;
    checkSize('central directory', this.position);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.records.length, 8);
    end.writeUInt16LE(this.records.length, 10);
    end.writeUInt32LE(size, 12);
    end.writeUInt32LE(start, 16);
    await this.write(end);
  }

  private startRecord(
    fileName: string,
    method: number,
    stamp: { time: number; date: number },
    external: number,
  ): CentralRecord {
    checkSize(fileName, this.position);
    checkEntryName(fileName);
    return {
      name: Buffer.from(fileName, 'utf8'),
      method,
      time: stamp.time,
      date: stamp.date,
      crc: 0,
      compressedSize: 0,
      size: 0,
      external,
      offset: this.position,
    };
  }

  private flags(record: CentralRecord): number {
    // Bit 11: the name is UTF-8. Sizes are always in the headers, so no data descriptor (bit 3).
    return record.name.some((byte) => byte > 0x7f) ? 0x0800 : 0;
  }

  private localHeader(r: CentralRecord): Buffer {
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    this.writeEntryFields(head, 4, r);
    return Buffer.concat([head, r.name]);
  }

  /**
   * The run of fields local and central headers share, in the same order (version needed, flags,
   * method, time, date, CRC, sizes, name length), written from offset `at`.
   */
  private writeEntryFields(head: Buffer, at: number, r: CentralRecord): void {
    head.writeUInt16LE(20, at);
    head.writeUInt16LE(this.flags(r), at + 2);
    head.writeUInt16LE(r.method, at + 4);
    head.writeUInt16LE(r.time, at + 6);
    head.writeUInt16LE(r.date, at + 8);
    head.writeUInt32LE(r.crc >>> 0, at + 10);
    head.writeUInt32LE(r.compressedSize, at + 14);
    head.writeUInt32LE(r.size, at + 18);
    head.writeUInt16LE(r.name.length, at + 22);
  }

  private async write(buffer: Buffer): Promise<void> {
    let done = 0;
    while (done < buffer.length) {
      const { bytesWritten } = await this.file.write(
        buffer,
        done,
        buffer.length - done,
        this.position + done,
      );
      done += bytesWritten;
    }
    this.position += buffer.length;
  }
}

/**
 * No entry of a written package leaves it: no absolute name, drive or backslash, no `..` segment (what
 * yauzl refuses to read). Such a name could only come from a workbook whose relationships point
 * outside itself, and it would write outside the folder of whoever unzips the output (zip slip).
 */
function checkEntryName(name: string): void {
  const outside =
    name === '' || /^([/\\]|[A-Za-z]:)/.test(name) || name.includes('\\') || name.split('/').includes('..');
  if (!outside) return;
  throw new ToolError(
    'CORRUPT_WORKBOOK',
    `The workbook names a part "${name}" outside its package; nothing was written.`,
    {
      hint: 'Open and re-save the workbook in Excel, or check where it came from.',
      details: { part: name },
    },
  );
}

function checkSize(what: string, value: number): void {
  if (value > MAX32) {
    throw new ToolError('LIMIT_EXCEEDED', `"${what}" would exceed 4 GiB; ZIP64 packages are not written.`);
  }
}

function dosNow(): { time: number; date: number } {
  const d = new Date();
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((Math.max(1980, d.getFullYear()) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}
