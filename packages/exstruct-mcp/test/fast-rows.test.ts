// The fast byte parser of sheet rows (src/extract/fast-rows.ts) against the tokenizer it stands in for:
// generated sheets mixing every form of row and cell markup producers write (and some they should not)
// must extract to the same JSON, or fail with the same error, either way; and the parser must give the
// same result however its input is cut into pieces.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteSink } from '../src/extract/byte-sink.js';
import { sinkConfig } from '../src/extract/cell-sink.js';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { FastRowParser, NotFast } from '../src/extract/fast-rows.js';
import { WorkbookValues } from '../src/extract/row-store.js';
import { emptyWorksheetInfo } from '../src/ooxml/worksheet-handlers.js';
import { ROOT_SCOPE } from '../src/ooxml/xml-tokenizer.js';
import { tempDir, type TempDir } from './extract-helpers.js';

let tmp: TempDir;
beforeAll(async () => {
  tmp = await tempDir('exstruct-fast-rows-');
});
afterAll(() => tmp.remove());

const SHARED = ['alpha', ' ', '', '12', '日本語', 'a "quoted" \\ line\nbreak'];
// Styles 0 plain, 1 date, 2 time of day, 3 bordered, 4 date-time.
const STYLES =
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd h:mm"/></numFmts>' +
  '<fonts count="1"><font/></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="2"><border/><border><left style="thin"/><right style="thin"/><top style="thin"/><bottom style="thin"/></border></borders>' +
  '<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="21" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="0" fillId="0" borderId="1" applyBorder="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/></cellXfs>';

/** Number texts: plain, the forms JSON writes differently, and ones that are not numbers at all. */
const NUMBER_TEXT = rare(
  fc.oneof(
    fc.integer({ min: -1_000_000, max: 3_000_000 }).map(String),
    fc.double({ min: -1e6, max: 1e6, noNaN: true }).map(String),
    fc.integer({ min: 0, max: 99999 }).map((n) => (n / 100).toFixed(2)),
    fc.constantFrom(
      '0',
      '-0',
      '007',
      '1.0',
      '1.50',
      '45293',
      '45293.5',
      '0.000001',
      '0.0000001',
      '1E3',
      '1e999',
      ' 12',
      '12 ',
      '.5',
      '5.',
      '+5',
      '0x1A',
      'Infinity',
      '123456789012345678',
      '1234567890.12345',
      '-1.25',
      '',
      '4.35',
      '2958465',
      '2958466',
      '-3',
      'abc',
      '１２',
      '&#49;2',
      '1&amp;',
      '12\r\n',
    ),
  ),
  fc.constant('<![CDATA[7]]>'),
);
const TEXT = rare(
  fc.oneof(
    fc.string({ maxLength: 8 }).map(escape),
    fc.constantFrom(
      'a &amp; b',
      '&lt;x&gt;',
      '日本',
      ' ',
      '',
      'x\r\ny',
      '_x000D_ok',
      '&#xD800;',
      'tab\there',
    ),
  ),
  fc.constant('&bogus;'),
);

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const SPACE = fc.constantFrom('', '', '', ' ', '\n  ', '\r\n');

/** Mostly `common`, now and then `odd` (markup the fast parser leaves to the tokenizer, or errors). */
function rare<T>(common: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: common, weight: 60 }, { arbitrary: odd, weight: 1 });
}

/** One cell; `p` is the element prefix. */
function cell(p: string) {
  return fc
    .record({
      ref: rare(
        fc.oneof(
          fc
            .integer({ min: 0, max: 30 })
            .map((c) => ` r="${String.fromCharCode(65 + (c % 26))}${c >= 26 ? 'A' : ''}1"`),
          fc.constantFrom('', ' r="a1"', ' r="1"', " r='C1'"),
        ),
        fc.constantFrom(' r="XFE1"', ' r="A1" r="B1"'),
      ),
      style: rare(
        fc.constantFrom('', ' s="1"', ' s="2"', ' s="3"', ' s="4"', ' s="0"', ' s="9"'),
        fc.constantFrom(' s="x"', ' s=""'),
      ),
      type: rare(
        fc.constantFrom(
          '',
          '',
          ' t="n"',
          ' t="s"',
          ' t="b"',
          ' t="e"',
          ' t="str"',
          ' t="d"',
          ' t="inlineStr"',
          ' t="x"',
        ),
        fc.constant(' t="s&amp;"'),
      ),
      extra: rare(
        fc.constantFrom('', '', '', ' cm="1"', ' x14ac:foo="1"'),
        fc.constantFrom(' undeclared:foo="1"', ' xmlns:y="urn:y"', ' vm="1" vm="2"'),
      ),
      formula: rare(
        fc.constantFrom(
          '',
          '',
          '',
          `<${p}f>A1*2</${p}f>`,
          `<${p}f t="shared" ref="A1:A9" si="0">B1&amp;"x"</${p}f>`,
          `<${p}f t="shared" si="0"/>`,
          `<${p}f>IF(A1&gt;0,&quot;y&quot;,"")</${p}f>`,
        ),
        fc.constant(`<${p}f>A1&bad;</${p}f>`),
      ),
      value: rare(
        fc.oneof(
          NUMBER_TEXT.map((v) => `<${p}v>${v}</${p}v>`),
          fc.integer({ min: 0, max: 8 }).map((i) => `<${p}v>${i}</${p}v>`),
          TEXT.map((t) => `<${p}v>${t}</${p}v>`),
          fc.constantFrom('', `<${p}v/>`, `<${p}v></${p}v>`, `<${p}v xml:space="preserve"> 1 </${p}v>`),
          TEXT.map((t) => `<${p}is><${p}t>${t}</${p}t></${p}is>`),
          fc.constantFrom(`<${p}is/>`, `<${p}is><${p}t/></${p}is>`),
        ),
        fc.oneof(
          TEXT.map(
            (t) => `<${p}is><${p}r><${p}t>${t}</${p}t></${p}r><${p}rPh><${p}t>ふ</${p}t></${p}rPh></${p}is>`,
          ),
          fc.constantFrom('<!-- note -->', `<${p}extLst/>`, `<${p}v>1</${p}w>`),
        ),
      ),
      selfClosing: fc.boolean(),
      gap: SPACE,
    })
    .map(({ ref, style, type, extra, formula, value, selfClosing, gap }) =>
      selfClosing && value === ''
        ? `<${p}c${ref}${style}${type}${extra}/>`
        : `<${p}c${ref}${style}${type}${extra}>${gap}${formula}${gap}${value}${gap}</${p}c>`,
    );
}

function row(p: string) {
  return fc
    .record({
      r: rare(
        fc.oneof(
          fc.integer({ min: 1, max: 40 }).map((r) => ` r="${r}"`),
          fc.constant(''),
        ),
        fc.constantFrom(' r="0"', ' r="1048577"', ' r="x"'),
      ),
      attrs: rare(
        fc.constantFrom(
          '',
          ' spans="1:5" x14ac:dyDescent="0.25"',
          ' ht="30" customHeight="1"',
          ' hidden="1"',
          " ht='12.75'",
        ),
        fc.constant(' ht="&#49;5"'),
      ),
      cells: fc.array(cell(p), { maxLength: 6 }),
      gap: SPACE,
      selfClosing: fc.boolean(),
    })
    .map(({ r, attrs, cells, gap, selfClosing }) =>
      selfClosing && cells.length === 0
        ? `<${p}row${r}${attrs}/>`
        : `<${p}row${r}${attrs}>${gap}${cells.join(gap)}${gap}</${p}row>`,
    );
}

const SHEET = fc
  .record({ prefixed: fc.boolean(), rows: fc.array(fc.integer({ min: 0, max: 1 }), { maxLength: 1 }) })
  .chain(({ prefixed }) => {
    const p = prefixed ? 'x:' : '';
    return fc.record({ p: fc.constant(p), rows: fc.array(row(p), { maxLength: 12 }), gap: SPACE });
  })
  .map(({ p, rows, gap }) => ({
    p,
    data: `${rows.join(gap)}`,
  }));

const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

function worksheet(p: string, data: string): string {
  const root = p === '' ? 'worksheet' : 'x:worksheet';
  const decl = p === '' ? `xmlns="${NS_MAIN}"` : `xmlns:x="${NS_MAIN}"`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?><${root} ${decl} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ` +
    `xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"><${p}sheetData>${data}</${p}sheetData>` +
    `<${p}mergeCells count="1"><${p}mergeCell ref="A1:B2"/></${p}mergeCells></${root}>`
  );
}

async function outcome(file: string, fastRows: boolean) {
  try {
    const extraction = await extractWorkbook(file, { fastRows, batches: false });
    return {
      json: extraction.serialize('json'),
      alpha: (
        await extractWorkbook(file, { fastRows, batches: false, alphaCol: true, mode: 'light' })
      ).serialize('json'),
      fast: extraction.sheets[0]?.parsedWith.fast === true,
    };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return { error: `${e.code}: ${e.message}`, fast: false };
  }
}

/** Sheets per run (FAST_ROWS_RUNS=5000 for a longer hunt; about 60 ms of test time per 10). */
const RUNS = Number(process.env.FAST_ROWS_RUNS ?? 150);

describe('the fast row parser', () => {
  it('extracts generated sheets exactly as the tokenizer does, or fails the same way', async () => {
    const { zipBytes, packageParts } = await import('./extract-helpers.js');
    let n = 0;
    let fastCount = 0;
    await fc.assert(
      fc.asyncProperty(SHEET, async ({ p, data }) => {
        const parts = packageParts({
          sheets: [{ name: 'S', body: '' }],
          sharedStrings: SHARED,
          styles: STYLES,
        });
        parts['xl/worksheets/sheet1.xml'] = worksheet(p, data);
        const file = await tmp.file(`case${n++}.xlsx`, zipBytes(parts));
        const fast = await outcome(file, true);
        const tokenizer = await outcome(file, false);
        if (fast.fast) fastCount++;
        expect({ ...fast, fast: undefined }).toEqual({ ...tokenizer, fast: undefined });
      }),
      { numRuns: RUNS },
    );
    // The generator mixes in markup only the tokenizer reads; most sheets must still take the fast path,
    // or this test compares the tokenizer with itself.
    expect(fastCount).toBeGreaterThan(RUNS / 10);
  });

  it('reads a sheet the same however it is cut into pieces', () => {
    const clean = fc
      .array(
        fc.record({
          cells: fc.array(
            fc.tuple(
              fc.constantFrom('', ' s="1"', ' s="3"'),
              fc.constantFrom('', ' t="s"'),
              fc.integer({ min: 0, max: 5 }),
            ),
            { maxLength: 8 },
          ),
        }),
        { minLength: 1, maxLength: 30 },
      )
      .map((rows) =>
        rows
          .map(
            ({ cells }, r) =>
              `<row r="${r + 1}" spans="1:8">` +
              cells
                .map(
                  ([s, t, v], c) =>
                    `<c r="${String.fromCharCode(65 + c)}${r + 1}"${s}${t}><v>${v}${t ? '' : '.25'}</v></c>`,
                )
                .join('') +
              '</row>',
          )
          .join(''),
      );
    const config = sinkConfig(
      [
        { dateKind: undefined },
        { dateKind: 'date' },
        { dateKind: undefined },
        { dateKind: undefined, bordered: true },
      ] as never,
      SHARED,
    );
    const read = (bytes: Buffer, cuts: number[]) => {
      const sink = new ByteSink(64);
      const info = emptyWorksheetInfo();
      const parser = new FastRowParser({
        config,
        values: new WorkbookValues(SHARED, false),
        prefix: '',
        scope: ROOT_SCOPE,
        info,
        json: { sink, alpha: false },
      });
      let at = 0;
      for (const cut of [...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length]) {
        parser.write(bytes.subarray(at, cut));
        at = cut;
      }
      const rows = parser.end();
      return {
        json: Buffer.concat(sink.views(0, sink.offset)).toString(),
        cols: [...rows.segment.cols],
        borders: [...rows.borders],
      };
    };
    fc.assert(
      fc.property(clean, fc.array(fc.nat({ max: 4000 }), { maxLength: 20 }), (xml, cuts) => {
        const bytes = Buffer.from(xml);
        const whole = read(bytes, []);
        expect(read(bytes, cuts)).toEqual(whole);
        const withCells = xml.split('<row').filter((r) => r.includes('<c ')).length;
        expect(whole.json === '' ? [] : JSON.parse(whole.json)).toHaveLength(withCells);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves a row longer than 8 MB to the tokenizer', () => {
    const parser = new FastRowParser({
      config: sinkConfig([], []),
      values: new WorkbookValues([], false),
      prefix: '',
      scope: ROOT_SCOPE,
      info: emptyWorksheetInfo(),
    });
    const piece = Buffer.from(`<c r="A1"><v>1</v></c>`.repeat(1 << 15));
    parser.write(Buffer.from('<row r="1">'));
    expect(() => {
      for (let i = 0; i < 20; i++) parser.write(piece);
    }).toThrow(NotFast);
  });
});
