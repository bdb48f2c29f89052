// Table detection on a sheet without borders or Excel tables decides a block whose box holds no other
// block's cell from its size and first rows (table-candidates.ts, looksLikeTableAlone) instead of a
// visit of every cell: on generated sheets it must give exactly what the visit of every cell gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Kind, RowStore, SegmentBuilder, WorkbookValues } from '../src/extract/row-store.js';
import {
  blocksAlone,
  detectTableCandidates,
  runsOfCells,
  type CellSource,
  connectedBlocks,
  type RunStream,
  type RunVisit,
} from '../src/extract/table-candidates.js';

/** A sheet as a CellSource: cells in row-major order, each a number or text. */
function sheet(cells: Array<{ r: number; c: number; number: boolean }>): CellSource & { visits: number } {
  const sorted = [...new Map(cells.map((cell) => [`${cell.r}:${cell.c}`, cell])).values()].sort(
    (a, b) => a.r - b.r || a.c - b.c,
  );
  const source = {
    visits: 0,
    forEachIn(
      r1: number,
      c1: number,
      r2: number,
      c2: number,
      visit: (r: number, c: number, key: number, numberLike: boolean) => void,
      withNumberLike = false,
    ) {
      sorted.forEach((cell, key) => {
        if (cell.r < r1 || cell.r > r2 || cell.c < c1 || cell.c > c2) return;
        source.visits++;
        visit(cell.r, cell.c, key, withNumberLike && cell.number);
      });
    },
    forEachRunIn(r1: number, c1: number, r2: number, c2: number, visit: RunVisit) {
      runsOfCells((cell) => source.forEachIn(r1, c1, r2, c2, (r, c) => cell(r, c)))(visit);
    },
  };
  return source;
}

const noBorders: RunStream = () => undefined;

/** Every run a RunStream gives, row by row, as [row, first column, last column]. */
function runsOf(runs: RunStream): number[][] {
  const all: number[][] = [];
  runs((r, c1, c2, height) => {
    for (let k = 0; k < height; k++) all.push([r + k, c1, c2]);
  });
  return all;
}

/** A RunStream of the same runs one row at a time. */
function rowByRow(runs: RunStream): RunStream {
  return (visit) =>
    runs((r, c1, c2, height) => {
      for (let k = 0; k < height; k++) visit(r + k, c1, c2, 1);
    });
}

describe('table candidates', () => {
  it('are the same with and without the visit of every cell, on generated sheets', () => {
    const cell = fc.record({
      r: fc.integer({ min: 1, max: 14 }),
      c: fc.integer({ min: 0, max: 9 }),
      number: fc.boolean(),
    });
    // Dense rectangles (tables, some with a header row) scattered over sparse noise.
    const rectangle = fc
      .record({
        r: fc.integer({ min: 1, max: 12 }),
        c: fc.integer({ min: 0, max: 8 }),
        h: fc.integer({ min: 1, max: 6 }),
        w: fc.integer({ min: 1, max: 5 }),
        textHeader: fc.boolean(),
        holes: fc.array(fc.nat(40), { maxLength: 6 }),
      })
      .map(({ r, c, h, w, textHeader, holes }) => {
        const cells = [];
        for (let i = 0; i < h; i++)
          for (let j = 0; j < w; j++)
            if (!holes.includes(i * w + j))
              cells.push({ r: r + i, c: c + j, number: !(textHeader && i === 0) });
        return cells;
      });
    fc.assert(
      fc.property(
        fc.array(rectangle, { maxLength: 4 }),
        fc.array(cell, { maxLength: 30 }),
        (rects, noise) => {
          const source = sheet([...rects.flat(), ...noise]);
          const expected = detectTableCandidates(source, noBorders, [], { visitEveryCell: true });
          expect(detectTableCandidates(source, noBorders, [])).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('score a sparse block by its density and a header-like first row, as the visit of every cell does', () => {
    // A staircase: two cells per row, each row shifted by one column (4-connected), n rows × n+1 columns.
    const staircase = (n: number, textHeader: boolean) => {
      const cells = [];
      for (let r = 1; r <= n; r++)
        for (const c of [r - 1, r]) cells.push({ r, c, number: !(textHeader && r === 1) });
      return sheet(cells);
    };
    const both = (source: CellSource) => {
      const fast = detectTableCandidates(source, noBorders, []);
      expect(fast).toEqual(detectTableCandidates(source, noBorders, [], { visitEveryCell: true }));
      return fast;
    };
    // 16 of 72 cells: 0.22 + 0.1 coverage + 0.1 ≥ 0.35.
    expect(both(staircase(8, false))).toEqual(['A1:I8']);
    // 32 of 272 cells: 0.12 + 0.2 < 0.35 without a header, a table with one.
    expect(both(staircase(16, false))).toEqual([]);
    expect(both(staircase(16, true))).toEqual(['A1:Q16']);
  });

  it('decide a tall block from its first rows', () => {
    const cells = [];
    for (let c = 0; c < 4; c++) cells.push({ r: 1, c, number: false });
    for (let r = 2; r <= 5_000; r++) for (let c = 0; c < 4; c++) cells.push({ r, c, number: true });
    const every = sheet(cells);
    expect(detectTableCandidates(every, noBorders, [], { visitEveryCell: true })).toEqual(['A1:D5000']);
    const visitedAll = every.visits;
    const shortcut = sheet(cells);
    expect(detectTableCandidates(shortcut, noBorders, [])).toEqual(['A1:D5000']);
    // One visit to find the block, then a few rows instead of the second visit of all 20,000 cells.
    expect(visitedAll).toBe(40_000);
    expect(shortcut.visits).toBeLessThan(20_100);
  });

  it("read the row store's value cells as the runs its cells make, blank texts and removed cells left out", () => {
    // Rows of up to 12 columns: numbers, texts (some blank), shared strings (some blank); cells removed.
    const shared = ['name', '', '   ', '12'];
    const cell = fc.record({
      c: fc.integer({ min: 0, max: 11 }),
      value: fc.oneof(
        fc.constant(7),
        fc.constantFrom('x', '', ' \t'),
        fc.constantFrom(0, 1, 2, 3).map((i) => ({ i })),
      ),
    });
    const row = fc
      .array(cell, { maxLength: 10 })
      .map((cells) => [...new Map(cells.map((x) => [x.c, x])).values()].sort((a, b) => a.c - b.c));
    fc.assert(
      fc.property(
        // Rows drawn from a few patterns, so that rows alike follow each other (tall runs), and from the
        // last cells of the first pattern (a tall run that starts under a row of several runs).
        fc.array(row, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ pattern: fc.nat(3), gap: fc.nat(3) }), { minLength: 1, maxLength: 12 }),
        fc.nat(20),
        fc.array(fc.nat(80), { maxLength: 5 }),
        fc.record({ r1: fc.integer({ min: 1, max: 9 }), c1: fc.nat(11), h: fc.nat(14), w: fc.nat(11) }),
        (drawn, order, split, removed, box) => {
          const first = drawn[0]!;
          const patterns = [...drawn, first.slice(Math.max(0, first.length - 2))];
          // The rows in two segments (a sheet read in batches), row numbers with gaps now and then.
          const builders = [new SegmentBuilder(), new SegmentBuilder()];
          let r = 0;
          order.forEach(({ pattern, gap }, k) => {
            r += gap === 0 ? 2 : 1;
            const builder = builders[k < split % (order.length + 1) ? 0 : 1]!;
            for (const { c, value } of patterns[pattern % patterns.length]!) {
              if (typeof value === 'number') builder.add(r, c, Kind.Number, value);
              else if (typeof value === 'string') builder.addText(r, c, value);
              else builder.add(r, c, Kind.Shared, value.i);
            }
          });
          const store = new RowStore(
            builders.map((b) => b.finish()),
            new WorkbookValues(shared, false),
          );
          for (const key of removed) if (key < store.valueCount) store.remove(key);
          const { r1, c1, h, w } = box;
          const cells = store.valueCells;
          const expected = runsOf(
            runsOfCells((cell) => cells.forEachIn(r1, c1, r1 + h, c1 + w, (r, c) => cell(r, c))),
          );
          const runs: RunStream = (visit) => cells.forEachRunIn(r1, c1, r1 + h, c1 + w, visit);
          expect(runsOf(runs)).toEqual(expected);
          // A tall run's rows hold that run only.
          runs((r, _c1, _c2, height) => {
            if (height === 1) return;
            for (let k = 0; k < height; k++)
              expect(expected.filter(([row]) => row === r + k)).toHaveLength(1);
          });
          // Rows of one run each are given as one tall run; the blocks are those of the rows one by one.
          const byBlock = (a: { r1: number; c1: number }, b: { r1: number; c1: number }) =>
            a.r1 - b.r1 || a.c1 - b.c1;
          expect(connectedBlocks(runs).sort(byBlock)).toEqual(connectedBlocks(rowByRow(runs)).sort(byBlock));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('read a table of rows alike as one tall run of the row store', () => {
    const builder = new SegmentBuilder();
    for (let r = 1; r <= 1_000; r++) {
      // A blank shared string in column F: not a value, so every row is the run A-E.
      for (let c = 0; c < 5; c++) builder.add(r, c, Kind.Number, r * c);
      builder.add(r, 5, Kind.Shared, 1);
      if (r === 600) builder.add(r, 7, Kind.Number, 1);
    }
    const store = new RowStore([builder.finish()], new WorkbookValues(['name', ' '], false));
    const calls: number[][] = [];
    store.valueCells.forEachRunIn(1, 0, 1_000, 16_383, (r, c1, c2, height) =>
      calls.push([r, c1, c2, height]),
    );
    expect(calls).toEqual([
      [1, 0, 4, 599],
      [600, 0, 4, 1],
      [600, 7, 7, 1],
      [601, 0, 4, 400],
    ]);
    expect(detectTableCandidates(store.valueCells, noBorders, [])).toEqual(['A1:E1000']);
  });

  it("end a tall run at a row of three runs, and start the next at that row's last run", () => {
    // Row 1: B, D, F; rows 2-3: F only; row 4: B only. B of row 4 does not touch B of row 1.
    const builder = new SegmentBuilder();
    for (const c of [1, 3, 5]) builder.add(1, c, Kind.Number, c);
    builder.add(2, 5, Kind.Number, 1);
    builder.add(3, 5, Kind.Number, 1);
    builder.add(4, 1, Kind.Number, 1);
    const store = new RowStore([builder.finish()], new WorkbookValues([], false));
    const calls: number[][] = [];
    const runs: RunStream = (visit) => store.valueCells.forEachRunIn(1, 0, 9, 16_383, visit);
    runs((r, c1, c2, height) => calls.push([r, c1, c2, height]));
    expect(calls).toEqual([
      [1, 1, 1, 1],
      [1, 3, 3, 1],
      [1, 5, 5, 1],
      [2, 5, 5, 2],
      [4, 1, 1, 1],
    ]);
    const boxes = connectedBlocks(runs).map(({ r1, c1, r2, c2 }) => [r1, c1, r2, c2]);
    expect(boxes.sort()).toEqual([
      [1, 1, 1, 1],
      [1, 3, 1, 3],
      [1, 5, 3, 5],
      [4, 1, 4, 1],
    ]);
  });

  it('tell blocks whose boxes overlap from blocks that stand alone', () => {
    const box = (r1: number, c1: number, r2: number, c2: number) => ({ r1, c1, r2, c2 });
    // An L-shaped block's box holds the lone cell at (3, 3); the block at rows 10-12 is clear.
    expect(blocksAlone([box(1, 0, 5, 4), box(3, 3, 3, 3), box(10, 0, 12, 2)])).toEqual([false, false, true]);
  });
});
