// A print area is drawn as it is defined (blank cells included, as Excel prints them); whole columns
// or rows stop at the used range; a print area holding nothing of the sheet is skipped with a warning
// (Excel has nothing to print, LibreOffice leaves empty pages out) instead of a blank 30 × 32 image.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { packageParts, zipBytes } from './extract-helpers.js';
import { useWorkspace } from './patch-helpers.js';

const ws = useWorkspace();

interface Answer {
  image_paths: string[];
  warnings: string[];
}

async function bookWithPrintArea(name: string, area: string): Promise<string> {
  const body =
    '<sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row><row r="3"><c r="B3"><v>3</v></c></row></sheetData>';
  const definedNames = `<definedName name="_xlnm.Print_Area" localSheetId="0">Sheet1!${area}</definedName>`;
  await writeFile(
    path.join(ws.dir, name),
    zipBytes(packageParts({ sheets: [{ name: 'Sheet1', body }], definedNames })),
  );
  return name;
}

const size = async (file: string) => {
  const png = PNG.sync.read(await readFile(file));
  return { width: png.width, height: png.height };
};

describe('print areas', () => {
  it('skips a print area outside the used range, with a warning', async () => {
    const file = await bookWithPrintArea('beyond.xlsx', '$D$10:$F$20');
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: file, dpi: 96 });
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.image_paths).toEqual([]);
    expect(res.structured.warnings.join(' ')).toMatch(/print area Sheet1!D10:F20 holds nothing to draw/);
  });

  it('draws a print area as defined, and whole columns down to the used range', async () => {
    const defined = await bookWithPrintArea('defined.xlsx', '$A$1:$D$5');
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: defined, dpi: 96 });
    expect(res.isError, res.text).toBe(false);
    // Four 64 px columns after the gutter, five 20 px rows under the heading row.
    const drawn = await size(res.structured.image_paths[0]!);
    expect(drawn.height).toBe(20 + 5 * 20 + 1);
    expect(drawn.width).toBeGreaterThan(4 * 64);
    expect(drawn.width).toBeLessThan(4 * 64 + 40);
    const columns = await bookWithPrintArea('columns.xlsx', '$A:$C');
    const res2 = await ws.call<Answer>('exstruct_capture_sheet_images', { xlsx_path: columns, dpi: 96 });
    expect(res2.isError, res2.text).toBe(false);
    expect((await size(res2.structured.image_paths[0]!)).height).toBe(20 + 3 * 20 + 1);
  });
});
