// The WebAssembly row kernel (native/rows-kernel.c through src/extract/wasm-rows.ts) against its
// reference, FastRowParser: on mutated row markup it must write the same JSON, columns, borders and row
// heights or refuse as FastRowParser refuses (NotFast) or give the sheet back to it (KernelFallback);
// big sheets extracted through a real MCP client must give byte for byte what the JS parser gives, when
// the kernel reads them and when it gives up near their end; and the checked-in .wasm must be what its
// source builds.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteSink } from '../src/extract/byte-sink.js';
import { sinkConfig } from '../src/extract/cell-sink.js';
import { FastRowParser, NotFast } from '../src/extract/fast-rows.js';
import { WorkbookValues } from '../src/extract/row-store.js';
import { rowsKernel, rowsKernelStats, setRowsKernelMaxBytes } from '../src/extract/rows-kernel.js';
import { KernelFallback, WasmRowParser } from '../src/extract/wasm-rows.js';
import { ROOT_SCOPE, type NsScope } from '../src/ooxml/xml-tokenizer.js';
import {
  connect,
  DATE_TIME_BORDER_STYLES as STYLES,
  tempDir,
  type Session,
  type TempDir,
} from './extract-helpers.js';

const PACKAGE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = [
  'alpha',
  ' ',
  '',
  '12',
  '日本語',
  'a "quoted" \\ line\nbreak',
  'x',
  'y',
  'z',
  'é',
  'w',
  'v',
  'u',
  'last',
];
// Styles: 0 plain, 1 date, 2 time, 3 bordered, 4 date and bordered.
const CONFIG = sinkConfig(
  [
    {},
    { dateKind: 'date' },
    { dateKind: 'time' },
    { bordered: true },
    { dateKind: 'date', bordered: true },
  ] as never,
  SHARED,
);
const SCOPE: NsScope = new Map([
  ...ROOT_SCOPE,
  ['x14ac', 'http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac'],
]);

type Outcome =
  { ok: true; json: Buffer; columns: unknown[]; heights: string } | { ok: false; refusal: string };

function pieces(text: string | Buffer, size: number): Buffer[] {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

function run(
  engine: 'js' | 'wasm',
  text: string | Buffer,
  size: number,
  alpha: boolean,
  date1904: boolean,
): Outcome {
  const sink = new ByteSink();
  const info = { rowHeights: new Map<number, number>() };
  const options = {
    config: CONFIG,
    values: new WorkbookValues(SHARED, date1904),
    prefix: '',
    scope: SCOPE,
    info,
    json: { sink, alpha },
    expectedCells: 16,
  };
  let parser: FastRowParser | WasmRowParser | undefined;
  try {
    parser = engine === 'js' ? new FastRowParser(options) : WasmRowParser.create(options);
    if (!parser) throw new Error('no rows kernel');
    for (const piece of pieces(text, size)) parser.write(piece);
    const rows = parser.end();
    const s = rows.segment;
    return {
      ok: true,
      json: Buffer.concat(sink.views(0, sink.offset)),
      columns: [
        s.rowNumbers,
        s.rowStart,
        s.cols,
        s.kinds,
        s.nums,
        s.texts,
        rows.borders,
        rows.ordered,
        rows.jsonBytes,
      ].map((c) => (ArrayBuffer.isView(c) ? Array.from(c as Int32Array) : c)),
      heights: JSON.stringify([...info.rowHeights]),
    };
  } catch (error) {
    if (parser instanceof WasmRowParser) parser.release();
    if (error instanceof NotFast) return { ok: false, refusal: 'not-fast' };
    if (error instanceof KernelFallback) return { ok: false, refusal: 'fallback' };
    return { ok: false, refusal: (error as Error).name };
  }
}

const tally = { read: 0, notFast: 0, fallback: 0 };

/** The kernel agrees with FastRowParser, or hands the sheet back to it. */
function expectAgreement(text: string | Buffer, size: number, alpha = true, date1904 = false): Outcome {
  const label = typeof text === 'string' ? text : text.toString('latin1');
  const js = run('js', text, size, alpha, date1904);
  const wasm = run('wasm', text, size, alpha, date1904);
  tally[wasm.ok ? 'read' : wasm.refusal === 'not-fast' ? 'notFast' : 'fallback']++;
  if (wasm.ok) expect(wasm, label).toEqual(js);
  else if (wasm.refusal === 'not-fast') expect(js, label).toEqual({ ok: false, refusal: 'not-fast' });
  else expect(wasm.refusal, label).toBe('fallback');
  return wasm;
}

const SEEDS = [
  Array.from(
    { length: 12 },
    (_, r) =>
      `<row r="${r + 1}" spans="1:5" x14ac:dyDescent="0.25"><c r="A${r + 1}"><v>${r * 7}</v></c><c r="B${r + 1}" t="s"><v>${r % SHARED.length}</v></c>` +
      `<c r="C${r + 1}" s="1"><v>${45000 + r}</v></c><c r="D${r + 1}" s="3"><f>A${r + 1}*2</f><v>${r * 14}</v></c><c r="E${r + 1}"><v>${r}.25</v></c></row>`,
  ).join(''),
  `<row r="1"><c r="A1" s="1"><v>45293.5</v></c><c r="B1" s="2"><v>0.75</v></c><c r="C1" s="1"><v>60</v></c><c r="D1" s="2"><v>1.2500001</v></c><c s="1"><v>0</v></c><c s="2"><v>0.0000001</v></c></row>`,
  `<row r="3" ht="20.25" customHeight="1"><c r="A3"><v>-0</v></c><c r="B3"><v>007</v></c><c r="C3"><v>1.50</v></c><c r="D3"><v>0.000001</v></c><c r="E3"><v>0.0000001</v></c><c r="F3"><v>1E-3</v></c><c r="G3"><v>123456789012345678</v></c><c r="H3"><v>0.30000000000000004</v></c></row>`,
  `<row r="4" hidden="1"><c r="A4" t="b"><v>1</v></c><c r="B4" t="b"><v>0</v></c><c r="C4" t="s"><v>12</v></c><c r="D4" t="s"><v>13</v></c><c r="E4" t="n"><v>5</v></c><c r="F4" t="s"><v/></c><c r="G4"/><c r="H4" s="3"/><c r="I4" s="4"><v>45000</v></c></row>`,
  `<row r='5' spans='1:3'  x14ac:dyDescent='0.25' ><c  r='A5' s='0' ><f t="shared" si="0">A1&amp;B1&#65;&#x42;</f> <v>7</v> </c>\n<c><v>8</v></c><c r="AB5"><v>9</v></c></row><row><c><v>10</v></c></row>`,
  `<row r="6"><c r="A6" t="inlineStr"><is><t>hi</t></is></c><c r="B6" t="str"><f>"a"</f><v>a</v></c><c r="C6" t="e"><v>#N/A</v></c></row>`,
  `<row r="7"><c r="A7"><v> 12 </v></c><c r="B7"><v>+5</v></c><c r="C7"><v>.5</v></c><c r="D7"><v>1e400</v></c><c r="E7"><v>Infinity</v></c></row>`,
  `<row r="8" ht="15"/><row r="9" x14ac:dyDescent="0.3" ht="1e1"></row><row r="10"><c r="A10" xml:space="preserve"><v>1</v></c></row>`,
  `<row r="3"><c r="B3"><v>1</v></c></row><row r="2"><c r="A2" s="3"><v>2</v></c></row>`,
  // Formulas' text results: JSON escapes, Japanese, emoji, empty values, a cell without one.
  `<row r="11"><c r="A11" t="str"><f>B1</f><v>済み</v></c><c r="B11" t="str"><v>say "hi" \\ back</v></c>` +
    `<c r="C11" t="str"><v>tab\there\nline</v></c><c r="D11" t="str"><v/></c><c r="E11" t="str"><v></v></c>` +
    `<c r="F11" t="str"><v>\u0001ctl\u001f\u007f</v></c><c r="G11" t="str"></c><c r="H11" t="str"><v>😀 é\u2028</v></c>` +
    `<c r="I11" t="str"><v>a &amp; b &lt;&gt;&quot;&apos; &#26085;&#x672C; &#13;&#10;&#1;</v></c></row>`,
  // Inline strings as openpyxl writes them (character references), runs, attributes, empty ones.
  `<row r="12"><c r="A12" t="inlineStr"><is><t>&#26085;&#20184; &amp; x</t></is></c>` +
    `<c r="B12" t="inlineStr"><is><t xml:space="preserve"> a </t><t>b</t></is></c><c r="C12" t="inlineStr"><is/></c>` +
    `<c r="D12" t="inlineStr"><is><t/></is></c><c r="E12" t="inlineStr"><is></is></c><c r="F12" t="inlineStr"></c>` +
    `<c r="G12" s="3" t="inlineStr"><is>\n<t>"q" \\ 済</t>\n</is></c></row>`,
  // Error and ISO date cells: their text, none when it is blank (white space, or no value at all).
  `<row r="20"><c r="A20" t="e"><v>#N/A</v></c><c r="B20" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="C20" t="e"><v> </v></c>` +
    `<c r="D20" t="e"><v/></c><c r="E20" t="d"><v>2024-01-02T03:04:05Z</v></c><c r="F20" t="d" s="1"><v>2024-01-02</v></c>` +
    `<c r="G20" t="e"><v>&#9;&#10; \t</v></c><c r="H20" t="e"><v>x &amp; y</v></c><c r="I20" t="e" s="1"><v>45000</v></c>` +
    `<c r="J20" t="e"><v> #REF! </v></c><c r="K20" t="e"></c><c r="L20" t="d"><v>\u0001</v></c></row>`,
];
/** Texts the kernel leaves to FastRowParser: to normalise, to unescape, or not decodable as it decodes. */
const TEXTS_HANDED_BACK = [
  `<row r="13"><c r="A13" t="str"><v>line\r\nend</v></c></row>`,
  `<row r="14"><c r="A14" t="str"><v>&#xD800;</v></c></row>`,
  `<row r="15"><c r="A15" t="str"><v>&nbsp;</v></c></row>`,
  `<row r="16"><c r="A16" t="inlineStr"><is><t>_x0041_</t></is></c></row>`,
  `<row r="17"><c r="A17" t="inlineStr"><is><r><t>rich</t></r></is></c></row>`,
  `<row r="18"><c r="A18" t="inlineStr"><is><t>a</t></is><v>1</v></c></row>`,
  // Blank only as JS trims (U+00A0, U+3000 are white space to String.trim): JS decides.
  `<row r="19"><c r="A19" t="e"><v>&#160;</v></c></row>`,
  `<row r="21"><c r="A21" t="d"><v> \u3000</v></c></row>`,
];
const ALPHABET = [
  '<',
  '>',
  '/',
  '=',
  '"',
  "'",
  '&',
  ';',
  ':',
  ' ',
  '\n',
  'r',
  's',
  't',
  'v',
  'f',
  'c',
  'x',
  '0',
  '1',
  '9',
  '-',
  '.',
  'A',
  'Z',
  'e',
  '#',
  'amp;',
  '<v>',
  '</v>',
  '<c>',
  '</c>',
  '<f>',
  '</f>',
  ' r="B2"',
  ' s="1"',
  ' t="s"',
  ' t="b"',
  'xmlns:q="u"',
  ' q:a="1"',
  ' x14ac:a="1"',
  ' t="str"',
  ' t="e"',
  ' t="d"',
  '\\',
  '\t',
  'é',
  '\r',
];

/** An edit of a seed: insert, delete or replace at a relative position. */
const EDIT = fc.record({
  at: fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000),
  op: fc.constantFrom('insert', 'delete', 'replace'),
  text: fc.constantFrom(...ALPHABET),
  length: fc.integer({ min: 1, max: 3 }),
});

function mutate(
  seed: string,
  edits: Array<{ at: number; op: string; text: string; length: number }>,
): string {
  let text = seed;
  for (const { at: where, op, text: bit, length } of edits) {
    const at = Math.floor(where * text.length);
    if (op === 'insert') text = text.slice(0, at) + bit + text.slice(at);
    else if (op === 'delete') text = text.slice(0, at) + text.slice(at + length);
    else text = text.slice(0, at) + bit + text.slice(at + 1);
  }
  return text;
}

describe('the rows kernel against FastRowParser', () => {
  it('reads the seeds as FastRowParser does, however they are cut', () => {
    const outcomes = SEEDS.map((seed) => [1, 7, 1 << 20].map((size) => expectAgreement(seed, size)));
    // The kernel reads every seed but one (which FastRowParser reads; not ours to read).
    expect(outcomes.filter((o) => o.every((x) => x.ok)).length).toBeGreaterThanOrEqual(SEEDS.length - 1);
    expect(SEEDS.map((seed) => expectAgreement(seed, 64, false, true).ok)).toContain(true);
  });

  it('reads formula text results, inline strings, error and date cells as FastRowParser stores them, and hands back the rest', () => {
    for (const read of SEEDS.slice(-3))
      for (const size of [1, 7, 64, 1 << 20]) expect(expectAgreement(read, size).ok).toBe(true);
    for (const seed of TEXTS_HANDED_BACK)
      expect(expectAgreement(seed, 1 << 20)).toMatchObject({ refusal: 'fallback' });
    // Bytes that are not UTF-8 (TextDecoder would put U+FFFD in their place): handed back.
    const bad = Buffer.concat([
      Buffer.from('<row r="1"><c r="A1" t="str"><v>x'),
      Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80]),
      Buffer.from('</v></c></row>'),
    ]);
    expect(expectAgreement(bad, 1 << 20)).toMatchObject({ refusal: 'fallback' });
    expect(run('js', bad, 1 << 20, true, false).ok).toBe(true);
  });

  it('agrees on mutated rows: same output, same refusals, or the sheet handed back', () => {
    tally.read = tally.notFast = tally.fallback = 0;
    fc.assert(
      fc.property(
        fc.noBias(fc.nat(SEEDS.length + TEXTS_HANDED_BACK.length - 1)),
        fc.noBias(fc.array(EDIT, { minLength: 1, maxLength: 3 })),
        fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constant(1 << 20)),
        fc.boolean(),
        fc.boolean(),
        (seed, edits, size, alpha, date1904) => {
          expectAgreement(mutate([...SEEDS, ...TEXTS_HANDED_BACK][seed]!, edits), size, alpha, date1904);
        },
      ),
      { numRuns: 8000 },
    );
    // The mutations leave many inputs readable and refuse many: both sides of the rule are exercised.
    // (about 500 read, 900 handed back, 6,600 refused by both)
    expect(tally.read).toBeGreaterThan(250);
    expect(tally.notFast).toBeGreaterThan(2000);
  });

  it('writes dates as WorkbookValues does, in both date systems', () => {
    const kernel = rowsKernel()!;
    for (const date1904 of [false, true]) {
      // configure() sets the date system of date_json; one short sheet configures it.
      expectAgreement(SEEDS[1]!, 1 << 20, true, date1904);
      const values = new WorkbookValues([], date1904);
      const out = kernel.x.alloc(64);
      const serials = [
        0,
        1,
        59,
        60,
        61,
        366,
        1462,
        45293,
        65535,
        65536,
        2958465,
        0.5,
        1 / 3,
        0.99999999,
        45293.999994,
      ];
      let seed = 7;
      const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
      for (let k = 0; k < 20000; k++) serials.push(Math.round(random() * 2958465 * 1e6) / 1e6, random());
      for (const serial of serials) {
        for (const time of [false, true]) {
          if (time && serial >= 1) continue;
          const n = kernel.x.date_json(serial, time ? 1 : 0, out);
          const got = Buffer.from(kernel.bytes(out, n)).toString();
          if (got !== values.dateJson(serial, time))
            expect({ serial, time, date1904, got }).toBe(values.dateJson(serial, time));
        }
      }
    }
  });
});

describe('big sheets through the MCP tool', () => {
  let tmp: TempDir;
  let session: Session;
  beforeAll(async () => {
    tmp = await tempDir('exstruct-wasm-rows-');
    session = await connect(tmp.dir);
  });
  afterAll(async () => {
    await session.close();
    await tmp.remove();
  });

  /** A sheet of more than 8 MiB of XML: numbers, shared strings, dates, times, formulas, borders. */
  function bigSheet(richTextLast = false): string {
    const rows: string[] = [];
    const numbers = ['007', '-0', '1.50', '1E5', '0.000001', '123456789012345678', '-3.25'];
    let length = 0;
    let r = 1;
    for (; length < 8.5 * 1024 * 1024; r++) {
      const attrs = r === 7 ? ' hidden="1"' : r === 9 ? ' ht="30.75" customHeight="1"' : ' spans="1:6"';
      const row =
        `<row r="${r}"${attrs}><c r="A${r}"><v>${r}</v></c><c r="B${r}" t="s"><v>${r % SHARED.length}</v></c>` +
        `<c r="C${r}" s="1"><v>${40000 + (r % 900)}</v></c><c r="D${r}" s="3"><v>0.${r % 10}5</v></c>` +
        `<c r="E${r}" s="2"><f>A${r}*2</f><v>${r % 50 === 0 ? numbers[(r / 50) % numbers.length] : r * 2}</v></c>` +
        (r % 13 === 0 ? `<c r="F${r}" t="b"><v>${r % 2}</v></c>` : '') +
        (r % 17 === 0 ? `<c r="G${r}" t="e"><v>#N/A</v></c>` : '') +
        '</row>';
      rows.push(row);
      length += row.length;
    }
    if (richTextLast)
      rows.push(`<row r="${r}"><c r="A${r}" t="inlineStr"><is><r><t>rich</t></r></is></c></row>`);
    return `<sheetData>${rows.join('')}</sheetData>`;
  }

  async function extract(book: string, kernel: boolean): Promise<Buffer> {
    const before = process.env['EXSTRUCT_ROWS_KERNEL'];
    process.env['EXSTRUCT_ROWS_KERNEL'] = kernel ? '1' : '0';
    try {
      const result = await session.call<{ out_path: string }>('exstruct_extract', {
        xlsx_path: book,
        out_dir: kernel ? 'wasm' : 'js',
        format: 'json',
        mode: 'standard',
      });
      expect(result.isError, result.text).toBe(false);
      return await readFile(result.structured.out_path);
    } finally {
      if (before === undefined) delete process.env['EXSTRUCT_ROWS_KERNEL'];
      else process.env['EXSTRUCT_ROWS_KERNEL'] = before;
    }
  }

  /**
   * Extracts `book` with the kernel and without: the same bytes; the kernel read `read` sheets and handed
   * `handedBack` back (the run without it moves neither); each of `bits` is in the output.
   */
  async function expectSameAsJs(book: string, read: number, handedBack: number, bits: string[]) {
    const before = { ...rowsKernelStats };
    const wasm = await extract(book, true);
    const js = await extract(book, false);
    expect(rowsKernelStats.sheets - before.sheets).toBe(read);
    expect(rowsKernelStats.fallbacks - before.fallbacks).toBe(handedBack);
    expect(wasm.equals(js)).toBe(true);
    const text = wasm.toString();
    for (const bit of bits) expect(text, bit).toContain(bit);
  }

  it('writes byte for byte what the JS parser writes', async () => {
    await tmp.package('big.xlsx', {
      sheets: [{ name: 'Big', body: bigSheet() }],
      sharedStrings: SHARED,
      styles: STYLES,
    });
    // What the sheet holds: dates, times, shared strings, booleans, big numbers, errors.
    const bits = ['"2":"2009-07-07"', '"3":"03:36:00"', '"1":"日本語"', '"5":true', '"4":123456789012345680'];
    await expectSameAsJs('big.xlsx', 1, 0, [...bits, '"6":"#N/A"']);
  });

  it('hands a sheet with rich text near its end back to the JS parser, with the same output', async () => {
    await tmp.package('late.xlsx', {
      sheets: [{ name: 'Big', body: bigSheet(true) }],
      sharedStrings: SHARED,
      styles: STYLES,
    });
    await expectSameAsJs('late.xlsx', 0, 1, ['"0":"rich"']);
  });

  it('reads sheets from 1 MiB of XML, not smaller ones; hands back those it does not read', async () => {
    // Rows of a number, a shared string and a date, to a little over 1 MiB; then a row of `last`'s cell.
    const sheet = (first: number, last: (ref: string) => string) => {
      const rows: string[] = [];
      let r = 1;
      for (let length = 0; length < 1.05 * 1024 * 1024; r++) {
        const row =
          `<row r="${r}"><c r="A${r}"><v>${first + r}</v></c><c r="B${r}" t="s"><v>${r % SHARED.length}</v></c>` +
          `<c r="C${r}" s="1"><v>${40000 + (r % 900)}</v></c></row>`;
        rows.push(row);
        length += row.length;
      }
      return `<sheetData>${rows.join('')}<row r="${r}">${last(`A${r}`)}</row></sheetData>`;
    };
    const tiny = '<sheetData><row r="1"><c r="A1" t="s"><v>4</v></c></row></sheetData>';
    await tmp.package('mid.xlsx', {
      sheets: [
        { name: '小さい', body: tiny },
        { name: 'Mid1', body: sheet(0, (ref) => `<c r="${ref}" t="e"><v>#N/A</v></c>`) },
        {
          name: 'Mid2',
          body: sheet(1e6, (ref) => `<c r="${ref}" t="inlineStr"><is><r><t>rich</t></r></is></c>`),
        },
        { name: 'Mid3', body: sheet(2e6, (ref) => `<c r="${ref}"><v>0.5</v></c>`) },
      ],
      sharedStrings: SHARED,
      styles: STYLES,
    });
    // Mid1 and Mid3 read by the kernel, Mid2 handed back at its rich text, the tiny sheet never given.
    const bits = ['"小さい"', '"0":"#N/A"', '"0":"rich"', '"1":"日本語"', '"2":"2009-07-25"', '"0":2000001'];
    await expectSameAsJs('mid.xlsx', 2, 1, bits);
  });
});

describe('the kernel out of memory, and between extractions', () => {
  let tmp: TempDir;
  let session: Session;
  beforeAll(async () => {
    tmp = await tempDir('exstruct-wasm-memory-');
    session = await connect(tmp.dir);
    // 8.5 MiB of short cells (no `r`, one-digit values): about three times the cells the kernel makes
    // room for at the start (one per 40 bytes), so its columns grow while it reads.
    const rows: string[] = [];
    for (let r = 1, length = 0; length < 8.5 * 1024 * 1024; r++) {
      const row = `<row r="${r}">${'<c><v>7</v></c>'.repeat(10)}<c t="s"><v>${r % 3}</v></c></row>`;
      rows.push(row);
      length += row.length;
    }
    await tmp.package('short-cells.xlsx', {
      sheets: [{ name: 'Short', body: `<sheetData>${rows.join('')}</sheetData>` }],
      sharedStrings: ['a', 'b', 'c'],
    });
  });
  afterAll(async () => {
    setRowsKernelMaxBytes(0);
    await session.close();
    await tmp.remove();
  });

  async function extract(outDir: string): Promise<Buffer> {
    const result = await session.call<{ out_path: string }>('exstruct_extract', {
      xlsx_path: 'short-cells.xlsx',
      out_dir: outDir,
      format: 'json',
    });
    expect(result.isError, result.text).toBe(false);
    return await readFile(result.structured.out_path);
  }

  it('hands the sheet back to the JS parser when its memory cannot grow, with the same output', async () => {
    const { sheets, fallbacks } = rowsKernelStats;
    const whole = await extract('whole');
    expect(rowsKernelStats.sheets).toBe(sheets + 1);
    // Room for what the kernel takes at the start (its buffers, the first columns), not for their growth.
    setRowsKernelMaxBytes(0);
    const base = rowsKernel()!.x.memory.buffer.byteLength;
    setRowsKernelMaxBytes(base + 4.5 * 1024 * 1024);
    const capped = await extract('capped');
    setRowsKernelMaxBytes(0);
    expect(rowsKernelStats.fallbacks).toBe(fallbacks + 1);
    expect(rowsKernelStats.sheets).toBe(sheets + 1);
    expect(capped.equals(whole)).toBe(true);
  });

  it('makes a new instance for each extraction, so an idle server does not keep its memory', async () => {
    const { instances } = rowsKernelStats;
    await extract('first');
    await extract('second');
    expect(rowsKernelStats.instances).toBe(instances + 2);
  });
});

describe('the kernel build', () => {
  it('copies the checked-in kernel beside the extraction bundle', async () => {
    const dist = path.join(PACKAGE, 'dist', 'extract', 'rows-kernel.wasm');
    const built = await readFile(dist).catch(() => undefined);
    if (built)
      expect(built.equals(await readFile(path.join(PACKAGE, 'native', 'rows-kernel.wasm')))).toBe(true);
  });

  it('checks in what native/rows-kernel.c builds (when clang-14 and wasm-ld are here)', () => {
    // Prints "skipped" and succeeds without the toolchain; fails when the .wasm is not the source's.
    const out = execFileSync(process.execPath, ['scripts/build-rows-kernel.mjs', '--check'], {
      cwd: PACKAGE,
    }).toString();
    // CI installs the toolchain and requires the check (EXSTRUCT_REQUIRE_CLANG=1).
    expect(out).toMatch(
      process.env['EXSTRUCT_REQUIRE_CLANG'] === '1'
        ? /is what native\/rows-kernel.c builds/
        : /is what native\/rows-kernel.c builds|skipped/,
    );
  });
});
