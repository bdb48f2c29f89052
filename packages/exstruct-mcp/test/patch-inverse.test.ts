// Every op kind, through a real MCP client: apply it with return_inverse_ops, apply the inverse ops
// to the result, and compare what an independent reader (exceljs) sees with the original.
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OP_NAMES } from '../src/patch/op-schemas.js';
import {
  buildRichWorkbook,
  readPart,
  readWorkbook,
  sheetExtras,
  snapshot,
  validationOf,
  workspace,
  type Workspace,
} from './patch-helpers.js';
import { mutateWorkbook } from './workbook-traits.js';

interface PatchOut {
  out_path: string;
  patch_diff: { status: string }[];
  inverse_ops: Record<string, unknown>[];
  warnings: string[];
  error: unknown;
}

const CASES: { name: string; file: string; ops: Record<string, unknown>[] }[] = [
  {
    name: 'set_value',
    file: 'basic',
    ops: [
      { op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 'text' },
      { op: 'set_value', sheet: 'Sheet1', cell: 'H20', value: 3.5 },
    ],
  },
  {
    name: 'set_value (clearing a formula)',
    file: 'formula',
    ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C9', value: null }],
  },
  {
    name: 'set_formula',
    file: 'basic',
    ops: [{ op: 'set_formula', sheet: 'Sheet1', cell: 'C4', formula: '=D4*2' }],
  },
  {
    name: 'add_sheet',
    file: 'basic',
    ops: [
      { op: 'add_sheet', sheet: 'New' },
      { op: 'set_value', sheet: 'New', cell: 'A1', value: 1 },
    ],
  },
  {
    name: 'set_range_values',
    file: 'formula',
    ops: [
      {
        op: 'set_range_values',
        sheet: 'Sheet1',
        range: 'B9:C10',
        values: [
          [1, 'a'],
          [true, null],
        ],
      },
    ],
  },
  {
    name: 'fill_formula',
    file: 'basic',
    ops: [{ op: 'fill_formula', sheet: 'Sheet1', range: 'C4:E4', base_cell: 'C4', formula: '=C5+1' }],
  },
  {
    name: 'set_value_if',
    file: 'basic',
    ops: [{ op: 'set_value_if', sheet: 'Sheet1', cell: 'C4', expected: 120, value: 0 }],
  },
  {
    name: 'set_formula_if',
    file: 'basic',
    ops: [{ op: 'set_formula_if', sheet: 'Sheet1', cell: 'C4', expected: '120', formula: '=1+1' }],
  },
  { name: 'set_bold', file: 'basic', ops: [{ op: 'set_bold', sheet: 'Sheet1', range: 'B3:E4' }] },
  {
    name: 'set_font_size',
    file: 'basic',
    ops: [{ op: 'set_font_size', sheet: 'Sheet1', cell: 'B4', font_size: 16 }],
  },
  {
    name: 'set_font_color',
    file: 'basic',
    ops: [{ op: 'set_font_color', sheet: 'Sheet1', range: 'B4:C5', color: '#FF0000' }],
  },
  {
    name: 'set_fill_color',
    file: 'basic',
    ops: [{ op: 'set_fill_color', sheet: 'Sheet1', range: 'A1:C2', fill_color: '#D9E1F2' }],
  },
  {
    name: 'set_alignment',
    file: 'basic',
    ops: [
      {
        op: 'set_alignment',
        sheet: 'Sheet1',
        range: 'B3:E3',
        horizontal_align: 'center',
        vertical_align: 'top',
        wrap_text: true,
      },
    ],
  },
  {
    name: 'set_style',
    file: 'basic',
    ops: [
      {
        op: 'set_style',
        sheet: 'Sheet1',
        cell: 'E9',
        bold: true,
        font_size: 9,
        color: '#FFFFFF',
        fill_color: '#1F3864',
        horizontal_align: 'right',
      },
    ],
  },
  {
    name: 'draw_grid_border',
    file: 'basic',
    ops: [{ op: 'draw_grid_border', sheet: 'Sheet1', base_cell: 'G2', row_count: 3, col_count: 2 }],
  },
  {
    name: 'set_dimensions',
    file: 'basic',
    ops: [
      {
        op: 'set_dimensions',
        sheet: 'Sheet1',
        rows: [3, 12],
        row_height: 30,
        columns: ['B', 4],
        column_width: 25,
      },
    ],
  },
  { name: 'merge_cells', file: 'basic', ops: [{ op: 'merge_cells', sheet: 'Sheet1', range: 'C4:D5' }] },
  // Issue 27's ops. Charts and tables are not in the snapshot (exceljs reads neither): a cell edit
  // makes each case visible, and object-ops.test.ts checks the parts themselves.
  {
    name: 'auto_fit_columns',
    file: 'basic',
    ops: [{ op: 'auto_fit_columns', sheet: 'Sheet1', max_width: 40 }],
  },
  {
    name: 'apply_table_style, delete_table',
    file: 'basic',
    ops: [
      {
        op: 'set_range_values',
        sheet: 'Sheet1',
        range: 'H20:I22',
        values: [
          ['h1', 'h2'],
          [1, 2],
          [3, 4],
        ],
      },
      { op: 'set_range_values', sheet: 'Sheet1', range: 'H24:H25', values: [['h3'], [5]] },
      {
        op: 'apply_table_style',
        sheet: 'Sheet1',
        range: 'H20:I22',
        style: 'TableStyleLight9',
        table_name: 'Tbl_A',
      },
      {
        op: 'apply_table_style',
        sheet: 'Sheet1',
        range: 'H24:H25',
        style: 'TableStyleLight1',
        table_name: 'Tbl_B',
      },
      { op: 'delete_table', sheet: 'Sheet1', table_name: 'Tbl_B' },
    ],
  },
  {
    name: 'create_chart, delete_chart',
    file: 'basic',
    ops: [
      {
        op: 'set_range_values',
        sheet: 'Sheet1',
        range: 'H20:I22',
        values: [
          ['h1', 'h2'],
          ['a', 2],
          ['b', 4],
        ],
      },
      { op: 'create_chart', sheet: 'Sheet1', chart_type: 'column', data_range: 'H20:I22', anchor_cell: 'K2' },
      {
        op: 'create_chart',
        sheet: 'Sheet1',
        chart_type: 'pie',
        data_range: 'H20:I22',
        anchor_cell: 'K20',
        chart_name: 'Tmp',
      },
      { op: 'delete_chart', sheet: 'Sheet1', chart_name: 'Tmp' },
    ],
  },
  { name: 'unmerge_cells', file: 'formula', ops: [{ op: 'unmerge_cells', sheet: 'Sheet1', range: 'A1:C9' }] },
  {
    name: 'rename_sheet',
    file: 'rich',
    ops: [{ op: 'rename_sheet', sheet: 'Data', new_name: 'Figures2024' }],
  },
  { name: 'delete_sheet', file: 'rich', ops: [{ op: 'delete_sheet', sheet: 'Data' }] },
  {
    name: 'restore_design_snapshot',
    file: 'basic',
    ops: [
      {
        op: 'restore_design_snapshot',
        sheet: 'Sheet1',
        design_snapshot: {
          cell_styles: [{ cell: 'B4', style_id: 0 }],
          column_widths: [{ column: 'C', width: 30 }],
        },
      },
    ],
  },
];

let ws: Workspace;
const files: Record<string, string> = {};
beforeAll(async () => {
  ws = await workspace();
  files.basic = await ws.fixture('basic__sample.xlsx');
  files.formula = await ws.fixture('formula__formula.xlsx');
  files.rich = path.join(ws.dir, 'rich.xlsx');
  await buildRichWorkbook(files.rich);
});
afterAll(async () => ws.close());

describe('inverse ops restore the workbook (spec 12.7)', () => {
  it('covers every op kind', () => {
    const covered = new Set(CASES.flatMap((c) => c.ops.map((o) => o.op as string)));
    expect(OP_NAMES.filter((op) => !covered.has(op))).toEqual([]);
  });

  it.each(CASES)('$name', async ({ name, file, ops }) => {
    const input = files[file]!;
    const outName = `${name.replace(/\W+/g, '_')}.xlsx`;
    const patched = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops,
      out_name: outName,
      return_inverse_ops: true,
      on_conflict: 'overwrite',
    });
    expect(patched.isError, patched.text).toBe(false);
    expect(patched.structured.error).toBeNull();
    expect(patched.structured.patch_diff.every((d) => d.status === 'applied')).toBe(true);
    const original = await snapshot(input);
    expect(await snapshot(patched.structured.out_path)).not.toEqual(original);
    expect(patched.structured.inverse_ops.length).toBeGreaterThan(0);
    const restored = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: patched.structured.out_path,
      ops: patched.structured.inverse_ops,
      out_name: `restored_${outName}`,
      on_conflict: 'overwrite',
    });
    expect(restored.structured.error).toBeNull();
    expect(await snapshot(restored.structured.out_path)).toEqual(original);
  });
});

/** Applies ops with return_inverse_ops, then the inverse ops to the result; returns both outcomes. */
async function undo(
  input: string,
  ops: Record<string, unknown>[],
  name: string,
): Promise<{ patched: PatchOut; undone: string }> {
  const patched = await ws.call<PatchOut>('exstruct_patch', {
    xlsx_path: input,
    ops,
    out_name: `${name}-patched.xlsx`,
    return_inverse_ops: true,
    on_conflict: 'overwrite',
  });
  expect(patched.structured.error).toBeNull();
  const restored = await ws.call<PatchOut>('exstruct_patch', {
    xlsx_path: patched.structured.out_path,
    ops: patched.structured.inverse_ops,
    out_name: `${name}-undone.xlsx`,
    on_conflict: 'overwrite',
  });
  expect(restored.structured.error).toBeNull();
  return { patched: patched.structured, undone: restored.structured.out_path };
}

/** The defined names of a workbook as "name localSheetId body". */
async function definedNames(file: string): Promise<string[]> {
  const xml = await readPart(file, 'xl/workbook.xml');
  const entity: Record<string, string> = { apos: "'", quot: '"', amp: '&', lt: '<', gt: '>' };
  return [...xml.matchAll(/<definedName\b([^>]*)>([^<]*)<\/definedName>/g)]
    .map(([, attrs, body]) => {
      const name = /\bname="([^"]*)"/.exec(attrs!)?.[1];
      const local = /\blocalSheetId="(\d+)"/.exec(attrs!)?.[1] ?? '';
      return `${name} ${local} ${body!.replace(/&(\w+);/g, (_m, e: string) => entity[e] ?? _m)}`;
    })
    .sort();
}

/** exceljs writes array formulas with a fourth argument its types leave out. */
function fillArray(sheet: ExcelJS.Worksheet, range: string, formula: string, results: number[]): void {
  (sheet.fillFormula as (...args: unknown[]) => void)(range, formula, results, 'array');
}

describe('undo of delete_sheet brings back what the deletion broke or took along', () => {
  it('every cell of a shared formula group, whether its rows stream through or are loaded', async () => {
    const input = path.join(ws.dir, 'shared.xlsx');
    const wb = new ExcelJS.Workbook();
    const data = wb.addWorksheet('Data');
    for (let r = 2; r <= 5; r++) data.getCell(`A${r}`).value = r;
    wb.addWorksheet('Report').fillFormula('B2:B5', 'Data!A2*2', [4, 6, 8, 10]);
    await wb.xlsx.writeFile(input);
    expect(await readPart(input, 'xl/worksheets/sheet2.xml')).toContain('t="shared" ref="B2:B5"');
    const original = await snapshot(input);
    const extras: Record<string, Record<string, unknown>[]> = {
      streamed: [],
      loaded: [{ op: 'set_range_values', sheet: 'Report', range: 'C2:C5', values: [[1], [2], [3], [4]] }],
      'master loaded': [{ op: 'set_value', sheet: 'Report', cell: 'C2', value: 1 }],
      'dependent loaded': [{ op: 'set_value', sheet: 'Report', cell: 'C4', value: 1 }],
      'streamed, sheet renamed': [{ op: 'rename_sheet', sheet: 'Report', new_name: 'Summary' }],
    };
    for (const [name, extra] of Object.entries(extras)) {
      const { undone } = await undo(
        input,
        [...extra, { op: 'delete_sheet', sheet: 'Data' }],
        `shared ${name}`,
      );
      const report = (await readWorkbook(undone)).getWorksheet('Report')!;
      expect(
        ['B2', 'B3', 'B4', 'B5'].map((a) => report.getCell(a).formula),
        name,
      ).toEqual(['Data!A2*2', 'Data!A3*2', 'Data!A4*2', 'Data!A5*2']);
      expect(await snapshot(undone), name).toEqual(original);
    }
  });

  it('defined names, print areas, hidden states, validations and conditional formats', async () => {
    const input = path.join(ws.dir, 'names.xlsx');
    const wb = new ExcelJS.Workbook();
    const data = wb.addWorksheet('Data');
    ['a', 'b', 'c'].forEach((v, i) => (data.getCell(`A${i + 2}`).value = v));
    data.getCell('B2').value = 5;
    data.getCell('B3').value = 7;
    data.pageSetup.printArea = 'A1:C3';
    const report = wb.addWorksheet('Report');
    report.getCell('A1').value = { formula: 'SUM(Amounts)', result: 12 };
    sheetExtras(report).dataValidations.add!('C2:C4', {
      type: 'list',
      allowBlank: true,
      formulae: ['Data!$A$2:$A$4'],
    });
    report.addConditionalFormatting({
      ref: 'B2:B4',
      rules: [
        {
          type: 'expression',
          priority: 1,
          formulae: ['B2>Data!$B$2'],
          style: { fill: { type: 'pattern', pattern: 'solid', bgColor: { argb: 'FFFFC7CE' } } },
        },
      ],
    });
    const secret = wb.addWorksheet('Secret', { state: 'veryHidden' });
    secret.getCell('A1').value = 'hidden';
    wb.definedNames.add('Data!$B$2:$B$3', 'Amounts');
    await wb.xlsx.writeFile(input);

    const { patched, undone } = await undo(
      input,
      [
        { op: 'delete_sheet', sheet: 'Data' },
        { op: 'delete_sheet', sheet: 'Secret' },
      ],
      'names',
    );
    expect(patched.warnings.join('\n')).not.toMatch(/data validation|conditional formatting/);
    expect(await definedNames(patched.out_path)).toEqual(['Amounts  #REF!$B$2:$B$3']);
    expect(await definedNames(input)).toEqual([
      'Amounts  Data!$B$2:$B$3',
      "_xlnm.Print_Area 0 'Data'!$A1:$C3",
    ]);
    expect(await definedNames(undone)).toEqual(await definedNames(input));
    const book = await readWorkbook(undone);
    expect(book.worksheets.map((s) => [s.name, s.state])).toEqual([
      ['Data', 'visible'],
      ['Report', 'visible'],
      ['Secret', 'veryHidden'],
    ]);
    expect(book.getWorksheet('Data')!.pageSetup.printArea).toBe('A1:C3');
    const back = book.getWorksheet('Report')!;
    expect(validationOf(back, 'C2:C4')).toMatchObject({ formulae: ['Data!$A$2:$A$4'] });
    expect(sheetExtras(back).conditionalFormattings).toMatchObject([
      { rules: [{ formulae: ['B2>Data!$B$2'] }] },
    ]);
    expect(await snapshot(undone)).toEqual(await snapshot(input));
  });

  it('array formulas, on the deleted sheet and on the sheets that referred to it', async () => {
    const input = path.join(ws.dir, 'arrays.xlsx');
    const wb = new ExcelJS.Workbook();
    const data = wb.addWorksheet('Data');
    [1, 2, 3].forEach((v, i) => (data.getCell(`A${i + 1}`).value = v));
    fillArray(data, 'B1:B3', 'A1:A3*2', [2, 4, 6]);
    fillArray(wb.addWorksheet('Report'), 'C1:C3', 'Data!A1:A3*3', [3, 6, 9]);
    await wb.xlsx.writeFile(input);

    const { undone } = await undo(input, [{ op: 'delete_sheet', sheet: 'Data' }], 'arrays');
    const book = await readWorkbook(undone);
    expect(book.getWorksheet('Data')!.getCell('B1').value).toMatchObject({
      formula: 'A1:A3*2',
      shareType: 'array',
      ref: 'B1:B3',
    });
    expect(book.getWorksheet('Data')!.getCell('B3').value).toBe(6);
    expect(book.getWorksheet('Report')!.getCell('C1').value).toMatchObject({
      formula: 'Data!A1:A3*3',
      shareType: 'array',
      ref: 'C1:C3',
    });
    expect(await snapshot(undone)).toEqual(await snapshot(input));
  });
});

describe('undo of set_value restores the type of the cell', () => {
  it('error values stay errors, text that looks like a formula or a date stays text; rich text is named', async () => {
    const input = path.join(ws.dir, 'types.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('S');
    sheet.getCell('A1').value = { error: '#N/A' };
    sheet.getCell('A2').value = { richText: [{ font: { bold: true }, text: 'Bold' }, { text: ' tail' }] };
    sheet.getCell('A3').value = '=not a formula';
    sheet.getCell('A4').value = '2025-01-01';
    sheet.getCell('A4').numFmt = 'yyyy-mm-dd';
    await wb.xlsx.writeFile(input);
    const cells = ['A1', 'A2', 'A3', 'A4'];
    const variants = {
      set_value: cells.map((cell) => ({ op: 'set_value', sheet: 'S', cell, value: 'x' })),
      set_range_values: [
        { op: 'set_range_values', sheet: 'S', range: 'A1:A4', values: [['x'], ['x'], ['x'], ['x']] },
      ],
    };
    for (const [name, ops] of Object.entries(variants)) {
      const { patched, undone } = await undo(input, ops, `types ${name}`);
      expect(patched.warnings, name).toContainEqual(
        expect.stringMatching(/text of S!A2 but not the formatting runs/),
      );
      const back = (await readWorkbook(undone)).getWorksheet('S')!;
      expect(back.getCell('A1').value, name).toEqual({ error: '#N/A' });
      expect(back.getCell('A2').text, name).toBe('Bold tail');
      expect(back.getCell('A3').value, name).toBe('=not a formula');
      expect(back.getCell('A4').value, name).toBe('2025-01-01');
    }
    // Undo's limits are news only to a caller who asked for inverse ops.
    const plain = await ws.call<{ warnings: string[] }>('exstruct_patch', {
      xlsx_path: input,
      out_name: 'plain.xlsx',
      ops: variants.set_value,
    });
    expect(plain.structured.warnings.join(' ')).not.toMatch(/formatting runs/);
  });

  it('text with phonetic guides (ふりがな), shared or inline, is named too: undo restores the text only', async () => {
    const plainBook = path.join(ws.dir, 'furigana-source.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('名簿');
    sheet.getCell('A1').value = '東京都';
    sheet.getCell('A2').value = 'placeholder';
    await wb.xlsx.writeFile(plainBook);
    // Excel keeps a name's reading as <rPh> runs after its text: A1's in the shared strings, A2 inline.
    const input = path.join(ws.dir, 'furigana.xlsx');
    await mutateWorkbook(plainBook, input, {
      'xl/sharedStrings.xml': (xml) =>
        xml.replace('<t>東京都</t>', '<t>東京都</t><rPh sb="0" eb="3"><t>トウキョウト</t></rPh>'),
      'xl/worksheets/sheet1.xml': (xml) =>
        xml.replace(
          /<c r="A2"([^>]*?) t="s"([^>]*)><v>\d+<\/v><\/c>/,
          '<c r="A2"$1 t="inlineStr"$2><is><t>山田太郎</t><rPh sb="0" eb="2"><t>ヤマダ</t></rPh></is></c>',
        ),
    });
    const ops = ['A1', 'A2'].map((cell) => ({ op: 'set_value', sheet: '名簿', cell, value: 'x' }));
    const { patched, undone } = await undo(input, ops, 'furigana');
    expect(patched.warnings).toContainEqual(
      expect.stringMatching(/text of 名簿!A1, 名簿!A2 but not .*phonetic guides/),
    );
    const back = (await readWorkbook(undone)).getWorksheet('名簿')!;
    expect([back.getCell('A1').text, back.getCell('A2').text]).toEqual(['東京都', '山田太郎']);
  });
});
