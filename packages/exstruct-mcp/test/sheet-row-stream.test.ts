import { describe, expect, it } from 'vitest';
import { cutAfterLastRow } from '../src/ooxml/sheet-row-stream.js';

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
