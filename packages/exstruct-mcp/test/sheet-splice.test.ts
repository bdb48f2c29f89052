import { describe, expect, it } from 'vitest';
import { loadSheet, SheetEdit, writeSheet } from '../src/patch/sheet-edit.js';

/**
 * A sheet whose loaded rows change only in place is written from the bytes its loading pass kept,
 * without finding its rows again (spliceSheet): what comes out must be what the row-by-row pass writes.
 */

const FILLER = 'y'.repeat(300);

/** A worksheet of `rows` rows (a prefix, a comment, a row twice, rows without r, a long row). */
function sheetXml(rows: number): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<x:worksheet xmlns:x="urn:main"><x:dimension ref="A1:C9"/>',
    '<x:cols><x:col min="1" max="3" width="9"/></x:cols><x:sheetData>\n',
  ];
  for (let r = 1; r <= rows; r++) {
    if (r === 7) parts.push('<!-- a comment between rows -->\n');
    if (r % 97 === 0)
      parts.push(`<x:row><x:c><x:v>${r}</x:v></x:c></x:row>`); // numbered by position
    else
      parts.push(
        `<x:row r="${r}" spans="1:3"><x:c r="A${r}"><x:v>${r}</x:v></x:c>` +
          `<x:c r="B${r}" t="inlineStr"><x:is><x:t>${r % 500 === 0 ? FILLER.repeat(400) : FILLER}</x:t></x:is></x:c></x:row>`,
      );
    if (r === 40) parts.push(`<x:row r="40"><x:c r="C40"><x:v>again</x:v></x:c></x:row>`);
  }
  parts.push('</x:sheetData><x:mergeCells count="1"><x:mergeCell ref="A1:B1"/></x:mergeCells></x:worksheet>');
  return parts.join('');
}

function cut(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

async function* stream(chunks: Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}

async function written(source: AsyncIterable<Buffer> | Iterable<Buffer>, edit: SheetEdit): Promise<string> {
  const out: Buffer[] = [];
  for await (const piece of writeSheet(edit, source)) out.push(piece);
  return Buffer.concat(out).toString('utf8');
}

/** Loads `rows` of the sheet cut in `size` chunks, writes `text` into column C of each. */
async function edited(xml: string, size: number, rows: number[]): Promise<SheetEdit> {
  const chunks = cut(Buffer.from(xml, 'utf8'), size);
  const edit = new SheetEdit('Data', false);
  await loadSheet(edit, stream(chunks), new Set(rows), () => undefined);
  edit.inflated = chunks;
  for (const row of rows) {
    const cell = edit.cell(row, 2);
    cell.raw = undefined;
    cell.rawInner = undefined;
    cell.value = `new ${row}`;
  }
  return edit;
}

describe('writing an edited sheet from the bytes its loading pass kept', () => {
  it('writes what the row-by-row pass writes, rows cut across chunks, repeated or numbered by position', async () => {
    const xml = sheetXml(2_000);
    expect(xml.length).toBeGreaterThan(1_000_000);
    for (const size of [1_000, 4_099, 65_536, 262_144, xml.length]) {
      for (const rows of [[1], [7, 40], [97, 500, 1_999], [2_000], [3, 4, 5]]) {
        const edit = await edited(xml, size, rows);
        const spliced = await written(edit.inflated!, edit);
        // A copy of the chunks is another source: the row-by-row pass.
        const scanned = await written([...edit.inflated!], edit);
        expect(spliced).toBe(scanned);
        for (const row of rows) expect(spliced).toContain(`new ${row}`);
        expect(spliced).toContain('<!-- a comment between rows -->');
        expect(spliced.endsWith('</x:mergeCells></x:worksheet>')).toBe(true);
      }
    }
  });

  it('gives a row loaded twice the same new text at both places', async () => {
    const edit = await edited(sheetXml(100), 512, [40]);
    const text = await written(edit.inflated!, edit);
    expect(text.split('new 40').length - 1).toBe(2);
    expect(text).toBe(await written([...edit.inflated!], edit));
  });
});
