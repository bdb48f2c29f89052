// A merged cell reaching far past the drawn cells (A2:A301 drawn as A1:C30) once made resvg panic
// ("unreachable") on its clipped label, hidden behind "recursive use of an object" from free(): the
// label is now written only where it shows, where Excel and LibreOffice put it, and a failure of resvg
// is a coded error.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { TextMeasurer } from '../src/render/fonts/text-measure.js';
import { rasterize } from '../src/render/rasterize.js';
import { packageParts, zipBytes } from './extract-helpers.js';
import { useWorkspace } from './patch-helpers.js';
import { ink } from './png-ink.js';

const ws = useWorkspace();

interface Answer {
  image_paths: string[];
  warnings: string[];
}

const text = (ref: string, value: string) => `<c r="${ref}" t="inlineStr"><is><t>${value}</t></is></c>`;

/** A sheet with "Dept" in A1 and a label in A2 merged over A2:A{last} (bottom-aligned, Excel's default). */
async function labelBook(name: string, merge: string): Promise<string> {
  const body =
    `<sheetData><row r="1">${text('A1', 'Dept')}${text('B1', 'Item')}</row><row r="2">${text('A2', 'Sales')}</row>` +
    `<row r="3">${text('B3', 'item 1')}</row></sheetData><mergeCells count="1"><mergeCell ref="${merge}"/></mergeCells>`;
  const file = path.join(ws.dir, name);
  await writeFile(file, zipBytes(packageParts({ sheets: [{ name: 'Sheet1', body }] })));
  return name;
}

describe('merged cells reaching past the drawn cells', () => {
  it('draws a range, the whole sheet and a corner of a tall merge without failing', async () => {
    const bottom = await labelBook('label-bottom.xlsx', 'A2:A301');
    const tall = await labelBook('tall.xlsx', 'A2:A100');
    for (const args of [
      { xlsx_path: bottom, range: 'A1:C30' },
      { xlsx_path: bottom },
      { xlsx_path: tall, range: 'A1:C3' },
    ]) {
      const res = await ws.call<Answer>('exstruct_capture_sheet_images', { ...args, dpi: 96 });
      expect(res.isError, `${JSON.stringify(args)}: ${res.text}`).toBe(false);
      expect(res.structured.image_paths.length).toBeGreaterThan(0);
    }
  });

  it('puts the label where Excel and LibreOffice do: at the foot of the whole merged range, once', async () => {
    const file = await labelBook('label-place.xlsx', 'A2:A301');
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: file,
      range: 'A1:C310',
      dpi: 96,
      out_dir: 'place',
    });
    expect(res.isError, res.text).toBe(false);
    const png = PNG.sync.read(await readFile(res.structured.image_paths[0]!));
    // Rows are 20 px under a 20 px heading row; column A starts after the row-number gutter.
    const gutter = png.width - 3 * 64 - 1;
    const rowTop = (r: number) => 20 + (r - 1) * 20;
    expect(ink(png, gutter + 2, rowTop(301) + 2, gutter + 60, rowTop(302) - 1, 160)).toBeGreaterThan(0.02);
    expect(ink(png, gutter + 2, rowTop(3), gutter + 62, rowTop(300), 160)).toBe(0);
  });

  it('draws a corner of a tall shape whose text lies far below it', async () => {
    const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
    const marker = (tag: string, col: number, row: number) =>
      `<xdr:${tag}><xdr:col>${col}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${row}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:${tag}>`;
    const drawing =
      `<?xml version="1.0" encoding="UTF-8"?><xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" ${A}>` +
      `<xdr:twoCellAnchor>${marker('from', 0, 0)}${marker('to', 3, 300)}<xdr:sp><xdr:nvSpPr><xdr:cNvPr id="2" name="Tall"/><xdr:cNvSpPr/></xdr:nvSpPr>` +
      '<xdr:spPr><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></xdr:spPr><xdr:txBody><a:bodyPr/><a:p><a:r><a:t>Middle</a:t></a:r></a:p></xdr:txBody></xdr:sp><xdr:clientData/></xdr:twoCellAnchor></xdr:wsDr>';
    const parts = packageParts({
      sheets: [
        {
          name: 'Sheet1',
          body: `<sheetData><row r="1">${text('A1', 'x')}</row></sheetData><drawing r:id="rD"/>`,
          rels: [['rD', 'drawing', '../drawings/drawing1.xml']],
        },
      ],
      parts: { 'xl/drawings/drawing1.xml': drawing },
    });
    await writeFile(path.join(ws.dir, 'tall-shape.xlsx'), zipBytes(parts));
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'tall-shape.xlsx',
      range: 'A1:C3',
      dpi: 96,
    });
    expect(res.isError, res.text).toBe(false);
  });

  it('answers a failure of resvg with RENDER_FAILED, not the error of freeing its object', async () => {
    const measurer = new TextMeasurer();
    measurer.width('Title', { bold: false, italic: false, size: 11 });
    // resvg 2.6.2 panics on clipped text this far outside its canvas.
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100"><defs><clipPath id="c1"><rect x="0" y="0" width="100" height="60"/></clipPath></defs>' +
      '<g clip-path="url(#c1)"><text x="3" y="1994" font-family="ExStruct Sans" font-size="14.67">Title</text></g></svg>';
    const error = await rasterize(svg, 144, measurer.facesInUse()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RENDER_FAILED' });
    expect((error as Error).message).toMatch(/resvg: unreachable/);
    // The module still draws afterwards.
    const ok = await rasterize(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>',
      96,
      [],
    );
    expect(ok.width).toBe(10);
  });
});
