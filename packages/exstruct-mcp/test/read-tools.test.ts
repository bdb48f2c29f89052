// Every extraction/reading tool through a real MCP client (in memory), including the error paths: the
// server answers each bad request with its own code and keeps serving.
import { copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToonText } from '@mcp-workbench/core/testing';
import { fromToonLayout } from '../src/output/toon-layout.js';
import { connect, FIXTURES, row, tempDir, type Session, type TempDir } from './extract-helpers.js';

let tmp: TempDir;
let session: Session;

interface ExtractResult {
  out_path: string;
  workbook_meta: { sheet_names: string[]; sheet_count: number };
  warnings: string[];
  sheet_paths?: string[];
  print_area_paths?: string[];
}

beforeAll(async () => {
  tmp = await tempDir('exstruct-tools-');
  for (const name of [
    'basic__sample.xlsx',
    'formula__formula.xlsx',
    'en_form_sf425__sample.xlsx',
    'assets__sample.xls',
  ]) {
    await copyFile(path.join(FIXTURES, name), path.join(tmp.dir, name));
  }
  const wide = Array.from({ length: 120 }, (_, i) =>
    row(
      i + 1,
      `<c r="A${i + 1}"><v>${i + 1}</v></c><c r="B${i + 1}" t="inlineStr"><is><t>item ${i + 1}</t></is></c><c r="AA${i + 1}"><v>${(i + 1) * 10}</v></c>`,
    ),
  ).join('');
  await tmp.package('two.xlsx', {
    sheets: [
      { name: 'Data', body: `<sheetData>${wide}</sheetData>` },
      {
        name: 'Notes',
        body: `<sheetData>${row(1, '<c r="A1" t="inlineStr"><is><t>hello</t></is></c>')}</sheetData>`,
      },
    ],
  });
  session = await connect(tmp.dir, { onConflict: 'rename' });
});
afterAll(async () => {
  await session.close();
  await tmp.remove();
});

async function extract(args: Record<string, unknown>): Promise<ExtractResult> {
  const result = await session.call<ExtractResult>('exstruct_extract', args);
  expect(result.isError, result.text).toBe(false);
  return result.structured;
}

describe('tool list', () => {
  it('offers the seven reading tools with titles, schemas and annotations', async () => {
    const { tools } = await session.client.client.listTools();
    const names = [
      'exstruct_validate_input',
      'exstruct_extract',
      'exstruct_read_json_chunk',
      'exstruct_read_range',
      'exstruct_read_cells',
      'exstruct_read_formulas',
      'exstruct_get_runtime_info',
    ];
    for (const name of names) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.title).toBeTruthy();
      expect(tool!.inputSchema.properties).toBeDefined();
      expect(tool!.annotations?.openWorldHint).toBe(false);
    }
    const extractDescription = tools.find((t) => t.name === 'exstruct_extract')!.description!;
    expect(extractDescription).toContain('exstruct_validate_input → exstruct_extract');
    expect(extractDescription).toMatch(/light.*standard.*verbose/s);
    expect(tools.find((t) => t.name === 'exstruct_read_json_chunk')!.description).toContain(
      '1-based and inclusive',
    );
    expect(tools.find((t) => t.name === 'exstruct_read_range')!.annotations?.readOnlyHint).toBe(true);
  });
});

describe('exstruct_validate_input', () => {
  it('says a workbook is readable and lists its sheets; refuses .xls with the fix', async () => {
    const ok = await session.call('exstruct_validate_input', { xlsx_path: 'basic__sample.xlsx' });
    expect(ok.structured).toMatchObject({ is_readable: true, sheet_names: ['Sheet1'], errors: [] });
    const xls = await session.call<{ is_readable: boolean; errors: Array<{ code: string; hint: string }> }>(
      'exstruct_validate_input',
      { xlsx_path: 'assets__sample.xls' },
    );
    expect(xls.structured.is_readable).toBe(false);
    expect(xls.structured.errors[0]).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      hint: expect.stringContaining('.xlsx'),
    });
  });
});

describe('exstruct_extract', () => {
  it('writes JSON next to the workbook and returns the sheet names', async () => {
    const result = await extract({ xlsx_path: 'basic__sample.xlsx' });
    expect(result.out_path).toBe(path.join(tmp.dir, 'basic__sample.json'));
    expect(result.workbook_meta).toEqual({ sheet_names: ['Sheet1'], sheet_count: 1 });
    const written = JSON.parse(await readFile(result.out_path, 'utf8'));
    expect(written.sheets.Sheet1.rows[1]).toEqual({
      r: 4,
      c: { '1': '2025-01-01', '2': 120, '3': 80, '4': 60 },
    });
    expect(written.sheets.Sheet1.shapes).toHaveLength(24);
  });

  it('applies the server --on-conflict default (rename) and lets the argument win', async () => {
    const first = await extract({ xlsx_path: 'formula__formula.xlsx', out_name: 'f.json' });
    const second = await extract({ xlsx_path: 'formula__formula.xlsx', out_name: 'f.json' });
    expect(path.basename(first.out_path)).toBe('f.json');
    expect(path.basename(second.out_path)).toBe('f_1.json');
    expect(second.warnings.join(' ')).toContain('f_1.json');
    const skipped = await extract({
      xlsx_path: 'formula__formula.xlsx',
      out_name: 'f.json',
      on_conflict: 'skip',
    });
    expect(skipped.out_path).toBe(first.out_path);
    expect(skipped.warnings.join(' ')).toContain('skip');
    await writeFile(first.out_path, 'stale');
    const over = await extract({
      xlsx_path: 'formula__formula.xlsx',
      out_name: 'f.json',
      on_conflict: 'overwrite',
    });
    expect(over.out_path).toBe(first.out_path);
    expect(await readFile(first.out_path, 'utf8')).toContain('"book_name":"formula__formula.xlsx"');
  });

  it('refuses an out_name whose extension names another format, and reads back what it writes', async () => {
    const res = await session.call('exstruct_extract', {
      xlsx_path: 'formula__formula.xlsx',
      format: 'yaml',
      out_name: 'book_yaml.json',
    });
    expect(res.error?.code).toBe('INVALID_ARGUMENT');
    expect(res.error?.message).toMatch(/extension of JSON, but format "yaml" writes YAML/);
    expect(await readdir(tmp.dir)).not.toContain('book_yaml.json');
    for (const [format, outName] of [
      ['yaml', 'book_yaml.yml'],
      ['toon', 'book_toon'],
    ]) {
      const ok = await extract({ xlsx_path: 'formula__formula.xlsx', format, out_name: outName });
      const chunk = await session.call('exstruct_read_json_chunk', { out_path: ok.out_path });
      expect(chunk.isError, chunk.text).toBe(false);
    }
  });

  it('creates a missing out_dir and writes TOON and YAML that decode to the same data', async () => {
    const toon = await extract({
      xlsx_path: 'formula__formula.xlsx',
      format: 'toon',
      out_dir: 'out/deep',
      mode: 'verbose',
    });
    expect(toon.out_path).toBe(path.join(tmp.dir, 'out', 'deep', 'formula__formula.toon'));
    const json = await extract({ xlsx_path: 'formula__formula.xlsx', out_dir: 'out/deep', mode: 'verbose' });
    const fromJson = JSON.parse(await readFile(json.out_path, 'utf8'));
    // TOON is written in the table layout; read back through it, it is the same data as the JSON.
    expect(fromToonLayout(decodeToonText(await readFile(toon.out_path, 'utf8')))).toEqual(fromJson);
    const yaml = await extract({
      xlsx_path: 'formula__formula.xlsx',
      format: 'yaml',
      out_dir: 'out/deep',
      mode: 'verbose',
    });
    expect(await readFile(yaml.out_path, 'utf8')).toContain('formulas_map:');
  });

  it('never names a per-sheet file after a Windows device (a sheet named CON or nul)', async () => {
    const wb = new ExcelJS.Workbook();
    for (const name of ['CON', 'nul', 'Com1', 'Console']) wb.addWorksheet(name).getCell('A1').value = name;
    await wb.xlsx.writeFile(path.join(tmp.dir, 'devices.xlsx'));
    const result = await extract({ xlsx_path: 'devices.xlsx', options: { sheets_dir: 'devices-sheets' } });
    expect(result.sheet_paths!.map((p) => path.basename(p))).toEqual([
      'CON_.json',
      'nul_.json',
      'Com1_.json',
      'Console.json',
    ]);
  });

  it('honours options: pretty JSON, alpha_col, one file per sheet and per print area', async () => {
    const result = await extract({
      xlsx_path: 'en_form_sf425__sample.xlsx',
      out_dir: 'opts',
      options: {
        pretty: true,
        indent: 4,
        alpha_col: true,
        sheets_dir: 'opts/sheets',
        print_areas_dir: 'opts/areas',
      },
    });
    const text = await readFile(result.out_path, 'utf8');
    expect(text.startsWith('{\n    "book_name"')).toBe(true);
    const data = JSON.parse(text);
    expect(data.sheets.FFR.merged_ranges).toContain('A1:X2');
    expect(data.sheets.FFR.merged_cells).toBeUndefined();
    expect(data.sheets.FFR.rows[0]).toEqual({ r: 1, c: { A: 'FEDERAL FINANCIAL REPORT' } });
    expect(Object.keys(data.sheets.FFR.rows.find((r: { r: number }) => r.r === 4).c)).toEqual([
      'A',
      'F',
      'U',
      'X',
    ]);
    expect(result.sheet_paths).toEqual([path.join(tmp.dir, 'opts', 'sheets', 'FFR.json')]);
    const sheetFile = JSON.parse(await readFile(result.sheet_paths![0]!, 'utf8'));
    expect(sheetFile).toMatchObject({ book_name: 'en_form_sf425__sample.xlsx', sheet_name: 'FFR' });
    expect(await readdir(path.join(tmp.dir, 'opts', 'areas'))).toEqual(['FFR_area1_r1-66_c0-23.json']);
    const area = JSON.parse(await readFile(result.print_area_paths![0]!, 'utf8'));
    expect(area.area).toEqual({ r1: 1, c1: 0, r2: 66, c2: 23 });
    expect(area.shapes[0].text).toBe('Not Required by EPA');
  });

  it('answers bad requests with their own codes and keeps serving', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ xlsx_path: 'missing.xlsx' }, 'NOT_FOUND'],
      [{ xlsx_path: '../outside.xlsx' }, 'PATH_OUTSIDE_ROOT'],
      [{ xlsx_path: 'assets__sample.xls' }, 'UNSUPPORTED_FORMAT'],
      [{ xlsx_path: 'basic__sample.xlsx', mode: 'full' }, 'INVALID_ARGUMENT'],
      [{ xlsx_path: 'basic__sample.xlsx', out_dir: '/' }, 'PATH_OUTSIDE_ROOT'],
    ];
    for (const [args, code] of cases) {
      const result = await session.call('exstruct_extract', args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.error?.code, JSON.stringify(args)).toBe(code);
    }
    // A bad output folder is refused before anything is written (no stray main output to clash with later).
    for (const options of [{ sheets_dir: '../escape' }, { print_areas_dir: '/' }]) {
      const refused = await session.call('exstruct_extract', {
        xlsx_path: 'basic__sample.xlsx',
        out_name: 'refused.json',
        options,
      });
      expect(refused.error?.code).toBe('PATH_OUTSIDE_ROOT');
      expect(await readdir(tmp.dir)).not.toContain('refused.json');
    }
    await writeFile(path.join(tmp.dir, 'fake.xlsx'), 'not a workbook');
    const fake = await session.call('exstruct_extract', { xlsx_path: 'fake.xlsx' });
    expect(fake.error).toMatchObject({ code: 'NOT_A_ZIP', hint: expect.any(String) });
    // Still serving.
    expect((await session.call('exstruct_validate_input', { xlsx_path: 'basic__sample.xlsx' })).isError).toBe(
      false,
    );
  });
});

describe('exstruct_read_json_chunk', () => {
  let twoSheets: string;
  beforeAll(async () => {
    twoSheets = (await extract({ xlsx_path: 'two.xlsx', out_dir: 'chunks' })).out_path;
  });

  interface Chunk {
    next_cursor: string | null;
    warnings: string[];
  }

  /** The chunk exactly as the text block carries it: the JSON after `"chunk":`. */
  function chunkText(result: { text: string }): string {
    const at = result.text.indexOf(',"chunk":');
    expect(at).toBeGreaterThan(0);
    return result.text.slice(at + ',"chunk":'.length, -1);
  }

  it('returns the whole output when it fits, with the chunk inline in the text block', async () => {
    const result = await session.call<Chunk>('exstruct_read_json_chunk', {
      out_path: twoSheets,
      max_bytes: 1_000_000,
    });
    expect(JSON.parse(chunkText(result))).toEqual(JSON.parse(await readFile(twoSheets, 'utf8')));
    expect(result.structured.next_cursor).toBeNull();
    const text = JSON.parse(result.text);
    expect(text.chunk.book_name).toBe('two.xlsx');
    expect(text.next_cursor).toBeNull();
  });

  it('says "Output is too large" with sheet and filter examples when it does not fit', async () => {
    const result = await session.call('exstruct_read_json_chunk', { out_path: twoSheets, max_bytes: 1000 });
    expect(result.error?.code).toBe('OUTPUT_TOO_LARGE');
    expect(result.error?.message).toMatch(/^Output is too large/);
    expect(result.error?.message).toContain('sheet="Data"');
    expect(result.error?.message).toContain('"rows":[1,200]');
  });

  it('requires a sheet when there are several, listing the names', async () => {
    const result = await session.call('exstruct_read_json_chunk', {
      out_path: twoSheets,
      filter: { rows: [1, 5] },
    });
    expect(result.error?.code).toBe('SHEET_REQUIRED');
    expect(result.error?.message).toContain('Sheet is required when multiple sheets exist');
    expect(result.error?.message).toContain('"Data", "Notes"');
    const unknown = await session.call('exstruct_read_json_chunk', { out_path: twoSheets, sheet: 'Nope' });
    expect(unknown.error?.code).toBe('SHEET_NOT_FOUND');
  });

  it('pages through a sheet with next_cursor: every row exactly once, each page within max_bytes', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await session.call<Chunk>('exstruct_read_json_chunk', {
        out_path: twoSheets,
        sheet: 'Data',
        max_bytes: 1500,
        ...(cursor ? { cursor } : {}),
      });
      expect(result.isError, result.text).toBe(false);
      expect(Buffer.byteLength(chunkText(result))).toBeLessThanOrEqual(1500);
      const page = JSON.parse(chunkText(result));
      expect(page.sheet_name).toBe('Data');
      seen.push(...page.sheet.rows.map((r: { r: number }) => r.r));
      cursor = result.structured.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(3);
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
  });

  it('filters rows and columns, 1-based inclusive, for numeric and letter keys alike', async () => {
    const numeric = await session.call<Chunk>('exstruct_read_json_chunk', {
      out_path: twoSheets,
      sheet: 'Data',
      filter: { rows: [3, 4], cols: [2, 27] },
    });
    expect(JSON.parse(chunkText(numeric)).sheet.rows).toEqual([
      { r: 3, c: { '1': 'item 3', '26': 30 } },
      { r: 4, c: { '1': 'item 4', '26': 40 } },
    ]);
    const alpha = (await extract({ xlsx_path: 'two.xlsx', out_dir: 'alpha', options: { alpha_col: true } }))
      .out_path;
    const lettered = await session.call<Chunk>('exstruct_read_json_chunk', {
      out_path: alpha,
      sheet: 'Data',
      filter: { rows: [3, 3], cols: [27, 27] },
    });
    expect(JSON.parse(chunkText(lettered)).sheet.rows).toEqual([{ r: 3, c: { AA: 30 } }]);
    const reversed = await session.call<Chunk>('exstruct_read_json_chunk', {
      out_path: twoSheets,
      sheet: 'Notes',
      filter: { rows: [5, 1] },
    });
    expect(reversed.structured.warnings).toEqual(['Row filter ignored because start > end.']);
  });

  it('refuses a cursor from another file, another sheet or a changed file', async () => {
    const first = await session.call<Chunk>('exstruct_read_json_chunk', {
      out_path: twoSheets,
      sheet: 'Data',
      max_bytes: 800,
    });
    const cursor = first.structured.next_cursor!;
    expect(cursor).toBeTruthy();
    const other = (await extract({ xlsx_path: 'two.xlsx', out_dir: 'other' })).out_path;
    const foreign = await session.call('exstruct_read_json_chunk', {
      out_path: other,
      sheet: 'Data',
      cursor,
    });
    expect(foreign.error).toMatchObject({
      code: 'CURSOR_MISMATCH',
      message: expect.stringContaining('another output file'),
    });
    const wrongSheet = await session.call('exstruct_read_json_chunk', {
      out_path: twoSheets,
      sheet: 'Notes',
      cursor,
    });
    expect(wrongSheet.error?.code).toBe('CURSOR_MISMATCH');
    const garbage = await session.call('exstruct_read_json_chunk', {
      out_path: twoSheets,
      sheet: 'Data',
      cursor: 'xyz',
    });
    expect(garbage.error?.code).toBe('INVALID_ARGUMENT');
    // Re-extracting rewrites the file: the old cursor no longer applies.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await extract({
      xlsx_path: 'two.xlsx',
      out_dir: 'chunks',
      on_conflict: 'overwrite',
      options: { pretty: true },
    });
    const stale = await session.call('exstruct_read_json_chunk', {
      out_path: twoSheets,
      sheet: 'Data',
      cursor,
    });
    expect(stale.error).toMatchObject({
      code: 'CURSOR_MISMATCH',
      message: expect.stringContaining('changed'),
    });
  });

  /** Every chunk of one sheet, in order, following next_cursor: the parsed chunks and their warnings. */
  async function allChunks(args: Record<string, unknown>) {
    const chunks: { sheet: Record<string, unknown> & { rows: { r: number }[] } }[] = [];
    const warnings: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await session.call<Chunk>('exstruct_read_json_chunk', { ...args, cursor });
      expect(page.isError, page.text.slice(0, 300)).toBe(false);
      const text = chunkText(page);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(args.max_bytes as number);
      chunks.push(JSON.parse(text));
      warnings.push(...page.structured.warnings);
      cursor = page.structured.next_cursor ?? undefined;
    } while (cursor !== undefined && chunks.length < 5000);
    return { chunks, warnings };
  }

  it('sends the sheet fields first, in pieces within max_bytes, when they exceed it; then the rows', async () => {
    const out = (await extract({ xlsx_path: 'basic__sample.xlsx', out_dir: 'meta' })).out_path;
    const whole = JSON.parse(await readFile(out, 'utf8')).sheets.Sheet1;
    const { chunks, warnings } = await allChunks({ out_path: out, sheet: 'Sheet1', max_bytes: 600 });
    expect(warnings[0]).toContain("The sheet's fields besides its rows exceed max_bytes");
    const firstRows = chunks.findIndex((c) => c.sheet.rows.length > 0);
    expect(firstRows).toBeGreaterThan(1); // the 24 shapes took more than one chunk
    const shapes = chunks.slice(0, firstRows).flatMap((c) => (c.sheet.shapes as unknown[] | undefined) ?? []);
    expect(shapes).toEqual(whole.shapes);
    expect(chunks.slice(firstRows).every((c) => c.sheet.shapes === undefined)).toBe(true);
    expect(chunks.flatMap((c) => c.sheet.rows)).toEqual(whole.rows);
  });

  it("cuts one map entry's long list across chunks: a formula used in 3,000 cells (verbose)", async () => {
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Calc');
    for (let r = 1; r <= 3000; r++) sheet.getCell(`A${r}`).value = { formula: '1+1', result: 2 };
    await wb.xlsx.writeFile(path.join(tmp.dir, 'same-formula.xlsx'));
    const out = (await extract({ xlsx_path: 'same-formula.xlsx', out_dir: 'meta', mode: 'verbose' }))
      .out_path;
    const whole = JSON.parse(await readFile(out, 'utf8')).sheets.Calc;
    expect(JSON.stringify(whole.formulas_map).length).toBeGreaterThan(20_000);
    const { chunks } = await allChunks({ out_path: out, sheet: 'Calc', max_bytes: 4000 });
    // A key that comes again continues its list.
    const joined: Record<string, unknown[]> = {};
    for (const chunk of chunks)
      for (const [formula, cells] of Object.entries(
        (chunk.sheet.formulas_map ?? {}) as Record<string, unknown[]>,
      ))
        joined[formula] = [...(joined[formula] ?? []), ...cells];
    expect(joined).toEqual(whole.formulas_map);
    expect(chunks.flatMap((c) => c.sheet.rows)).toEqual(whole.rows);
  });

  it('rejects a file that is not an extraction output', async () => {
    await writeFile(path.join(tmp.dir, 'random.json'), '{"hello": 1}');
    const result = await session.call('exstruct_read_json_chunk', { out_path: 'random.json' });
    expect(result.error?.code).toBe('INVALID_OUTPUT_FILE');
  });
});

describe('direct reads', () => {
  let verbose: string;
  let standard: string;
  beforeAll(async () => {
    verbose = (await extract({ xlsx_path: 'formula__formula.xlsx', out_dir: 'direct', mode: 'verbose' }))
      .out_path;
    standard = (await extract({ xlsx_path: 'formula__formula.xlsx', out_dir: 'direct-std', out_name: 'std' }))
      .out_path;
  });

  it('exstruct_read_range returns cells row by row, with formulas from a verbose output', async () => {
    const result = await session.call('exstruct_read_range', {
      out_path: verbose,
      range: 'b9:c10',
      include_formulas: true,
    });
    expect(result.structured).toEqual({
      book_name: 'formula__formula.xlsx',
      sheet_name: 'Sheet1',
      range: 'B9:C10',
      cells: [
        { cell: 'B9', value: 86 },
        { cell: 'C9', value: 'A', formula: '=_xlfn.IFS(B9>=85,"A",B9>=70,"B",B9>=60,"C",TRUE,"D")' },
        { cell: 'B10', value: 60 },
        { cell: 'C10', value: 'C', formula: '=_xlfn.IFS(B10>=85,"A",B10>=70,"B",B10>=60,"C",TRUE,"D")' },
      ],
      warnings: [],
    });
    const sparse = await session.call<{ cells: unknown[] }>('exstruct_read_range', {
      out_path: verbose,
      range: 'A5:E6',
      include_empty: false,
    });
    expect(sparse.structured.cells).toEqual([
      { cell: 'A5', value: '売上合計' },
      { cell: 'C5', value: 16000 },
    ]);
    const big = await session.call('exstruct_read_range', {
      out_path: verbose,
      range: 'A1:Z1000',
      max_cells: 100,
    });
    expect(big.error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('max_cells'),
    });
  });

  it("take a range as Excel writes it: 'Sheet'!A1:B2, whole columns A:C and rows 9:10, the sheet in any case", async () => {
    const cellsOf = async (args: Record<string, unknown>) => {
      const result = await session.call<{ range: string; cells: { cell: string }[] }>('exstruct_read_range', {
        out_path: verbose,
        include_empty: false,
        ...args,
      });
      expect(result.isError, result.text).toBe(false);
      return result.structured;
    };
    const plain = await cellsOf({ range: 'B9:C10' });
    expect(await cellsOf({ range: "'Sheet1'!B9:C10" })).toEqual(plain);
    expect(await cellsOf({ range: 'sheet1!$B$9:$C$10', sheet: 'SHEET1' })).toEqual(plain);
    const columns = await cellsOf({ range: 'B:C' });
    expect(columns.range).toMatch(/^B1:C\d+$/);
    expect(columns.cells.filter((c) => /^[BC](9|10)$/.test(c.cell))).toEqual(plain.cells);
    const rows = await cellsOf({ range: '9:10' });
    expect(rows.cells.filter((c) => /^[BC]/.test(c.cell))).toEqual(plain.cells);
    const formulas = await session.call<{ formulas: { cell: string }[] }>('exstruct_read_formulas', {
      out_path: verbose,
      range: "'Sheet1'!C:C",
    });
    expect(formulas.structured.formulas.map((f) => f.cell)).toContain('C9');
    const clash = await session.call('exstruct_read_range', {
      out_path: verbose,
      range: 'Other!A1',
      sheet: 'Sheet1',
    });
    expect(clash.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('"Other"'),
    });
  });

  it('exstruct_read_cells reads addresses, lists missing ones, warns when formulas are not available', async () => {
    const result = await session.call('exstruct_read_cells', {
      out_path: standard,
      addresses: ['A1', 'C5', 'Z99'],
    });
    expect(result.structured).toMatchObject({
      cells: [
        { cell: 'A1', value: '商品名' },
        { cell: 'C5', value: 16000 },
        { cell: 'Z99', value: null },
      ],
      missing_cells: ['Z99'],
      warnings: [expect.stringContaining("mode='verbose'")],
    });
    const bad = await session.call('exstruct_read_cells', { out_path: standard, addresses: ['A0'] });
    expect(bad.error?.code).toBe('INVALID_ARGUMENT');
  });

  it('does not send an agent to re-extract a verbose output whose sheet simply has no formulas', async () => {
    const out = (await extract({ xlsx_path: 'two.xlsx', out_dir: 'no-formulas', mode: 'verbose' })).out_path;
    const read = await session.call<{ formulas: unknown[]; warnings: string[] }>('exstruct_read_formulas', {
      out_path: out,
      sheet: 'Data',
    });
    expect(read.structured.formulas).toEqual([]);
    expect(read.structured.warnings.join(' ')).toMatch(
      /the sheet has no formulas, or it was extracted in light or standard mode/,
    );
  });

  it('exstruct_read_formulas lists formulas with cached values, optionally within a range', async () => {
    const all = await session.call<{ formulas: unknown[] }>('exstruct_read_formulas', {
      out_path: verbose,
      include_values: true,
    });
    expect(all.structured.formulas[0]).toEqual({ cell: 'C5', formula: '=SUM(B2:B4*C2:C4)', value: 16000 });
    expect(all.structured.formulas).toHaveLength(5);
    const some = await session.call<{ formulas: Array<{ cell: string }> }>('exstruct_read_formulas', {
      out_path: verbose,
      range: 'C10:C11',
    });
    expect(some.structured.formulas.map((f) => f.cell)).toEqual(['C10', 'C11']);
    const none = await session.call<{ formulas: unknown[]; warnings: string[] }>('exstruct_read_formulas', {
      out_path: standard,
    });
    expect(none.structured.formulas).toEqual([]);
    expect(none.structured.warnings[0]).toContain('verbose');
  });

  it('expands a shared formula with a 3-D reference per cell without shifting the sheet names', async () => {
    const month = { body: `<sheetData>${row(2, '<c r="B2"><v>1</v></c>')}</sheetData>` };
    const shared = (ref: string, first: boolean) =>
      first
        ? `<c r="${ref}"><f t="shared" ref="B2:C3" si="0">SUM(Jan:Mar!B2)</f><v>3</v></c>`
        : `<c r="${ref}"><f t="shared" si="0"/><v>0</v></c>`;
    await tmp.package('months.xlsx', {
      sheets: [
        { name: 'Jan', ...month },
        { name: 'Feb', ...month },
        { name: 'Mar', ...month },
        {
          name: 'Summary',
          body: `<sheetData>${row(2, shared('B2', true) + shared('C2', false))}${row(3, shared('B3', false) + shared('C3', false))}</sheetData>`,
        },
      ],
    });
    const out = (await extract({ xlsx_path: 'months.xlsx', out_dir: 'direct', mode: 'verbose' })).out_path;
    const read = await session.call<{ formulas: Array<{ cell: string; formula: string }> }>(
      'exstruct_read_formulas',
      { out_path: out, sheet: 'Summary' },
    );
    expect(read.structured.formulas.map((f) => `${f.cell} ${f.formula}`)).toEqual([
      'B2 =SUM(Jan:Mar!B2)',
      'C2 =SUM(Jan:Mar!C2)',
      'B3 =SUM(Jan:Mar!B3)',
      'C3 =SUM(Jan:Mar!C3)',
    ]);
  });

  it('answers read_json_chunk on a TOON output in TOON, at any indent it was written with', async () => {
    const toon = (
      await extract({
        xlsx_path: 'formula__formula.xlsx',
        out_dir: 'indented',
        format: 'toon',
        options: { indent: 4 },
      })
    ).out_path;
    expect(await readFile(toon, 'utf8')).toContain('\n            A2,商品A,800,10\n');
    const page = await session.call<{ next_cursor: null; chunk: Record<string, unknown> }>(
      'exstruct_read_json_chunk',
      { out_path: toon, sheet: 'Sheet1', filter: { rows: [2, 3], cols: [2, 3] } },
    );
    expect(page.format).toBe('toon');
    expect(page.text).toMatch(
      /^next_cursor: null\nwarnings: \[\]\nchunk:\n {2}book_name: formula__formula\.xlsx\n/,
    );
    // The merged value stays in the table: this page's rows do not hold A5.
    expect(page.text).toContain(
      '\n    rows[2]{cell,v1,v2}:\n      B2,800,10\n      B3,1000,2\n    table_candidates[2]: "A1:C5","A8:C12"\n    merged_cells[1]{from,to,v}:\n      A5,B5,売上合計',
    );
    const sheet = (fromToonLayout(page.structured.chunk) as { sheet: { rows: unknown[] } }).sheet;
    expect(sheet.rows).toEqual([
      { r: 2, c: { '1': 800, '2': 10 } },
      { r: 3, c: { '1': 1000, '2': 2 } },
    ]);
    const cells = await session.call<{ cells: unknown[] }>('exstruct_read_cells', {
      out_path: toon,
      addresses: ['A5', 'C5'],
    });
    expect(cells.structured.cells).toEqual([
      { cell: 'A5', value: '売上合計' },
      { cell: 'C5', value: 16000 },
    ]);
  });

  it('reads TOON and per-sheet outputs too', async () => {
    const toon = (await extract({ xlsx_path: 'formula__formula.xlsx', out_dir: 'direct', format: 'toon' }))
      .out_path;
    const cells = await session.call<{ cells: unknown[] }>('exstruct_read_cells', {
      out_path: toon,
      addresses: ['B2'],
    });
    expect(cells.structured.cells).toEqual([{ cell: 'B2', value: 800 }]);
    const sheets = await extract({
      xlsx_path: 'two.xlsx',
      out_dir: 'per',
      options: { sheets_dir: 'per/sheets' },
    });
    const notes = sheets.sheet_paths!.find((p) => p.endsWith('Notes.json'))!;
    const hello = await session.call<{ cells: unknown[] }>('exstruct_read_cells', {
      out_path: notes,
      addresses: ['A1'],
    });
    expect(hello.structured.cells).toEqual([{ cell: 'A1', value: 'hello' }]);
  });
});

describe('exstruct_get_runtime_info', () => {
  it('reports version, roots, the default on_conflict, formats and modes', async () => {
    await mkdir(path.join(tmp.dir, 'x'), { recursive: true });
    const result = await session.call<Record<string, unknown>>('exstruct_get_runtime_info', {});
    expect(result.structured).toMatchObject({
      name: 'exstruct-mcp',
      roots: [tmp.dir],
      default_on_conflict: 'rename',
      supported_formats: ['.xlsx', '.xlsm', '.xltx', '.xltm'],
      output_formats: ['json', 'toon', 'yaml'],
    });
    expect((result.structured.modes as Array<{ mode: string }>).map((m) => m.mode)).toEqual([
      'light',
      'standard',
      'verbose',
    ]);
  });

  it("names the limits a call meets: the read tools' and the images', as the tools enforce them", async () => {
    const info = await session.call<{ limits: Record<string, number> }>('exstruct_get_runtime_info', {});
    const { limits } = info.structured;
    expect(limits).toMatchObject({ max_answer_bytes: 2_000_000, max_images: 100 });
    const tools = (await session.client.client.listTools()).tools;
    const input = (name: string, field: string) =>
      (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { maximum?: number }>)[
        field
      ]!.maximum;
    expect(limits.max_chunk_bytes).toBe(input('exstruct_read_json_chunk', 'max_bytes'));
    expect(limits.max_range_cells).toBe(input('exstruct_read_range', 'max_cells'));
  });
});
