// The surroundings of sheets (what lies around sheetData) are parsed once per distinct head and tail
// of a workbook and replayed for the sheets that repeat them (issue 26 §1). Replayed or parsed, the
// handlers must see the same events, and a broken part must fail as it would alone.
import { describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { SurroundParser, type SurroundRecord } from '../src/ooxml/surround-parser.js';
import { row, tempDir } from './extract-helpers.js';

const HEAD =
  '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="r"><cols><col min="1" max="2" width="9"/></cols><sheetData>';

/** Parses `pieces` with the record of the last sheet; returns the events seen and the new record. */
function parse(pieces: string[], last?: SurroundRecord) {
  const seen: string[] = [];
  const parser = new SurroundParser(
    'sheet.xml',
    {
      open: (name, attrs, tag) => seen.push(`<${name} ${JSON.stringify(attrs)} ${tag.ns}>`),
      close: (name) => seen.push(`</${name}>`),
      text: (text) => seen.push(JSON.stringify(text)),
    },
    last,
  );
  for (const piece of pieces) parser.feed(Buffer.from(piece));
  parser.end();
  return { seen, record: parser.record() };
}

describe('SurroundParser', () => {
  const sheets = [
    [HEAD, '</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells></worksheet>'],
    [HEAD, '</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells></worksheet>'],
    [HEAD, '</sheetData><hyperlinks><hyperlink ref="C3" r:id="rId1"/></hyperlinks></worksheet>'],
    [HEAD.replace('width="9"', 'width="20"'), '</sheetData></worksheet>'],
    [HEAD, ' </sheetData> text? <pageMargins left="0.7"/></worksheet>'],
    [HEAD.replace('<sheetData>', '<sheetData>'), '</sheetData></worksheet>', ''],
  ];

  it('hands on the events a fresh parse raises, sheet after sheet, replayed where the bytes repeat', () => {
    let last: SurroundRecord | undefined;
    let replayed = 0;
    for (const pieces of sheets) {
      const alone = parse(pieces).seen;
      const { seen, record } = parse(pieces, last);
      expect(seen).toEqual(alone);
      if (record) last = record;
      else replayed++;
    }
    expect(replayed).toBe(1); // the second sheet repeats the first whole
  });

  it('fails on a broken tail after a replayed head, as parsing it alone does', () => {
    const { record } = parse(sheets[0]!);
    const broken = [HEAD, '</sheetData><mergeCells><mergeCell ref="A1:B1"></mergeCells></worksheet>'];
    expect(() => parse(broken)).toThrow(/mergeCell/);
    expect(() => parse(broken, record)).toThrow(/mergeCell/);
    // A part that ends early: the end is not replayed.
    expect(() => parse([HEAD], record)).toThrow(/never closed/);
  });
});

describe('extraction of sheets that share their surroundings', () => {
  it('reads each sheet its own merges, links and columns', async () => {
    const dir = await tempDir();
    try {
      const body = (n: number, tail: string) =>
        `<cols><col min="1" max="1" width="${n === 3 ? 30 : 9}"/></cols><sheetData>${row(1, `<c r="A1"><v>${n}</v></c><c r="B1"><v>${n * 10}</v></c>`)}</sheetData>${tail}`;
      const merge = '<mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>';
      const link = '<hyperlinks><hyperlink ref="A1" location="\'S2\'!A1"/></hyperlinks>';
      const spec = {
        sheets: [
          { name: 'S1', body: body(1, merge) },
          { name: 'S2', body: body(2, merge) },
          { name: 'S3', body: body(3, '') },
          { name: 'S4', body: body(4, link) },
          { name: 'S5', body: body(5, link) },
        ],
      };
      const file = await dir.package('shared.xlsx', spec);
      const together = (await extractWorkbook(file, { mode: 'verbose' })).workbook;
      for (const { name } of spec.sheets) {
        const alone = (await extractWorkbook(file, { mode: 'verbose', sheets: [name] })).workbook;
        expect(together.sheets[name]).toEqual(alone.sheets[name]);
      }
      expect(together.sheets.S2!.merged_cells?.items).toHaveLength(1);
      expect(together.sheets.S3!.merged_cells).toBeUndefined();
      expect(together.sheets.S5!.rows?.[0]?.links).toBeDefined();
    } finally {
      await dir.remove();
    }
  });
});
