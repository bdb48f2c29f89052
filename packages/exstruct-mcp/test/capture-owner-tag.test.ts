// The owner tag of a sheet image (`exstruct:source`) must hold a workbook name that is not Latin-1
// (売上.xlsx) whole: a byte-clipped name never matches its own workbook again, so a re-capture wrote
// `_1.png` copies, and two names could share one tag, so one workbook replaced another's images.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngTextChunks, withTextChunks } from '../src/render/png-text.js';
import { workspace, type Workspace } from './patch-helpers.js';

interface Answer {
  out_dir: string;
  image_paths: string[];
  warnings: string[];
}

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => {
  await ws.close();
});

/** A 1×1 PNG made by pngjs (no text chunks). */
function tinyPng(): Buffer {
  const png = new PNG({ width: 1, height: 1 });
  png.data.fill(255);
  return PNG.sync.write(png);
}

describe('PNG text chunks', () => {
  it.each(['売上.xlsx', 'Ā.xlsx', '𠮷野家😀.xlsx', 'café.xlsx', 'plain.xlsx'])(
    'round-trips %s and keeps the PNG valid',
    (name) => {
      const png = withTextChunks(tinyPng(), { Software: 'exstruct-mcp', 'exstruct:source': name });
      expect(pngTextChunks(png)).toEqual({ Software: 'exstruct-mcp', 'exstruct:source': name });
      expect(() => PNG.sync.read(png)).not.toThrow(); // checks every chunk's CRC
    },
  );

  it('writes Latin-1 names as tEXt (as earlier versions did) and others as UTF-8 iTXt', () => {
    const latin = withTextChunks(tinyPng(), { 'exstruct:source': 'café.xlsx' });
    expect(latin.includes(Buffer.from('tEXtexstruct:source\0caf\xe9.xlsx', 'latin1'))).toBe(true);
    const japanese = withTextChunks(tinyPng(), { 'exstruct:source': '売上.xlsx' });
    expect(japanese.includes(Buffer.from('iTXtexstruct:source\0\0\0\0\0売上.xlsx', 'utf8'))).toBe(true);
    expect(japanese.includes(Buffer.from('tEXt', 'latin1'))).toBe(false);
  });
});

describe('exstruct_capture_sheet_images with a Japanese workbook name', () => {
  it('replaces its own earlier images on a second capture', async () => {
    await ws.fixture('basic__sample.xlsx', '売上.xlsx');
    const args = { xlsx_path: '売上.xlsx', sheet: 'Sheet1', dpi: 72, out_dir: 'ja_out' };
    const first = await ws.call<Answer>('exstruct_capture_sheet_images', args);
    expect(first.isError, first.text).toBe(false);
    const image = first.structured.image_paths[0]!;
    expect(pngTextChunks(await readFile(image))['exstruct:source']).toBe('売上.xlsx');
    const again = await ws.call<Answer>('exstruct_capture_sheet_images', args);
    expect(again.isError, again.text).toBe(false);
    expect(again.structured.image_paths).toEqual(first.structured.image_paths);
    expect(again.structured.warnings.join(' ')).not.toMatch(/is not an image of/);
  });

  it("does not take another workbook's images for its own when their names share low bytes", async () => {
    // Ａ is U+FF21: its low byte is '!', so a Latin-1 tag made Ａ.xlsx's images look like !.xlsx's.
    await ws.fixture('basic__sample.xlsx', 'Ａ.xlsx');
    await ws.fixture('basic__sample.xlsx', '!.xlsx');
    const args = { sheet: 'Sheet1', dpi: 72, out_dir: 'shared_out' };
    const theirs = await ws.call<Answer>('exstruct_capture_sheet_images', { ...args, xlsx_path: 'Ａ.xlsx' });
    expect(theirs.isError, theirs.text).toBe(false);
    const before = await readFile(theirs.structured.image_paths[0]!);
    const mine = await ws.call<Answer>('exstruct_capture_sheet_images', { ...args, xlsx_path: '!.xlsx' });
    expect(mine.isError, mine.text).toBe(false);
    expect(await readFile(theirs.structured.image_paths[0]!)).toEqual(before);
    expect(path.basename(mine.structured.image_paths[0]!)).toMatch(/_1\.png$/);
    expect(mine.structured.warnings.join(' ')).toMatch(/is not an image of !\.xlsx/);
  });
});
