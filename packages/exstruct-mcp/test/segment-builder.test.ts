// Small sheets' columns are built in spare arrays reused from sheet to sheet (issue 26 §1): a finished
// segment must never share memory with what the next sheet writes — unless it was lent the spare columns
// (rows let go once written), and then only once it has been given back.
import { describe, expect, it } from 'vitest';
import { Kind, releaseRows, SegmentBuilder, type RowSegment } from '../src/extract/row-store.js';

/** Cells of `rows` rows × `cols` columns, numbers from `seed`. */
function fill(builder: SegmentBuilder, rows: number, cols: number, seed: number): void {
  for (let r = 1; r <= rows; r++)
    for (let c = 0; c < cols; c++) builder.add(r, c, Kind.Number, seed + r * 100 + c);
}

function cells(segment: RowSegment): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let row = 0; row < segment.rowNumbers.length; row++)
    for (let i = segment.rowStart[row]!; i < segment.rowStart[row + 1]!; i++)
      out.push([segment.rowNumbers[row]!, segment.cols[i]!, segment.nums[i]!]);
  return out;
}

function expected(rows: number, cols: number, seed: number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let r = 1; r <= rows; r++) for (let c = 0; c < cols; c++) out.push([r, c, seed + r * 100 + c]);
  return out;
}

describe('SegmentBuilder', () => {
  it('keeps every finished small segment intact while the next ones are built', () => {
    const done: Array<[RowSegment, number, number, number]> = [];
    // Sizes below, at and far above the first guess, so the spare columns grow and are handed on.
    for (const [rows, cols, guess] of [
      [40, 10, 365],
      [3, 2, 365],
      [200, 30, 300],
      [1, 1, 256],
      [90, 12, 1000],
    ] as const) {
      const builder = new SegmentBuilder(guess);
      fill(builder, rows, cols, done.length * 1e6);
      const segment = builder.finish();
      expect(builder.finish()).toBe(segment); // finishing again changes nothing
      done.push([segment, rows, cols, done.length * 1e6]);
    }
    for (const [segment, rows, cols, seed] of done) {
      expect(cells(segment)).toEqual(expected(rows, cols, seed));
      expect(segment.kinds.length).toBe(rows * cols);
      expect(segment.rowStart.length).toBe(rows + 1);
    }
  });

  it('builds two small segments at once without mixing them', () => {
    const a = new SegmentBuilder(400);
    const b = new SegmentBuilder(400);
    for (let r = 1; r <= 30; r++) {
      a.add(r, 0, Kind.Number, r);
      b.add(r, 1, Kind.Number, -r);
    }
    const first = a.finish();
    const c = new SegmentBuilder(400);
    c.add(1, 5, Kind.True, 0);
    const second = b.finish();
    c.finish();
    expect(cells(first)).toEqual(Array.from({ length: 30 }, (_, i) => [i + 1, 0, i + 1]));
    expect(cells(second)).toEqual(Array.from({ length: 30 }, (_, i) => [i + 1, 1, -(i + 1)]));
  });

  it('lends the spare columns to a segment until it is released, then fills them again', () => {
    const a = new SegmentBuilder(400);
    fill(a, 40, 10, 0);
    const lent = a.finish({ lend: true });
    // Built while the columns are lent: other memory, so the lent segment stays intact.
    const b = new SegmentBuilder(400);
    fill(b, 40, 10, 1e6);
    const other = b.finish({ lend: true });
    expect(cells(lent)).toEqual(expected(40, 10, 0));
    expect(cells(other)).toEqual(expected(40, 10, 1e6));
    expect(lent.nums.buffer).not.toBe(other.nums.buffer);
    // Given back: the next small sheet is read in the same memory (no copy was made of it).
    releaseRows([lent]);
    const c = new SegmentBuilder(400);
    fill(c, 40, 10, 2e6);
    const next = c.finish();
    expect(cells(next)).toEqual(expected(40, 10, 2e6));
    expect(cells(lent)).toEqual(expected(40, 10, 2e6));
    releaseRows([other]);
  });
});
