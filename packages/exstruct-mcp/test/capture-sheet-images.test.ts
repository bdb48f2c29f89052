// Issue 27 §1: exstruct_capture_sheet_images through a real MCP client — files, inline image, naming,
// never replacing somebody else's file, paths through the policy, fonts, and pixels where text should be.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from './patch-helpers.js';
import { ink } from './png-ink.js';

const ws = useWorkspace();

interface Answer {
  out_dir: string;
  image_paths: string[];
  warnings: string[];
}

async function book(name: string, fill: (sheet: ExcelJS.Worksheet) => void): Promise<string> {
  const wb = new ExcelJS.Workbook();
  fill(wb.addWorksheet('Data'));
  wb.addWorksheet('Other').getCell('A1').value = 'x';
  const file = path.join(ws.dir, name);
  await wb.xlsx.writeFile(file);
  return file;
}

describe('exstruct_capture_sheet_images', () => {
  it('draws a range to NN_sheet_range.png in {name}_images, and returns a small single image inline', async () => {
    await ws.fixture('ja_general_form__ja_form.xlsx', 'form.xlsx');
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'form.xlsx',
      range: "'Sheet1'!A1:K12",
      dpi: 96,
    });
    expect(res.isError, res.text).toBe(false);
    const answer = res.structured;
    expect(answer.out_dir).toBe(path.join(ws.dir, 'form_images'));
    expect(answer.image_paths).toEqual([path.join(ws.dir, 'form_images', '01_Sheet1_A1-K12.png')]);
    const png = PNG.sync.read(await readFile(answer.image_paths[0]!));
    const inline = (res.raw.content as { type: string; data?: string; mimeType?: string }[]).find(
      (c) => c.type === 'image',
    );
    expect(inline?.mimeType).toBe('image/png');
    expect(Buffer.from(inline!.data!, 'base64')).toEqual(await readFile(answer.image_paths[0]!));
    // 12 rows of the form, plus the column headings: a few hundred pixels tall, as wide as A:K.
    expect(png.height).toBeGreaterThan(200);
    expect(png.width).toBeGreaterThan(500);
  });

  it("keeps the whole sheet's image when a range of it is drawn after, and says why a big image is not inline", async () => {
    await ws.fixture('ja_general_form__ja_form.xlsx', 'form.xlsx');
    const whole = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: 'form.xlsx' });
    expect(whole.isError, whole.text).toBe(false);
    expect(whole.structured.image_paths).toEqual([path.join(ws.dir, 'form_images', '01_Sheet1.png')]);
    // At 144 dpi the form is over the inline limit: the answer says so and at which dpi it would not be.
    expect(whole.raw.content.some((c) => c.type === 'image')).toBe(false);
    const note = whole.structured.warnings.find((w) => w.includes('only in image_paths'));
    expect(note, whole.text).toMatch(/up to 1\.6 MP and 750 KB\. Pass dpi \d+ or less/);
    const dpi = Number(/Pass dpi (\d+)/.exec(note!)![1]);
    const smaller = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: 'form.xlsx', dpi });
    expect(
      smaller.raw.content.some((c) => c.type === 'image'),
      smaller.text,
    ).toBe(true);
    expect(smaller.structured.warnings.join(' ')).not.toContain('only in image_paths');

    const part = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'form.xlsx',
      range: 'A1:C3',
    });
    expect(part.structured.image_paths).toEqual([path.join(ws.dir, 'form_images', '01_Sheet1_A1-C3.png')]);
    expect(
      PNG.sync.read(await readFile(path.join(ws.dir, 'form_images', '01_Sheet1.png'))).width,
    ).toBeGreaterThan(PNG.sync.read(await readFile(part.structured.image_paths[0]!)).width);
    // Drawing the same range again replaces its own image.
    const again = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'form.xlsx',
      range: 'A1:C3',
    });
    expect(again.structured.image_paths).toEqual(part.structured.image_paths);
  });

  it('replaces its own earlier image, keeps a file it did not write, and refuses paths outside the roots', async () => {
    await ws.fixture('basic__sample.xlsx', 'basic.xlsx');
    const first = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'basic.xlsx',
      dpi: 72,
    });
    expect(first.isError, first.text).toBe(false);
    const again = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'basic.xlsx',
      dpi: 72,
    });
    expect(again.structured.image_paths).toEqual(first.structured.image_paths);
    expect(again.structured.warnings.join(' ')).not.toMatch(/is not an image of/);

    const mine = first.structured.image_paths[0]!;
    await writeFile(mine, 'a file the user made');
    const third = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'basic.xlsx',
      dpi: 72,
    });
    expect(await readFile(mine, 'utf8')).toBe('a file the user made');
    expect(third.structured.image_paths[0]).toBe(mine.replace(/\.png$/, '_1.png'));
    expect(third.structured.warnings.join(' ')).toMatch(
      /exists and is not an image of basic\.xlsx, so it was kept/,
    );

    const outside = await ws.call('exstruct_capture_sheet_images', {
      xlsx_path: 'basic.xlsx',
      out_dir: '/tmp',
    });
    expect(outside.isError).toBe(true);
    expect(outside.text).toMatch(/PATH_OUTSIDE_ROOT/);
  });

  it('says what is wrong with a sheet, a range or a dpi', async () => {
    await ws.fixture('basic__sample.xlsx', 'bad.xlsx');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ sheet: 'Nope' }, /SHEET_NOT_FOUND/],
      [{ sheet: 'Sheet1', range: 'A1:ZZZZ9' }, /INVALID_ARGUMENT/],
      [{ sheet: 'Sheet1', range: "'Other'!A1:B2" }, /INVALID_ARGUMENT.*names sheet/],
      [{ dpi: 5 }, /INVALID_ARGUMENT/],
    ];
    for (const [args, expected] of cases) {
      const res = await ws.call('exstruct_capture_sheet_images', { xlsx_path: 'bad.xlsx', ...args });
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(res.text).toMatch(expected);
    }
  });

  it('draws values where their cells are: formats, merges, Japanese text; a character no font has is a red ? and a warning', async () => {
    const file = await book('values.xlsx', (sheet) => {
      sheet.getColumn(1).width = 20;
      sheet.getColumn(2).width = 20;
      sheet.getCell('A1').value = '日本語の見出し';
      sheet.getCell('B2').value = 0.256;
      sheet.getCell('B2').numFmt = '0.0%';
      sheet.getCell('A3').value = 'merged';
      sheet.mergeCells('A3:B4');
      sheet.getCell('A6').value = '𠮷野家';
      sheet.getCell('A6').fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFFF00' } };
    });
    const previous = process.env.EXSTRUCT_SYSTEM_FONTS;
    process.env.EXSTRUCT_SYSTEM_FONTS = '0'; // jobs run on this thread in tests: no system font may help
    let res;
    try {
      res = await ws.call<Answer>('exstruct_capture_sheet_images', {
        xlsx_path: path.basename(file),
        sheet: 'Data',
        range: 'A1:C6',
        dpi: 96,
        out_dir: 'values_out',
      });
    } finally {
      if (previous === undefined) delete process.env.EXSTRUCT_SYSTEM_FONTS;
      else process.env.EXSTRUCT_SYSTEM_FONTS = previous;
    }
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.warnings.join(' ')).toMatch(/U\+20BB7/);
    const png = PNG.sync.read(await readFile(res.structured.image_paths[0]!));
    // Headings take the first 20 px row and a gutter; columns A, B are 140 px wide (width 20 with
    // Calibri's 7 px digits, as Excel shows it), C the default 64 px.
    const gutter = png.width - 140 - 140 - 64 - 1;
    expect(gutter).toBeGreaterThan(10);
    expect(gutter).toBeLessThan(40);
    const col = (c: number) => gutter + [0, 140, 280, 344][c]!;
    const row = (r: number) => 20 + (r - 1) * 20;
    expect(ink(png, col(0) + 2, row(1) + 2, col(1) - 2, row(2) - 2)).toBeGreaterThan(0.04); // 日本語
    expect(ink(png, col(1) + 2, row(2) + 2, col(2) - 2, row(3) - 2)).toBeGreaterThan(0.02); // 25.6%
    expect(ink(png, col(1) + 2, row(1) + 3, col(2) - 2, row(2) - 2)).toBe(0); // B1 is empty
    // The merged A3:B4 has no gridline between A and B.
    expect(ink(png, col(1) - 1, row(3) + 2, col(1) + 1, row(4) - 2)).toBeLessThan(0.2);
    // Yellow fill behind A6 and a red ? for 𠮷.
    const at = (x: number, y: number) => [
      ...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3),
    ];
    expect(at(col(1) - 3, row(6) + 3)).toEqual([255, 255, 0]);
    let red = 0;
    for (let y = row(6); y < row(7); y++)
      for (let x = col(0); x < col(0) + 20; x++) {
        const [r, g, b] = at(x, y);
        if (r! > 150 && g! < 80 && b! < 80) red++;
      }
    expect(red).toBeGreaterThan(5);
  });
});
