import { describe, expect, it } from 'vitest';
import { cutAfterLastRow, findSheetDataStart, indexOfDataClose } from '../src/ooxml/sheet-row-stream.js';

/** A seeded xorshift32 generator: `random(n)` is a whole number below n. */
function xorshift(seed: number): (n: number) => number {
  return (n) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
}

// Runs of rows are cut from the stream after a `</row>`; one inside a comment or a CDATA section must
// not be taken for the end of a row, or the run would end inside that comment.
describe('cutAfterLastRow', () => {
  const close = Buffer.from('</row>');
  const cut = (xml: string) => xml.slice(0, cutAfterLastRow(Buffer.from(xml), close));

  it('cuts after the last row followed by another tag', () => {
    expect(cut('<row r="1"></row><row r="2"></row>\n<row r="3">')).toBe('<row r="1"></row><row r="2"></row>');
  });

  it('skips a </row> inside a comment or CDATA, and one whose follower has not arrived', () => {
    expect(cut('<row r="1"></row><row r="2"><!-- </row> --><c')).toBe('<row r="1"></row>');
    expect(cut('<row r="1"></row><row r="2"><c><is><t><![CDATA[</row>]]>')).toBe('<row r="1"></row>');
    expect(cut('<row r="1"></row><row r="2"></row>')).toBe('<row r="1"></row>');
  });

  it('finds no place when no row has ended', () => {
    expect(cutAfterLastRow(Buffer.from('<row r="1"><c r="A1">'), close)).toBe(0);
  });
});

// The sheetData start tag is found in the bytes (issue 26 §1: a latin1 copy of every small sheet was a
// sixth of what extraction allocated); it must find what the regular expression over the latin1 text
// found, on text made of the pieces that matter (prefixes, name characters, `<`, `:`, terminators).
describe('findSheetDataStart', () => {
  const byRegex = (text: string) => {
    const m = /<([A-Za-z_][\w.-]*:)?sheetData[\s/>]/g.exec(text);
    return m ? { at: m.index, prefix: m[1] ?? '' } : undefined;
  };
  const pieces = [
    '<',
    ':',
    'x',
    '_',
    '1',
    '-',
    '.',
    'sheetData',
    ' ',
    '\t',
    '\u00a0',
    '\u0085',
    '/',
    '>',
    '"',
    'é',
  ];

  it('agrees with the regular expression on 20,000 generated texts', () => {
    const random = xorshift(26);
    let found = 0;
    let prefixed = 0;
    for (let run = 0; run < 20_000; run++) {
      // Random pieces around a near-tag: `<`, a few name characters or a colon, the name.
      const some = (most: number, from: string[]) => {
        let text = '';
        for (let k = random(most + 1); k > 0; k--) text += from[random(from.length)];
        return text;
      };
      const text =
        some(3, pieces) +
        (random(4) > 0 ? '<' : '') +
        some(3, ['x', '_', '1', '-', '.', ':', 'é', '<']) +
        (random(2) ? ':' : '') +
        'sheetData' +
        some(3, pieces);
      const bytes = Buffer.from(text, 'latin1');
      const expected = byRegex(bytes.toString('latin1'));
      expect(findSheetDataStart(bytes), JSON.stringify(text)).toEqual(expected);
      if (expected) found++;
      if (expected?.prefix) prefixed++;
    }
    // The generator reaches every answer often.
    expect(found).toBeGreaterThan(500);
    expect(prefixed).toBeGreaterThan(100);
    expect(found).toBeLessThan(18_000);
  });

  it('finds prefixed and plain tags in worksheet heads', () => {
    const head = '<x:worksheet xmlns:x="m"><x:sheetPr/><x:sheetData>';
    expect(findSheetDataStart(Buffer.from(head))).toEqual({ at: head.indexOf('<x:sheetData'), prefix: 'x:' });
    expect(findSheetDataStart(Buffer.from('<worksheet><sheetDataX/><sheetData/>'))).toEqual({
      at: 24,
      prefix: '',
    });
    expect(findSheetDataStart(Buffer.from('<worksheet><sheetData'))).toBeUndefined();
  });
});

// The end of sheetData is searched for by its tail `heetDat` (issue 26 §1: the whole `</sheetData`, whose
// first bytes are in every tag, took a tenth of a big extraction); it must find what indexOf finds.
describe('indexOfDataClose', () => {
  const pieces = [
    '<',
    '/',
    'x:',
    's',
    'heetDat',
    'heetData',
    'a',
    '</sheetData',
    '</x:sheetData',
    '</row>',
    'e',
  ];

  it('agrees with indexOf on 20,000 generated texts, with and without a prefix', () => {
    const random = xorshift(2611);
    let found = 0;
    for (let run = 0; run < 20_000; run++) {
      let text = '';
      for (let k = random(12); k > 0; k--) text += pieces[random(pieces.length)];
      const bytes = Buffer.from(text, 'latin1');
      for (const close of ['</sheetData', '</x:sheetData']) {
        const dataClose = Buffer.from(close);
        const expected = bytes.indexOf(dataClose);
        expect(indexOfDataClose(bytes, dataClose), JSON.stringify([text, close])).toBe(expected);
        if (expected >= 0) found++;
      }
    }
    expect(found).toBeGreaterThan(2_000);
  });

  it("finds the end at a piece's edges, and not one cut by them", () => {
    const close = Buffer.from('</sheetData');
    expect(indexOfDataClose(Buffer.from('</sheetData>'), close)).toBe(0);
    expect(indexOfDataClose(Buffer.from('<row/></sheetData'), close)).toBe(6);
    expect(indexOfDataClose(Buffer.from('heetData>'), close)).toBe(-1);
    expect(indexOfDataClose(Buffer.from('<row/></sheetDat'), close)).toBe(-1);
  });
});
