// Big rewritten parts are deflated in 1 MiB blocks, several at once (issue 26 §1, the patch row): the
// blocks must join into one deflate stream that readers other than ours inflate (openpyxl reads a patched
// sheet of three blocks below), the bytes must not depend on how the part arrives, and parts of one block
// must be deflated exactly as before.
import { open, readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BLOCK_BYTES, EarlyBlocks } from '../src/patch/block-deflate.js';
import { ZipWriter } from '../src/patch/zip-writer.js';
import { runWithOpenpyxl } from './independent-reader.js';
import { readPart, readParts, workspace, type Workspace } from './patch-helpers.js';

/** Worksheet-like text that deflate cannot shrink to nothing: numbers and words vary from row to row. */
function rowsXml(bytes: number): Buffer {
  const words = ['alpha', 'beta', 'gamma', 'delta', '東京', 'Zürich', 'R&amp;D', 'omega'];
  const out: string[] = [];
  let length = 0;
  for (let r = 1; length < bytes; r++) {
    const v = (r * 7919) % 100003;
    const row = `<row r="${r}"><c r="A${r}"><v>${v}</v></c><c r="B${r}" t="inlineStr"><is><t>${words[v % 8]} ${v % 977}</t></is></c></row>`;
    out.push(row);
    length += Buffer.byteLength(row);
  }
  return Buffer.from(out.join(''));
}

/** The empty stored block a sync flush ends a block with. */
const SYNC_FLUSH = Buffer.from([0, 0, 0xff, 0xff]);
const STAMP = { time: 0, date: 0x21 };
let dir: string;
afterAll(async () => dir && rm(dir, { recursive: true, force: true }));

async function zipOf(
  name: string,
  parts: [string, Buffer | Buffer[]][],
  early?: EarlyBlocks,
): Promise<string> {
  dir ??= await mkdtemp(path.join(os.tmpdir(), 'exstruct-blocks-'));
  const file = path.join(dir, name);
  const handle = await open(file, 'w');
  try {
    const zip = new ZipWriter(handle);
    for (const [part, data] of parts) {
      const pieces = Array.isArray(data)
        ? (async function* () {
            yield* data;
          })()
        : data;
      await zip.addDeflated(part, pieces, STAMP, early);
    }
    await zip.finish();
  } finally {
    await handle.close();
  }
  return file;
}

/** Cuts a buffer into pieces of an odd size (as a sheet streams through the writer). */
const cut = (data: Buffer, size: number) =>
  Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size));

describe('ZipWriter: parts deflated in blocks', () => {
  // More blocks than are deflated at once: block buffers go back to the pool and are taken again.
  const big = rowsXml(7 * BLOCK_BYTES + 12_345);
  const small = rowsXml(200_000);

  it('joins the blocks of a big part into one deflate stream, whatever the pieces', async () => {
    const whole = await zipOf('whole.zip', [['xl/worksheets/sheet1.xml', big]]);
    const pieces = await zipOf('pieces.zip', [['xl/worksheets/sheet1.xml', cut(big, 70_001)]]);
    // (Buffer.equals: vitest's deep equality takes seconds over megabytes.)
    expect((await readFile(pieces)).equals(await readFile(whole))).toBe(true);
    expect((await readParts(whole)).get('xl/worksheets/sheet1.xml')!.equals(big)).toBe(true);
    // Each block starts with the 32 KiB before it as its dictionary: as small as one stream, give or take.
    const zipped = await readFile(whole);
    let flushes = 0;
    for (let at = zipped.indexOf(SYNC_FLUSH); at !== -1; at = zipped.indexOf(SYNC_FLUSH, at + 1)) flushes++;
    expect(flushes).toBe(7); // where the first seven blocks end
    const compressed = zipped.length;
    expect(compressed).toBeLessThan(zlib.deflateRawSync(big, { level: 6 }).length * 1.003 + 200);
  });

  it('deflates a part of at most one block exactly as one ordinary stream', async () => {
    const file = await zipOf('small.zip', [['a.xml', cut(small, 9_999)]]);
    const bytes = await readFile(file);
    const expected = zlib.deflateRawSync(small, { level: 6 });
    const at = bytes.indexOf(Buffer.from('a.xml')) + 'a.xml'.length;
    expect(bytes.subarray(at, at + expected.length).equals(expected)).toBe(true);
  });
});

describe('blocks deflated ahead while a part is read', () => {
  const read = rowsXml(3 * BLOCK_BYTES + 5_000);
  const block = (k: number, bytes = read) => bytes.subarray(k * BLOCK_BYTES, (k + 1) * BLOCK_BYTES);
  /** `read` with one byte changed at `at` (the length stays). */
  const changedAt = (at: number) => {
    const copy = Buffer.from(read);
    copy[at] = copy[at] === 0x41 ? 0x42 : 0x41;
    return copy;
  };
  const ahead = () => {
    const early = new EarlyBlocks(6);
    for (const piece of cut(read, 256 * 1024)) early.add(piece);
    return early;
  };

  it('are taken only when the block and the 32 KiB before it came out as they were read', () => {
    const early = ahead();
    expect(early.take(0, block(0), undefined)).toBeDefined();
    // The block before differs, but not in its last 32 KiB (the dictionary): still the same bytes.
    expect(early.take(1, block(1), block(0, changedAt(10)))).toBeDefined();
    expect(early.take(1, block(1), block(0, changedAt(BLOCK_BYTES - 10)))).toBeUndefined();
    expect(early.take(1, block(1, changedAt(BLOCK_BYTES + 10)), block(0))).toBeUndefined();
  });

  it('give the very file deflating every block when written gives', async () => {
    for (const [name, written] of [
      ['same', read],
      ['edited', changedAt(2 * BLOCK_BYTES + 100)],
    ] as const) {
      const plain = await zipOf(`${name}-plain.zip`, [['s.xml', cut(written, 70_001)]]);
      const early = await zipOf(`${name}-early.zip`, [['s.xml', cut(written, 70_001)]], ahead());
      expect((await readFile(early)).equals(await readFile(plain)), name).toBe(true);
      expect((await readParts(early)).get('s.xml')!.equals(written), name).toBe(true);
    }
  });
});

describe('exstruct_patch of a sheet bigger than a block', () => {
  let ws: Workspace;
  afterEach(async () => ws?.close());

  it('writes the patched sheet whole and readable, the other rows byte for byte', async () => {
    ws = await workspace();
    const text = (r: number) => `${'row '.repeat(300)}${r}`; // ~1,200 bytes a cell: ~2.4 MiB of sheet
    const values = Array.from({ length: 2_000 }, (_, i) => [text(i + 1), i + 1]);
    const made = await ws.call<{ out_path: string }>('exstruct_make', {
      out_path: 'big.xlsx',
      ops: [{ op: 'set_range_values', sheet: 'Sheet1', range: 'A1:B2000', values }],
    });
    expect(made.isError, made.text).toBe(false);
    const before = await readPart(made.structured.out_path, 'xl/worksheets/sheet1.xml');
    expect(before.length).toBeGreaterThan(2 * BLOCK_BYTES);
    const res = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: 'big.xlsx',
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'B1500', value: 'patched' }],
    });
    expect(res.isError, res.text).toBe(false);
    const after = await readPart(res.structured.out_path, 'xl/worksheets/sheet1.xml');
    const row = (xml: string, r: number) =>
      xml.slice(xml.indexOf(`<row r="${r}"`), xml.indexOf('</row>', xml.indexOf(`<row r="${r}"`)));
    expect(row(after, 1500)).toContain('patched');
    expect(after.replace(row(after, 1500), '')).toBe(before.replace(row(before, 1500), ''));
    const python = await runWithOpenpyxl(
      'import sys, openpyxl\nws = openpyxl.load_workbook(sys.argv[1])["Sheet1"]\nprint(ws["B1500"].value, ws["B2000"].value, ws.max_row)',
      [res.structured.out_path],
    );
    if (python !== undefined) expect(python.trim()).toBe('patched 2000 2000');
  });
});
