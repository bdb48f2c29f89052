// Cell values, dates, formulas, merges, links, fills and print areas, from hand-made packages so every
// XML form the engine must read is under the test's control.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import type { SheetData } from '../src/extract/model.js';
import { packageParts, row, tempDir, zipBytes, type PackageSpec, type TempDir } from './extract-helpers.js';

let tmp: TempDir;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.remove());

const STYLES =
  '<numFmts count="3"><numFmt numFmtId="164" formatCode="yyyy/mm/dd\\ hh:mm"/><numFmt numFmtId="165" formatCode="[h]:mm"/>' +
  '<numFmt numFmtId="166" formatCode="h:mm AM/PM"/></numFmts>' +
  '<fonts count="1"><font/></fonts>' +
  '<fills count="5"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
  '<fill><patternFill patternType="solid"><fgColor theme="8" tint="0.59999389629810485"/><bgColor indexed="64"/></patternFill></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFFCE4D6"/></patternFill></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFFFFFFF"/></patternFill></fill></fills>' +
  '<borders count="2"><border/><border><left style="thin"/><right style="thin"/><top style="thin"/><bottom style="thin"/></border></borders>' +
  '<cellXfs count="9">' +
  '<xf numFmtId="0" fillId="0" borderId="0"/>' + // 0 plain
  '<xf numFmtId="14" fillId="0" borderId="0"/>' + // 1 built-in date
  '<xf numFmtId="164" fillId="0" borderId="0"/>' + // 2 date + time
  '<xf numFmtId="165" fillId="0" borderId="0"/>' + // 3 elapsed hours: a number
  '<xf numFmtId="166" fillId="0" borderId="0"/>' + // 4 time of day
  '<xf numFmtId="0" fillId="2" borderId="0"/>' + // 5 theme fill with tint
  '<xf numFmtId="0" fillId="3" borderId="0"/>' + // 6 rgb fill
  '<xf numFmtId="0" fillId="4" borderId="0"/>' + // 7 white fill (left out)
  '<xf numFmtId="0" fillId="0" borderId="1"/>' + // 8 bordered
  '</cellXfs>';

async function sheetOf(
  spec: PackageSpec,
  options: Parameters<typeof extractWorkbook>[1] = {},
): Promise<SheetData> {
  const file = await tmp.package(`${Math.random().toString(36).slice(2)}.xlsx`, spec);
  const { workbook } = await extractWorkbook(file, options);
  return Object.values(workbook.sheets)[0]!;
}

describe('cell values', () => {
  it('resolves strings, numbers, booleans and errors the way an agent can trust', async () => {
    const sheet = await sheetOf({
      sharedStrings:
        '<si><t>plain</t></si>' +
        '<si><r><t>rich </t></r><r><rPr><b/></rPr><t>text</t></r></si>' +
        '<si><t>氏名</t><rPh sb="0" eb="2"><t>シメイ</t></rPh><phoneticPr fontId="1"/></si>' +
        '<si><t xml:space="preserve">   </t></si>' +
        '<si><t>line_x000D_break</t></si>',
      sheets: [
        {
          name: 'Values',
          body:
            '<sheetData>' +
            row(
              1,
              '<c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c><c r="E1" t="s"><v>4</v></c>',
            ) +
            row(
              2,
              '<c r="A2"><v>42</v></c><c r="B2"><v>-3.25</v></c><c r="C2"><v>1E-3</v></c><c r="D2" t="n"><v>7</v></c>',
            ) +
            row(
              3,
              '<c r="A3" t="b"><v>1</v></c><c r="B3" t="b"><v>0</v></c><c r="C3" t="e"><v>#DIV/0!</v></c><c r="D3" t="e"><f>1/0</f><v>#REF!</v></c>',
            ) +
            row(
              4,
              '<c r="A4" t="inlineStr"><is><t>inline</t></is></c><c r="B4" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="C4" t="d"><v>2024-02-29T10:00:00</v></c>',
            ) +
            row(
              5,
              '<c r="A5"/><c r="B5" t="inlineStr"><is><t> </t></is></c><c r="C5" t="str"><f>""</f><v></v></c>',
            ) +
            '</sheetData>',
        },
      ],
    });
    expect(sheet.rows).toEqual([
      { r: 1, c: { '0': 'plain', '1': 'rich text', '2': '氏名', '3': '   ', '4': 'line\rbreak' } },
      { r: 2, c: { '0': 42, '1': -3.25, '2': 0.001, '3': 7 } },
      { r: 3, c: { '0': true, '1': false, '2': '#DIV/0!', '3': '#REF!' } },
      { r: 4, c: { '0': 'inline', '1': 'ab', '2': '2024-02-29T10:00:00' } },
      // Blank strings are values (a formula answering "" too); a cell without a value is not.
      { r: 5, c: { '1': ' ', '2': '' } },
    ]);
  });

  it('turns numbers formatted as dates into ISO 8601, with the time only when it is not midnight', async () => {
    const sheet = await sheetOf({
      styles: STYLES,
      sheets: [
        {
          name: 'Dates',
          body:
            '<sheetData>' +
            row(
              1,
              '<c r="A1" s="1"><v>45658</v></c><c r="B1" s="2"><v>45658.5729166667</v></c><c r="C1" s="2"><v>45658</v></c>',
            ) +
            row(
              2,
              '<c r="A2" s="4"><v>0.75</v></c><c r="B2" s="3"><v>1.5</v></c><c r="C2" s="1"><v>59</v></c><c r="D2" s="1"><v>61</v></c>',
            ) +
            row(3, '<c r="A3" s="1"><v>-1</v></c><c r="B3" s="2"><v>45658.9999999999</v></c>') +
            '</sheetData>',
        },
      ],
    });
    expect(sheet.rows).toEqual([
      { r: 1, c: { '0': '2025-01-01', '1': '2025-01-01T13:45:00', '2': '2025-01-01' } },
      // A time-of-day format shows a time; an elapsed [h]:mm duration stays a number.
      { r: 2, c: { '0': '18:00:00', '1': 1.5, '2': '1900-02-28', '3': '1900-03-01' } },
      // Negative serials are not dates; float noise rounds to the next midnight.
      { r: 3, c: { '0': -1, '1': '2025-01-02' } },
    ]);
  });

  it('counts dates from 1904 when the workbook says so', async () => {
    const sheet = await sheetOf({
      styles: STYLES,
      date1904: true,
      sheets: [
        {
          name: 'Mac',
          body: `<sheetData>${row(1, '<c r="A1" s="1"><v>0</v></c><c r="B1" s="1"><v>44196</v></c>')}</sheetData>`,
        },
      ],
    });
    expect(sheet.rows).toEqual([{ r: 1, c: { '0': '1904-01-01', '1': '2025-01-01' } }]);
  });

  it('puts rows written out of order back in order and numbers cells without r', async () => {
    const sheet = await sheetOf({
      sheets: [
        {
          name: 'Loose',
          body: '<sheetData><row r="3"><c><v>3</v></c><c><v>4</v></c></row><row r="1"><c r="B1"><v>1</v></c><c><v>2</v></c></row></sheetData>',
        },
      ],
    });
    expect(sheet.rows).toEqual([
      { r: 1, c: { '1': 1, '2': 2 } },
      { r: 3, c: { '0': 3, '1': 4 } },
    ]);
  });
});

describe('the fast byte parser and the tokenizer in row batches', () => {
  const tricky: PackageSpec = {
    sharedStrings: ['<b>&', ' '], // written escaped (&lt;b&gt;&amp;) by the helper
    sheets: [
      {
        name: 'Batch',
        body:
          '<sheetData>' +
          row(
            1,
            '<c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><r><t>a &amp; </t></r><r><t>b</t></r><rPh><t>x</t></rPh></is></c>',
          ) +
          row(
            2,
            '<c r="A2" t="b"><v>1</v></c><c r="B2" t="e"><v>#N/A</v></c><c r="C2" t="str"><f>X</f><v><![CDATA[c<d]]></v></c>',
          ) +
          '<row r="3" ht="30" customHeight="1"/>' +
          row(4, '<c r="A4"><v>1.5</v></c>') +
          '</sheetData><mergeCells count="1"><mergeCell ref="A4:B4"/></mergeCells>',
      },
    ],
  };

  it('reads every value form exactly as the one-pass parser does', async () => {
    const onePass = await sheetOf(tricky, { fastRows: false, batches: false });
    const batched = await sheetOf(tricky, { fastRows: false, batches: { minBytes: 1 } });
    const fast = await sheetOf(tricky);
    expect(batched).toEqual(onePass);
    expect(fast).toEqual(onePass);
    expect(batched.rows).toEqual([
      { r: 1, c: { '0': '<b>&', '1': ' ', '2': 'a & b' } },
      { r: 2, c: { '0': true, '1': '#N/A', '2': 'c<d' } },
      { r: 4, c: { '0': 1.5 } },
    ]);
    expect(batched.merged_cells?.items).toEqual([[4, 0, 4, 1, '1.5']]);
  });

  it('handles sheets whose elements carry a namespace prefix', async () => {
    const file = await tmp.file(
      'prefixed.xlsx',
      zipBytes({
        ...packageParts({ sheets: [{ name: 'P', body: '' }] }),
        'xl/worksheets/sheet1.xml':
          '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' +
          '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>hi</x:t></x:is></x:c><x:c r="B1"><x:v>2</x:v></x:c></x:row>' +
          '</x:sheetData><x:mergeCells><x:mergeCell ref="C1:D1"/></x:mergeCells></x:worksheet>',
      }),
    );
    for (const options of [
      { fastRows: false, batches: false },
      { fastRows: false, batches: { minBytes: 1 } },
      {},
    ] as const) {
      const extraction = await extractWorkbook(file, options);
      const sheet = extraction.workbook.sheets.P!;
      expect(sheet.rows).toEqual([{ r: 1, c: { '0': 'hi', '1': 2 } }]);
      expect(sheet.merged_cells?.items).toEqual([[1, 2, 1, 3, ' ']]);
      expect(extraction.sheets[0]!.parsedWith.fast).toBe(options.fastRows !== false);
    }
  });

  it('reports malformed rows as CORRUPT_WORKBOOK, in batches or in one pass', async () => {
    const broken: PackageSpec = {
      sheets: [{ name: 'B', body: '<sheetData><row r="1"><c r="A1"><v>1</v></row></sheetData>' }],
    };
    const file = await tmp.package('broken-batch.xlsx', broken);
    for (const options of [
      { fastRows: false, batches: false },
      { fastRows: false, batches: { minBytes: 1 } },
      {},
    ] as const) {
      await expect(extractWorkbook(file, options)).rejects.toMatchObject({
        code: 'CORRUPT_WORKBOOK',
        message: expect.stringContaining('xl/worksheets/sheet1.xml'),
      });
    }
  });

  it('reads a worksheet without sheetData as an empty sheet', async () => {
    const sheet = await sheetOf({
      sheets: [{ name: 'E', body: '<mergeCells count="1"><mergeCell ref="A1:B2"/></mergeCells>' }],
    });
    expect(sheet.rows).toBeUndefined();
    expect(sheet.merged_cells?.items).toEqual([[1, 0, 2, 1, ' ']]);
  });
});

describe('formulas (verbose)', () => {
  it('expands shared formulas per cell and keeps array formulas and absolute references', async () => {
    const sheet = await sheetOf(
      {
        sheets: [
          {
            name: 'F',
            body:
              '<sheetData>' +
              row(
                2,
                '<c r="A2"><v>1</v></c><c r="B2"><f t="shared" ref="B2:B4" si="0">A2*$C$1+SUM(A$2:A2)</f><v>1</v></c><c r="D2"><f t="array" ref="D2">SUM(A2:A4*B2:B4)</f><v>9</v></c>',
              ) +
              row(3, '<c r="A3"><v>2</v></c><c r="B3"><f t="shared" si="0"/><v>4</v></c>') +
              row(
                4,
                '<c r="A4"><v>3</v></c><c r="B4"><f t="shared" si="0"/><v>9</v></c><c r="C4"><f>LOG10(A4)&amp;"A1"</f><v>0.47</v></c>',
              ) +
              '</sheetData>',
          },
        ],
      },
      { mode: 'verbose' },
    );
    expect(sheet.formulas_map).toEqual({
      '=A2*$C$1+SUM(A$2:A2)': [[2, 1]],
      '=SUM(A2:A4*B2:B4)': [[2, 3]],
      '=A3*$C$1+SUM(A$2:A3)': [[3, 1]],
      '=A4*$C$1+SUM(A$2:A4)': [[4, 1]],
      '=LOG10(A4)&"A1"': [[4, 2]],
    });
    // Cached values are what rows show.
    expect(sheet.rows?.[2]).toEqual({ r: 4, c: { '0': 3, '1': 9, '2': 0.47 } });
  });

  it('leaves formulas out of standard mode', async () => {
    const sheet = await sheetOf({
      sheets: [{ name: 'F', body: `<sheetData>${row(1, '<c r="A1"><f>1+1</f><v>2</v></c>')}</sheetData>` }],
    });
    expect(sheet.formulas_map).toBeUndefined();
    expect(sheet.rows).toEqual([{ r: 1, c: { '0': 2 } }]);
  });
});

const MERGED: PackageSpec = {
  sharedStrings: ['Title', 'Name', 'Qty', 'apple', 'pear'],
  sheets: [
    {
      name: 'Report',
      body:
        '<sheetData>' +
        row(1, '<c r="A1" t="s"><v>0</v></c><c r="B1"/><c r="C1"/>') +
        row(2, '<c r="A2" t="s"><v>1</v></c><c r="B2" t="s"><v>2</v></c>') +
        row(3, '<c r="A3" t="s"><v>3</v></c><c r="B3"><v>5</v></c>') +
        row(4, '<c r="A4" t="s"><v>4</v></c><c r="B4"><v>7</v></c>') +
        '</sheetData>' +
        '<mergeCells count="2"><mergeCell ref="A1:C1"/><mergeCell ref="D2:E4"/></mergeCells>' +
        '<hyperlinks><hyperlink ref="A3" r:id="rLink"/><hyperlink ref="A4" location="Report!B4"/><hyperlink ref="E9" r:id="rLink"/></hyperlinks>',
      rels: [['rLink', 'hyperlink', 'https://example.com/apple', 'External']],
    },
  ],
  definedNames:
    '<definedName name="_xlnm.Print_Area" localSheetId="0">Report!$A$1:$C$4,Report!$E$1:$F$2</definedName>' +
    '<definedName name="Other">Report!$A$1</definedName>',
};

describe('merged cells, links, print areas', () => {
  it('reports merges as {schema, items} with the value (or " ") and keeps the value in rows', async () => {
    const sheet = await sheetOf(MERGED);
    expect(sheet.merged_cells).toEqual({
      schema: ['r1', 'c1', 'r2', 'c2', 'v'],
      items: [
        [1, 0, 1, 2, 'Title'],
        [2, 3, 4, 4, ' '],
      ],
    });
    expect(sheet.rows?.[0]).toEqual({ r: 1, c: { '0': 'Title' } });
    expect(sheet.print_areas).toEqual([
      { r1: 1, c1: 0, r2: 4, c2: 2 },
      { r1: 1, c1: 4, r2: 2, c2: 5 },
    ]);
    // Standard mode has no hyperlinks.
    expect(sheet.rows?.some((r) => r.links)).toBe(false);
  });

  it('can leave merged values out of rows (the original include_merged_values_in_rows=False)', async () => {
    const sheet = await sheetOf(MERGED, { mergedValuesInRows: false });
    expect(sheet.rows?.[0]?.r).toBe(2);
    expect(sheet.merged_cells?.items[0]).toEqual([1, 0, 1, 2, 'Title']);
  });

  it('has no merged cells in light mode, and links on valued cells in verbose mode', async () => {
    expect((await sheetOf(MERGED, { mode: 'light' })).merged_cells).toBeUndefined();
    const verbose = await sheetOf(MERGED, { mode: 'verbose' });
    expect(verbose.rows?.find((r) => r.r === 3)).toEqual({
      r: 3,
      c: { '0': 'apple', '1': 5 },
      links: { '0': 'https://example.com/apple' },
    });
    expect(verbose.rows?.find((r) => r.r === 4)?.links).toEqual({ '0': '#Report!B4' });
    // A link on an empty cell does not invent a row.
    expect(verbose.rows?.some((r) => r.r === 9)).toBe(false);
  });

  it('with alpha_col uses letters for c and links and merged_ranges instead of merged_cells (spec 13)', async () => {
    const sheet = await sheetOf(MERGED, { mode: 'verbose', alphaCol: true });
    expect(sheet.rows?.find((r) => r.r === 3)).toEqual({
      r: 3,
      c: { A: 'apple', B: 5 },
      links: { A: 'https://example.com/apple' },
    });
    expect(sheet.merged_ranges).toEqual(['A1:C1', 'D2:E4']);
    expect(sheet.merged_cells).toBeUndefined();
    // Other indexes stay numbers (spec 13.2).
    expect(sheet.print_areas?.[0]).toEqual({ r1: 1, c1: 0, r2: 4, c2: 2 });
  });
});

describe('fills (verbose colors_map)', () => {
  it('maps resolved fill colours to cells, theme tints applied, plain white left out', async () => {
    const sheet = await sheetOf(
      {
        styles: STYLES,
        sheets: [
          {
            name: 'C',
            body: `<sheetData>${row(1, '<c r="A1" s="5"><v>1</v></c><c r="B1" s="6"/><c r="C1" s="7"><v>3</v></c>')}${row(2, '<c r="A2" s="5"/>')}</sheetData>`,
          },
        ],
      },
      { mode: 'verbose' },
    );
    expect(sheet.colors_map).toEqual({
      BDD7EE: [
        [1, 0],
        [2, 0],
      ],
      FCE4D6: [[1, 1]],
    });
  });
});

describe('table candidates', () => {
  const grid = (rows: number, cols: number, style = 0, firstRow = 1) =>
    Array.from({ length: rows }, (_, i) =>
      row(
        firstRow + i,
        Array.from({ length: cols }, (_, j) => {
          const ref = `${String.fromCharCode(65 + j)}${firstRow + i}`;
          return i === 0
            ? `<c r="${ref}" s="${style}" t="inlineStr"><is><t>h${j}</t></is></c>`
            : `<c r="${ref}" s="${style}"><v>${i * j}</v></c>`;
        }).join(''),
      ),
    ).join('');

  it('finds a dense block of values on a sheet without borders', async () => {
    const sheet = await sheetOf({ sheets: [{ name: 'T', body: `<sheetData>${grid(5, 3)}</sheetData>` }] });
    expect(sheet.table_candidates).toEqual(['A1:C5']);
  });

  it('keeps blank strings in rows but leaves them out of table blocks', async () => {
    // Column D holds "" and " " (a formula answering "" down the column) beside a 5 × 3 block.
    const body = grid(5, 3).replace(
      /<row r="(\d+)">(.*?)<\/row>/g,
      (_m, r: string, cells: string) =>
        `<row r="${r}">${cells}<c r="D${r}" t="str"><f>""</f><v>${Number(r) % 2 ? ' ' : ''}</v></c></row>`,
    );
    const sheet = await sheetOf({ sheets: [{ name: 'T', body: `<sheetData>${body}</sheetData>` }] });
    expect(sheet.rows?.map((r) => r.c['3'])).toEqual([' ', '', ' ', '', ' ']);
    expect(sheet.table_candidates).toEqual(['A1:C5']);
  });

  it('looks inside bordered regions when the sheet has borders, and lists Excel tables first', async () => {
    const sheet = await sheetOf({
      styles: STYLES,
      sheets: [
        {
          name: 'T',
          body:
            `<sheetData>${grid(4, 3, 8)}${grid(3, 2, 0, 10)}</sheetData>` +
            '<tableParts count="1"><tablePart r:id="rT"/></tableParts>',
          rels: [['rT', 'table', '../tables/table1.xml']],
        },
      ],
      parts: {
        'xl/tables/table1.xml':
          '<?xml version="1.0"?><table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Sales" displayName="Sales" ref="A10:B12"/>',
      },
    });
    // The unbordered block at A10 is not a border cluster; it is reported because it is an Excel table.
    expect(sheet.table_candidates).toEqual(['A10:B12', 'A1:C4']);
  });

  it('rejects blocks that do not look like tables (one row, one column, sparse)', async () => {
    const sheet = await sheetOf({
      sheets: [
        {
          name: 'T',
          body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c><c r="B1"><v>2</v></c><c r="C1"><v>3</v></c>')}${row(5, '<c r="E5"><v>1</v></c>')}${row(6, '<c r="E6"><v>2</v></c>')}</sheetData>`,
        },
      ],
    });
    expect(sheet.table_candidates).toBeUndefined();
  });
});

describe('sheet selection', () => {
  it('extracts only the named sheets and names the ones that exist when a name is wrong', async () => {
    const file = await tmp.package('two.xlsx', {
      sheets: [
        { name: 'One', body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>` },
        { name: 'Two', body: `<sheetData>${row(1, '<c r="A1"><v>2</v></c>')}</sheetData>` },
      ],
    });
    const only = await extractWorkbook(file, { sheets: ['Two'] });
    expect(Object.keys(only.workbook.sheets)).toEqual(['Two']);
    expect(only.sheetNames).toEqual(['One', 'Two']);
    await expect(extractWorkbook(file, { sheets: ['Three'] })).rejects.toMatchObject({
      code: 'SHEET_NOT_FOUND',
      hint: expect.stringContaining('"One", "Two"'),
    });
  });
});
