// The TOON layout (src/output/toon-layout.ts, README "TOON layout"): a TOON output holds exactly the JSON
// model's information, in tables; read back through the layout it is the same model, cell for cell.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatOutput, parseToon } from '@mcp-workbench/core/engine';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import type { CellRow, SheetData, WorkbookData } from '../src/extract/model.js';
import { colIndexToAlpha } from '../src/ooxml/cell-ref.js';
import { renderDocument } from '../src/output/render.js';
import { fromToonLayout, ToonLayoutError } from '../src/output/toon-layout.js';
import { FIXTURES } from './extract-helpers.js';

const viaToon = (doc: object, indent?: number) =>
  fromToonLayout(parseToon(renderDocument(doc, 'toon', indent ? { indent } : {})));
const plain = (doc: object) => JSON.parse(JSON.stringify(doc)) as unknown;

// Every workbook fixture, but the encrypted ones (oc-*.xlsx: decryption is what they test, and each
// costs seconds of key derivation; what they hold is read like any other workbook).
const workbooks = [
  ...readdirSync(FIXTURES).filter((f) => f.endsWith('.xlsx')),
  ...readdirSync(path.join(FIXTURES, 'producers'))
    .filter((f) => f.endsWith('.xlsx') && !f.startsWith('oc-'))
    .map((f) => path.join('producers', f)),
];
// Verbose has every field (formulas, colors, links, sizes); standard is the default, also with letters.
const settings = [
  { mode: 'standard', alphaCol: false },
  { mode: 'standard', alphaCol: true },
  { mode: 'verbose', alphaCol: false },
  { mode: 'verbose', alphaCol: true },
] as const;

describe('TOON outputs of the fixtures', () => {
  it.each(workbooks)(
    '%s: numeric and letter keys, standard and verbose, decode to the JSON model',
    async (file) => {
      for (const { mode, alphaCol } of settings) {
        {
          const extraction = await extractWorkbook(path.join(FIXTURES, file), { mode, alphaCol });
          const json = JSON.parse(extraction.serialize('json')) as WorkbookData;
          const toon = extraction.serialize('toon');
          expect(fromToonLayout(parseToon(toon)), `${mode} alpha=${alphaCol}`).toEqual(json);
          // The per-sheet and per-print-area files too.
          for (const payload of extraction.sheetPayloads()) expect(viaToon(payload)).toEqual(plain(payload));
          for (const { payload } of extraction.printAreaPayloads())
            expect(viaToon(payload)).toEqual(plain(payload));
          // Rows really are written as the table (not as one indented line per cell).
          const sheetWithRows = Object.values(json.sheets).find((sheet) => sheet.rows?.length);
          if (sheetWithRows) expect(toon).toMatch(/ rows\[\d+\]\{cell,v1[,}]/);
        }
      }
    },
  );

  it('writes the table the README shows: A1 cells, k cells a line, null for a gap', async () => {
    const extraction = await extractWorkbook(path.join(FIXTURES, 'gantt_chart__en__sample.xlsx'), {
      mode: 'verbose',
    });
    const toon = extraction.serialize('toon');
    const lines = toon.split('\n');
    const header = lines.findIndex((line) => line.includes('rows['));
    expect(lines[header]).toMatch(/^ {4}rows\[\d+\]\{cell,v1,v2,v3,v4,v5,v6(,v\d+)*\}:$/);
    // Row 8 of the sheet: a task with its assignee, progress, dates and duration from column A on.
    expect(lines.find((line) => line.trimStart().startsWith('A8,'))).toMatch(
      /^ {6}A8,Requirements Definition,Alice,0\.8,2026-01-05,2026-01-10,5(,null)*$/,
    );
    expect(toon).toMatch(/colors_map\[\d+\]\{from,to,color\}:/);
    expect(toon).toMatch(/merged_cells\[\d+\]\{from,to,v\}:/);
  });
});

// Arbitrary models, including everything that TOON must quote or could misread.
const tricky = fc.constantFrom(
  '',
  ' ',
  '　',
  '  lead and trail  ',
  '0012',
  '1e3',
  '-1',
  '3.0',
  'true',
  'false',
  'null',
  '東京都千代田区',
  '氏　名',
  'a,b',
  'x: y',
  '- item',
  '"quoted"',
  '[1]',
  '{a}',
  'tab\there',
  'line\nbreak',
  '=SUM(A1:A3)',
  'A1',
);
const cellValue = fc.oneof(
  tricky,
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.boolean(),
);
const cell = fc.tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 40 }));

function sheetArb(alpha: boolean): fc.Arbitrary<SheetData> {
  const key = (col: number) => (alpha ? colIndexToAlpha(col) : String(col));
  const row = fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 12 }),
      fc.array(cellValue, { minLength: 12, maxLength: 12 }),
      fc.array(fc.oneof(fc.constant(undefined), fc.webUrl()), { minLength: 12, maxLength: 12 }),
    )
    .map(([cols, values, urls]) => {
      const c: CellRow['c'] = {};
      let links: Record<string, string> | undefined;
      [...cols]
        .sort((a, b) => a - b)
        .forEach((col, i) => {
          c[key(col)] = values[i]!;
          if (urls[i] !== undefined) (links ??= {})[key(col)] = urls[i];
        });
      return { c, links };
    });
  const rows = fc
    .uniqueArray(fc.integer({ min: 1, max: 1_048_576 }), { maxLength: 8 })
    .chain((numbers) =>
      fc.tuple(fc.constant(numbers), fc.array(row, { minLength: numbers.length, maxLength: numbers.length })),
    )
    .map(([numbers, cells]) =>
      numbers.map((r, i): CellRow =>
        cells[i]!.links ? { r, c: cells[i]!.c, links: cells[i]!.links } : { r, c: cells[i]!.c },
      ),
    );
  const cellMap = fc.dictionary(
    fc.oneof(tricky, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 })),
    fc.array(cell, { minLength: 1, maxLength: 10 }),
    { maxKeys: 4 },
  );
  const shape = fc.record(
    {
      id: fc.nat(99),
      text: cellValue.map(String),
      l: fc.nat(999),
      t: fc.nat(999),
      w: fc.nat(99),
      kind: fc.constantFrom('shape', 'arrow'),
      type: fc.constantFrom('AutoShape-Rectangle', 'Picture'),
      begin_id: fc.nat(9),
      direction: fc.constantFrom('N', 'SE'),
    },
    { requiredKeys: ['l', 't', 'kind'] },
  );
  return fc
    .record(
      {
        rows,
        shapes: fc.array(shape, { minLength: 1, maxLength: 6 }),
        comments: fc.array(
          fc.record(
            { cell: fc.constantFrom('A1', 'C7'), author: fc.string(), text: fc.string() },
            { requiredKeys: ['cell', 'text'] },
          ),
          { minLength: 1, maxLength: 3 },
        ),
        merged_cells: fc
          .array(fc.tuple(cell, cell, cellValue.map(String)), { minLength: 1, maxLength: 6 })
          .map((items) => ({
            schema: ['r1', 'c1', 'r2', 'c2', 'v'] as ['r1', 'c1', 'r2', 'c2', 'v'],
            items: items.map(([[r1, c1], [r2, c2], v]): [number, number, number, number, string] => [
              r1,
              c1,
              r2,
              c2,
              v,
            ]),
          })),
        formulas_map: cellMap,
        colors_map: cellMap,
        table_candidates: fc.array(fc.constantFrom('A1:B3', 'C2:D9')),
        print_areas: fc.array(fc.record({ r1: fc.nat(9), c1: fc.nat(9), r2: fc.nat(99), c2: fc.nat(99) }), {
          maxLength: 2,
        }),
      },
      { requiredKeys: [] },
    )
    .map((sheet) => {
      // Empty fields are left out of the model, as the extractor does.
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(sheet)) {
        if (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0) out[k] = v;
      }
      return out;
    });
}

const workbookArb = fc.boolean().chain((alpha) =>
  fc.record({
    book_name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }),
    sheets: fc.dictionary(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }), sheetArb(alpha), {
      minKeys: 1,
      maxKeys: 3,
    }),
  }),
);

describe('the layout, on arbitrary models', () => {
  it('decodes to the same model: Japanese text, empty strings, number-like text, formulas, links', () => {
    fc.assert(
      fc.property(workbookArb, fc.constantFrom(undefined, 1, 4), (workbook, indent) => {
        expect(viaToon(workbook, indent)).toEqual(workbook);
      }),
      { numRuns: 80 },
    );
  });

  it('keeps sheet files and chunk pages (book_name, sheet_name, sheet) whole too', () => {
    fc.assert(
      fc.property(workbookArb, (workbook) => {
        for (const [name, sheet] of Object.entries(workbook.sheets)) {
          const page = { book_name: workbook.book_name, sheet_name: name, sheet };
          expect(viaToon(page)).toEqual(page);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('reads a TOON document in the plain model (written before the layout) as it is', () => {
    const old = {
      book_name: 'b.xlsx',
      sheets: {
        S: {
          rows: [{ r: 1, c: { '0': 'x', '2': 3 } }],
          merged_cells: { schema: ['r1', 'c1', 'r2', 'c2', 'v'], items: [[1, 0, 1, 2, 'x']] },
        },
      },
    };
    expect(fromToonLayout(parseToon(formatOutput(old, 'toon')))).toEqual(old);
  });
});

describe('a TOON document that does not follow the layout', () => {
  const sheet = (fields: Record<string, unknown>) => ({ book_name: 'b', sheets: { S: fields } });

  it('is refused with the sheet and field named', () => {
    expect(() => fromToonLayout(sheet({ rows: [{ cell: 'not a cell', v1: 1 }] }))).toThrow(
      /sheet "S": rows holds "not a cell", not an A1 cell address/,
    );
    expect(() => fromToonLayout(sheet({ rows: [{ cell: 'A1', value: 1 }] }))).toThrow(/column "value"/);
    expect(() =>
      fromToonLayout(sheet({ rows: [{ cell: 'A1', v1: 1 }], links: [{ cell: 'B1', url: 'u' }] })),
    ).toThrow(/links names B1, a cell without value/);
    expect(() => fromToonLayout(sheet({ colors_map: [{ from: 'B2', to: 'A1', color: 'FF0000' }] }))).toThrow(
      ToonLayoutError,
    );
  });

  it('cannot make a few bytes expand to billions of cells', () => {
    const huge = sheet({ colors_map: [{ from: 'A1', to: 'XFD1048576', color: 'FF0000' }] });
    expect(() => fromToonLayout(huge, { maxMapCells: 1_000_000 })).toThrow(
      /more cells than a document of this size/,
    );
  });
});
