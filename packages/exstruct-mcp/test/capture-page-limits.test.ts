// Areas too large to draw are refused at once (LIMIT_EXCEEDED with the image count), before any image
// is drawn, with work that grows with the cells a sheet has, not with the area (A1:XFD1048576 once hung
// for minutes or overflowed a Set); every image keeps within 24 megapixels at the asked dpi, and a
// range under that budget is one image.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { DrawClock } from '../src/render/draw-clock.js';
import { objectsNear } from '../src/render/draw-objects.js';
import type { DrawnObject } from '../src/render/drawing.js';
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, paginate } from '../src/render/paginate.js';
import { packageParts, zipBytes } from './extract-helpers.js';
import { useWorkspace } from './patch-helpers.js';

const ws = useWorkspace();

interface Answer {
  image_paths: string[];
  warnings: string[];
}

async function sheetBook(name: string, body: string): Promise<string> {
  await writeFile(path.join(ws.dir, name), zipBytes(packageParts({ sheets: [{ name: 'Sheet1', body }] })));
  return name;
}

/** Calls the tool and says how long it took. */
async function timed(args: Record<string, unknown>) {
  const began = Date.now();
  const res = await ws.call<Answer>('exstruct_capture_sheet_images', args);
  return { res, ms: Date.now() - began };
}

const pixels = async (file: string) => {
  const png = PNG.sync.read(await readFile(file));
  return { width: png.width, height: png.height };
};

describe('areas too large to draw', () => {
  it('refuses whole-sheet areas at once: values in A1 and XFD1048576, a merge of the whole sheet, range A1:XFD1048576', async () => {
    const corner = await sheetBook(
      'corner.xlsx',
      '<sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row></sheetData>',
    );
    const mergeAll = await sheetBook(
      'merge-all.xlsx',
      '<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>merged</t></is></c></row></sheetData><mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>',
    );
    for (const args of [
      { xlsx_path: corner },
      { xlsx_path: mergeAll },
      { xlsx_path: corner, range: 'A1:XFD1048576' },
    ]) {
      const { res, ms } = await timed(args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(res.text).toMatch(/LIMIT_EXCEEDED/);
      expect(res.text).toMatch(/would draw \d{4,} images; at most 100/);
      expect(ms, JSON.stringify(args)).toBeLessThan(15_000);
    }
  }, 60_000);

  it('draws a whole-sheet merge whose rows and columns are hidden but a few, without expanding it', async () => {
    // Rows hidden by zeroHeight, columns D:XFD hidden: the used area is the whole sheet, one page.
    const file = await sheetBook(
      'merge-hidden.xlsx',
      '<sheetFormatPr defaultRowHeight="15" zeroHeight="1"/><cols><col min="4" max="16384" width="9" hidden="1"/></cols>' +
        '<sheetData><row r="1" ht="15" customHeight="1"><c r="A1" t="inlineStr"><is><t>merged</t></is></c></row>' +
        '<row r="2" ht="15" customHeight="1"/></sheetData><mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>',
    );
    const { res, ms } = await timed({ xlsx_path: file, dpi: 96 });
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.image_paths).toHaveLength(1);
    expect(ms).toBeLessThan(20_000);
  }, 60_000);

  it('counts the pages before drawing: a 10,500-row list without a range is refused at once', async () => {
    let rows = '';
    for (let r = 1; r <= 10_500; r++) rows += `<row r="${r}"><c r="A${r}"><v>${r}</v></c></row>`;
    const file = await sheetBook('list.xlsx', `<sheetData>${rows}</sheetData>`);
    const { res, ms } = await timed({ xlsx_path: file });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/LIMIT_EXCEEDED.*would draw 105 images; at most 100/);
    expect(res.text).toMatch(/range|print area/);
    expect(ms).toBeLessThan(10_000);
  }, 60_000);

  it('counts the pages of every sheet before drawing any', async () => {
    let rows = '';
    for (let r = 1; r <= 6_000; r++) rows += `<row r="${r}"><c r="A${r}"><v>${r}</v></c></row>`;
    const body = `<sheetData>${rows}</sheetData>`;
    const parts = packageParts({
      sheets: [
        { name: 'One', body },
        { name: 'Two', body },
      ],
    });
    await writeFile(path.join(ws.dir, 'two-lists.xlsx'), zipBytes(parts));
    const { res, ms } = await timed({ xlsx_path: 'two-lists.xlsx' });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/LIMIT_EXCEEDED.*would draw 120 images; at most 100/);
    expect(ms).toBeLessThan(10_000);
  }, 60_000);

  it('draws a range under 24 megapixels as one image (A1:BZ20 at 144 dpi)', async () => {
    const file = await sheetBook(
      'wide.xlsx',
      '<sheetData><row r="1"><c r="A1"><v>1</v></c><c r="BZ20"><v>2</v></c></row></sheetData>',
    );
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: file, range: 'A1:BZ20' });
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.image_paths).toHaveLength(1);
    const { width } = await pixels(res.structured.image_paths[0]!);
    expect(width).toBeGreaterThan(78 * 64 * 1.5);
  }, 60_000);

  it('keeps whole-sheet pages within 24 megapixels at 600 dpi', async () => {
    let rows = '';
    for (let r = 1; r <= 60; r++)
      rows += `<row r="${r}"><c r="A${r}"><v>${r}</v></c><c r="H${r}"><v>${r}</v></c></row>`;
    const file = await sheetBook('dpi600.xlsx', `<sheetData>${rows}</sheetData>`);
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: file, dpi: 600 });
    expect(res.isError, res.text).toBe(false);
    for (const image of res.structured.image_paths) {
      const { width, height } = await pixels(image);
      expect(width * height, image).toBeLessThanOrEqual(MAX_IMAGE_PIXELS);
    }
  }, 60_000);
});

describe('paginate', () => {
  const grid = { col: () => 64, row: () => 20 };
  const view = { rowBreaks: [], colBreaks: [] };
  const area = (rows: number, cols: number) => ({
    start: { row: 1, col: 0 },
    end: { row: rows, col: cols - 1 },
  });

  it('cuts whole sheets into pages within the pixel budget at any dpi', () => {
    for (const dpi of [96, 144, 300, 600]) {
      const pages = paginate(grid, area(400, 30), view, false, dpi);
      const scale = dpi / 96;
      for (const p of pages.list()) {
        const width = (p.end.col - p.start.col + 1) * 64 * scale;
        const height = (p.end.row - p.start.row + 1) * 20 * scale;
        expect(width * height, `${dpi} dpi`).toBeLessThanOrEqual(MAX_IMAGE_PIXELS * 0.95);
      }
      expect(pages.count).toBe(pages.list().length);
    }
  });

  it('keeps a range whole unless it passes the budget or the longest side', () => {
    expect(paginate(grid, area(20, 78), view, true, 144).count).toBe(1);
    // 3 × 2,000 rows at 96 dpi: 40,000 px tall, under 24 MP but over the longest side.
    const tall = paginate(grid, area(2000, 3), view, true, 96);
    expect(tall.count).toBe(2);
    for (const p of tall.list())
      expect((p.end.row - p.start.row + 1) * 20).toBeLessThanOrEqual(MAX_IMAGE_SIDE);
    // 30 × 2,000 at 144 dpi: 58 MP, cut into pieces of at most 24 MP.
    for (const p of paginate(grid, area(2000, 30), view, true, 144).list()) {
      const width = (p.end.col - p.start.col + 1) * 64 * 1.5;
      const height = (p.end.row - p.start.row + 1) * 20 * 1.5;
      expect(width * height).toBeLessThanOrEqual(MAX_IMAGE_PIXELS);
    }
  });

  it('counts millions of pages without listing them', () => {
    const began = Date.now();
    expect(paginate(grid, area(1_048_576, 16_384), view, false, 144).count).toBeGreaterThan(1_000_000);
    expect(Date.now() - began).toBeLessThan(2_000);
  });
});

describe('DrawClock', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('stops a call whose images would not be drawn within the budget, at the pace of the first two', async () => {
    const clock = new DrawClock(10, Date.now(), 200);
    clock.next();
    await sleep(30);
    clock.next();
    await sleep(30);
    // Two images in 60 ms: ten take about 300 ms, over the 200 ms budget.
    let caught: unknown;
    try {
      clock.next();
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((caught as Error).message).toMatch(/Drawing 10 images would take about \d+ s \(2 drawn/);
  });

  it('lets a call go on while its images fit the budget', async () => {
    const clock = new DrawClock(3, Date.now(), 5_000);
    for (let i = 0; i < 3; i++) {
      clock.next();
      await sleep(5);
    }
  });
});

describe('objectsNear', () => {
  const at = (fromRow: number, toRow: number) =>
    ({
      anchor: {
        from: { col: 0, colOff: 0, row: fromRow, rowOff: 0 },
        to: { col: 2, colOff: 0, row: toRow, rowOff: 0 },
      },
    }) as DrawnObject;

  it('keeps only objects whose anchor reaches into the page (markers count rows from 0)', () => {
    const page = { start: { row: 101, col: 0 }, end: { row: 200, col: 5 } };
    const above = at(0, 50);
    const crossing = at(90, 110);
    const inside = at(120, 130);
    const below = at(200, 260);
    const loose = { anchor: { pos: { x: 0, y: 0 } } } as DrawnObject;
    expect(objectsNear([above, crossing, inside, below, loose], page)).toEqual([crossing, inside, loose]);
  });
});
