// The page parses a big document a piece at a time (ui/src/chunks.ts): each piece must start at the
// line the whole document has there, counted as the server and markdown-it count lines (CRLF, LF and a
// lone CR each end one), or a comment the person makes is saved on another line.
import { describe, expect, it } from 'vitest';
import { chunksOf } from '../ui/src/chunks.js';

const LINE_END = /\r\n|\n|\r/;

/** Each piece's lines are the document's lines from its offset on, and the pieces cover them all. */
function expectPiecesAligned(text: string): void {
  const lines = text.split(LINE_END);
  const pieces = chunksOf(text);
  expect(pieces.length).toBeGreaterThan(1);
  let next = 0;
  for (const piece of pieces) {
    expect(piece.offset).toBe(next);
    const own = piece.text.split(LINE_END);
    if (piece !== pieces.at(-1)) own.pop(); // a piece ends with its last line's end
    expect(own).toEqual(lines.slice(piece.offset, piece.offset + own.length));
    next += own.length;
  }
  expect(next).toBe(lines.length);
}

describe('a document cut into pieces', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR only', '\r'],
  ])('keeps the whole document’s line numbers (%s)', (_name, eol) => {
    expectPiecesAligned(Array.from({ length: 120 }, (_, i) => `Paragraph ${i}${eol}${eol}`).join(''));
  });

  it('keeps them with lone CRs before a later piece and LF after (comments landed 40 lines early)', () => {
    expectPiecesAligned(
      Array.from({ length: 60 }, (_, i) => `Para ${i}\r\r`).join('') +
        Array.from({ length: 60 }, (_, i) => `Tail ${i}\n\n`).join(''),
    );
  });
});
