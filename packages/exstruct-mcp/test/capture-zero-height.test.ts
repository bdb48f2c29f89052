// <sheetFormatPr zeroHeight="1"> (what Excel writes when a user hides every row below a form) hides
// every row that has no height of its own and does not say hidden="0"; they were drawn.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { packageParts, zipBytes } from './extract-helpers.js';
import { useWorkspace } from './patch-helpers.js';

const ws = useWorkspace();

interface Answer {
  image_paths: string[];
}

describe('rows hidden by zeroHeight', () => {
  it('draws only the rows with a height of their own or hidden="0"', async () => {
    let rows = '';
    for (let r = 1; r <= 5; r++)
      rows += `<row r="${r}" ht="15" customHeight="1"><c r="A${r}"><v>${r}</v></c></row>`;
    rows += '<row r="6"><c r="A6"><v>6</v></c></row>'; // no height: hidden
    rows += '<row r="8" hidden="0"><c r="A8"><v>8</v></c></row>'; // shown at the default height
    rows += '<row r="9" ht="30" customHeight="1" hidden="1"><c r="A9"><v>9</v></c></row>';
    const body = `<sheetFormatPr defaultRowHeight="15" zeroHeight="1"/><sheetData>${rows}</sheetData>`;
    await writeFile(
      path.join(ws.dir, 'form.xlsx'),
      zipBytes(packageParts({ sheets: [{ name: 'Form', body }] })),
    );
    const res = await ws.call<Answer>('exstruct_capture_sheet_images', {
      xlsx_path: 'form.xlsx',
      range: 'A1:C12',
      dpi: 96,
    });
    expect(res.isError, res.text).toBe(false);
    const png = PNG.sync.read(await readFile(res.structured.image_paths[0]!));
    // A 20 px heading row, rows 1–5 and 8 at 20 px each, the closing gridline.
    expect(png.height).toBe(20 + 6 * 20 + 1);
  });
});
