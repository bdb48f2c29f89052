// Small sheets are inflated with one zlib stream into memory reused from sheet to sheet (issue 26 §1):
// the bytes, and every error a broken part gives, must be those of inflating each part on its own.
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PartInflater } from '../src/ooxml/part-inflater.js';
import { ZipArchive } from '../src/ooxml/zip-archive.js';
import { zipBytes } from './extract-helpers.js';

const text = (n: number, seed: string) =>
  Array.from(
    { length: n },
    (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${seed}${i * 7}</v></c></row>`,
  ).join('');

describe('PartInflater', () => {
  it('inflates parts one after the other into one reused buffer, as inflateRawSync does', () => {
    const inflater = new PartInflater();
    const parts = [text(10, 'a'), text(2000, 'b'), '', text(300, 'c'), text(5000, 'd')].map((xml) =>
      Buffer.from(xml),
    );
    let last: ArrayBufferLike | undefined;
    let reused = 0;
    for (const part of parts) {
      const raw = zlib.deflateRawSync(part);
      const bytes = inflater.inflate(raw, part.length);
      expect(bytes && Buffer.compare(bytes, part)).toBe(0);
      if (bytes!.buffer === last) reused++;
      last = bytes!.buffer;
    }
    // The buffer grows when a part needs more room, and is reused otherwise.
    expect(reused).toBeGreaterThanOrEqual(2);
    inflater.close();
  });

  it('leaves a stream it cannot vouch for to the caller, and goes on with the next part', () => {
    const inflater = new PartInflater();
    const part = Buffer.from(text(500, 'x'));
    const raw = zlib.deflateRawSync(part);
    expect(inflater.inflate(raw, part.length + 1)).toBeUndefined(); // shorter than declared
    expect(inflater.inflate(raw, part.length - 1)).toBeUndefined(); // longer than declared
    expect(inflater.inflate(raw.subarray(0, raw.length >> 1), part.length)).toBeUndefined(); // cut
    expect(inflater.inflate(Buffer.concat([raw, Buffer.from('junk')]), part.length)).toBeUndefined();
    expect(inflater.inflate(Buffer.from([0xff, 0xff, 0xff, 0x00]), 10)).toBeUndefined(); // not deflate
    expect(Buffer.compare(inflater.inflate(raw, part.length)!, part)).toBe(0);
    inflater.close();
  });
});

/** `zip` with the declared (uncompressed) size of `name` changed to `size`, in both its headers. */
function declaring(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  const end = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = out.readUInt32LE(end + 16);
  for (let i = 0; i < out.readUInt16LE(end + 10); i++) {
    const nameLength = out.readUInt16LE(at + 28);
    if (out.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      out.writeUInt32LE(size, at + 24);
      out.writeUInt32LE(size, out.readUInt32LE(at + 42) + 22);
    }
    at += 46 + nameLength + out.readUInt16LE(at + 30) + out.readUInt16LE(at + 32);
  }
  return out;
}

describe('ZipArchive.borrowPart', () => {
  const parts = { 'a.xml': text(100, 'a'), 'b.xml': text(3000, 'b'), 'c.xml': text(50, 'c') };

  it('lends the bytes wholePart gives, in reused memory, and memory of its own while a part is out', async () => {
    const zip = await ZipArchive.fromBuffer(zipBytes(parts));
    const a = zip.borrowPart('a.xml')!;
    const b = zip.borrowPart('b.xml')!;
    expect(a.bytes.toString()).toBe(parts['a.xml']);
    expect(b.bytes.toString()).toBe(parts['b.xml']);
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer);
    b.release();
    a.release();
    a.release(); // twice is harmless
    const c = zip.borrowPart('c.xml')!;
    expect(c.bytes.toString()).toBe(parts['c.xml']);
    expect(c.bytes.buffer).toBe(a.bytes.buffer);
    c.release();
    expect(zip.borrowPart('b.xml')!.bytes.toString()).toBe(parts['b.xml']);
    zip.close();
  });

  it('refuses a part that inflates to other than its declared size as wholePart does', async () => {
    const size = Buffer.byteLength(parts['b.xml']);
    for (const declared of [size - 1, size + 1, size + 100]) {
      const bytes = declaring(zipBytes(parts), 'b.xml', declared);
      const lending = await ZipArchive.fromBuffer(bytes);
      const whole = await ZipArchive.fromBuffer(bytes);
      let expected: unknown;
      try {
        whole.wholePart('b.xml');
      } catch (error) {
        expected = error;
      }
      expect((expected as { code?: string }).code).toBe('ZIP_BOMB');
      expect(() => lending.borrowPart('b.xml')).toThrow((expected as Error).message);
      // The archive reads on.
      const next = lending.borrowPart('c.xml')!;
      expect(next.bytes.toString()).toBe(parts['c.xml']);
      lending.close();
      whole.close();
    }
  });

  it('fails on a corrupt deflate stream with the error wholePart gives', async () => {
    const bytes = zipBytes(parts);
    // Breaks the deflate data of b.xml in place (its local header is the second one).
    const local = bytes.indexOf(Buffer.from('b.xml')) + 5;
    for (let i = 40; i < 60; i++) bytes[local + i] = 0xff;
    const whole = await ZipArchive.fromBuffer(bytes);
    let wholeError: Error | undefined;
    try {
      whole.wholePart('b.xml');
    } catch (error) {
      wholeError = error as Error;
    }
    whole.close();
    expect(wholeError).toBeInstanceOf(Error);
    const lending = await ZipArchive.fromBuffer(bytes);
    expect(() => lending.borrowPart('b.xml')).toThrow(wholeError!.message);
    expect(lending.borrowPart('c.xml')!.bytes.toString()).toBe(parts['c.xml']);
    lending.close();
  });
});

// An extraction thread reads package after package; with `reuseMemory` the memory of a closed archive
// is read into for the next one (fresh memory is slow to fault in), never while it is still open.
describe('ZipArchive.fromHandle with reuseMemory', () => {
  it('reads the next package into the memory of the last one closed, and never into one still open', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-zip-memory-'));
    try {
      const files = ['one', 'two', 'three'].map((name, i) => {
        const file = path.join(dir, `${name}.xlsx`);
        return { file, parts: { [`${name}.xml`]: text(200 + 400 * i, name) } };
      });
      // Stored parts: wholePart gives a view of the package's memory.
      for (const { file, parts } of files) await writeFile(file, zipBytes(parts, { store: true }));
      const openOne = async (i: number) =>
        ZipArchive.fromHandle(await open(files[i]!.file), {}, { reuseMemory: true });
      const memoryOf = (zip: ZipArchive, i: number) => {
        const [name, xml] = Object.entries(files[i]!.parts)[0]!;
        const bytes = zip.wholePart(name)!;
        expect(bytes.toString()).toBe(xml);
        return bytes.buffer;
      };
      // The biggest first, so the others fit in its memory.
      const first = await openOne(2);
      const memory = memoryOf(first, 2);
      first.close();
      const second = await openOne(0);
      expect(memoryOf(second, 0)).toBe(memory); // the memory of the one closed
      const third = await openOne(1);
      expect(memoryOf(third, 1)).not.toBe(memory); // the second is still open
      memoryOf(second, 0); // and still reads as it did
      third.close();
      second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
