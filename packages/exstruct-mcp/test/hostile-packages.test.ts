// Hostile packages and names against extraction, validation and editing (issue 14, Low): a package
// that holds a part twice, cell references beyond Excel's grid, rename candidates that the deny globs
// refuse, and workbooks that validation must judge exactly as extraction does.
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PathPolicy, silentLogger } from '@mcp-workbench/core';
import { callTool, connectInMemory, type TestClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import {
  connect,
  packageParts,
  row,
  tempDir,
  zipBytes,
  type Session,
  type TempDir,
} from './extract-helpers.js';
import { runWithOpenpyxl } from './independent-reader.js';

let tmp: TempDir;
let session: Session;
beforeAll(async () => {
  tmp = await tempDir('exstruct-hostile-');
  session = await connect(tmp.dir);
});
afterAll(async () => {
  await session.close();
  await tmp.remove();
});

const sheetWith = (sheetData: string) => packageParts({ sheets: [{ name: 'S', body: sheetData }] });

/** Content types that openpyxl needs to find the workbook (the minimal package relies on defaults). */
const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
  '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
  '</Types>';
const SHEET = 'xl/worksheets/sheet1.xml';

/** The same parts, with `part` added a second time (under `as`) holding `content`. */
function withSecondCopy(
  parts: Record<string, string>,
  part: string,
  content: string,
  as = part,
): Array<[string, string]> {
  return [...Object.entries(parts), [as, content]];
}

async function files(): Promise<string[]> {
  return (await readdir(tmp.dir)).sort();
}

describe('a package that holds a part twice', () => {
  const first = {
    ...sheetWith(`<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>`),
    '[Content_Types].xml': CONTENT_TYPES,
  };
  const second = sheetWith(`<sheetData>${row(1, '<c r="A1"><v>2</v></c>')}</sheetData>`)[SHEET]!;

  it('is refused by extract, validate and patch alike (readers disagree on which copy counts)', async () => {
    const file = await tmp.file('twice.xlsx', zipBytes(withSecondCopy(first, SHEET, second)));
    // Python's zipfile, and so openpyxl and pandas, reads the last copy; a reader keeping the first
    // would show a checker one workbook and Excel another.
    const seen = await runWithOpenpyxl(
      'import sys, openpyxl; print(openpyxl.load_workbook(sys.argv[1])["S"]["A1"].value)',
      [file],
    );
    if (seen !== undefined) expect(seen.trim()).toBe('2');
    const before = await files();

    const extracted = await session.call('exstruct_extract', { xlsx_path: file });
    expect(extracted.error).toMatchObject({ code: 'CORRUPT_WORKBOOK' });
    expect(extracted.error?.message).toContain(`"${SHEET}" twice`);
    const validated = await session.call<{ is_readable: boolean; errors: { code: string }[] }>(
      'exstruct_validate_input',
      { xlsx_path: file },
    );
    expect(validated.structured).toMatchObject({
      is_readable: false,
      errors: [{ code: 'CORRUPT_WORKBOOK' }],
    });
    const patched = await session.call('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'S', cell: 'B1', value: 3 }],
    });
    expect(patched.error).toMatchObject({ code: 'CORRUPT_WORKBOOK' });
    expect(await files()).toEqual(before); // nothing written
  });

  it('counts two spellings of one part name as the same part (OPC names ignore case)', async () => {
    const file = await tmp.file(
      'spellings.xlsx',
      zipBytes(withSecondCopy(first, SHEET, second, 'xl/worksheets/Sheet1.xml')),
    );
    const extracted = await session.call('exstruct_extract', { xlsx_path: file });
    expect(extracted.error).toMatchObject({ code: 'CORRUPT_WORKBOOK' });
    expect(extracted.error?.message).toContain('two spellings');
  });
});

describe('cell references beyond the grid', () => {
  it.each([
    [
      'row 4294967297 (2^32 + 1, which wraps onto row 1)',
      '<row r="4294967297"><c r="A4294967297"><v>7</v></c></row>',
    ],
    ['row 1048577, one past the last', '<row r="1048577"><c r="A1048577"><v>7</v></c></row>'],
    ['a column past XFD', '<row r="1"><c r="XFE1"><v>7</v></c></row>'],
    ['a column of seven letters', '<row r="1"><c r="AAAAAAA1"><v>7</v></c></row>'],
    [
      'rows numbered by position past the last',
      '<row r="1048576"><c><v>1</v></c></row><row><c><v>2</v></c></row>',
    ],
  ])('%s: refused by extract, validate and patch, never read as another cell', async (_name, rows) => {
    const file = await tmp.file(
      `grid-${Math.random().toString(36).slice(2)}.xlsx`,
      zipBytes(sheetWith(`<sheetData>${rows}</sheetData>`)),
    );
    const before = await files();
    const extracted = await session.call('exstruct_extract', { xlsx_path: file });
    expect(extracted.error, extracted.text).toMatchObject({ code: 'CORRUPT_WORKBOOK' });
    expect(extracted.error?.message).toMatch(/beyond Excel's grid/);
    const validated = await session.call('exstruct_validate_input', { xlsx_path: file });
    expect(validated.structured).toMatchObject({
      is_readable: false,
      errors: [{ code: 'CORRUPT_WORKBOOK' }],
    });
    const patched = await session.call('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'S', cell: 'A1', value: 3 }],
    });
    expect(patched.error).toMatchObject({ code: 'CORRUPT_WORKBOOK' });
    expect(await files()).toEqual(before);
  });

  it('still reads the last row and the last column', async () => {
    const file = await tmp.file(
      'corner.xlsx',
      zipBytes(sheetWith(`<sheetData><row r="1048576"><c r="XFD1048576"><v>9</v></c></row></sheetData>`)),
    );
    const extracted = await session.call<{ out_path: string }>('exstruct_extract', {
      xlsx_path: file,
      options: { alpha_col: true },
    });
    expect(extracted.isError, extracted.text).toBe(false);
    const read = await session.call('exstruct_read_cells', {
      out_path: extracted.structured.out_path,
      addresses: ['XFD1048576'],
    });
    expect(read.text).toContain('9');
  });
});

describe('on_conflict "rename" and the deny globs', () => {
  let dir: TempDir;
  let client: TestClient;
  beforeAll(async () => {
    dir = await tempDir('exstruct-rename-');
    const paths = await PathPolicy.create({ roots: [dir.dir], denyGlobs: ['**/*_1.*', '**/*_2.json'] });
    client = await connectInMemory(createServer({ paths, logger: silentLogger }));
  });
  afterAll(async () => {
    await client.close();
    await dir.remove();
  });

  it('never proposes or writes a name the deny globs refuse', async () => {
    const book = await dir.package('book.xlsx', {
      sheets: [{ name: 'S', body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>` }],
    });
    await writeFile(path.join(dir.dir, 'book.json'), '{"somebody":"else"}');
    const extracted = await callTool<{ out_path: string; warnings: string[] }>(
      client.client,
      'exstruct_extract',
      {
        xlsx_path: book,
        on_conflict: 'rename',
      },
    );
    expect(extracted.isError, extracted.text).toBe(false);
    // book_1.json and book_2.json are denied: the first allowed free name is book_3.json.
    expect(path.basename(extracted.structured.out_path)).toBe('book_3.json');
    expect(existsSync(path.join(dir.dir, 'book_1.json'))).toBe(false);

    await writeFile(path.join(dir.dir, 'book_patched.xlsx'), 'somebody else');
    const ops = [{ op: 'set_value', sheet: 'S', cell: 'B1', value: 2 }];
    const dry = await callTool<{ out_path: string }>(client.client, 'exstruct_patch', {
      xlsx_path: book,
      ops,
      on_conflict: 'rename',
      dry_run: true,
    });
    expect(path.basename(dry.structured.out_path)).toBe('book_patched_2.xlsx');
    const patched = await callTool<{ out_path: string }>(client.client, 'exstruct_patch', {
      xlsx_path: book,
      ops,
      on_conflict: 'rename',
    });
    expect(patched.isError, patched.text).toBe(false);
    expect(path.basename(patched.structured.out_path)).toBe('book_patched_2.xlsx');
    expect(existsSync(path.join(dir.dir, 'book_patched_1.xlsx'))).toBe(false);
  });
});

describe('validate_input judges a workbook exactly as extract does', () => {
  const cases: Array<[string, Record<string, string> | Array<[string, string]>]> = [
    [
      'a sheet whose XML is not well-formed',
      sheetWith('<sheetData><row r="1"><c r="A1"><v>1</v></row></sheetData>'),
    ],
    ['a cell beyond the grid', sheetWith('<sheetData><row r="4294967297"><c><v>1</v></c></row></sheetData>')],
    ['an undeclared prefix in a sheet', sheetWith('<sheetData><x:row r="1"/></sheetData>')],
    [
      'shared strings that are not well-formed',
      packageParts({
        sheets: [{ name: 'S', body: `<sheetData>${row(1, '<c r="A1" t="s"><v>0</v></c>')}</sheetData>` }],
        sharedStrings: '<si><t>open',
      }),
    ],
    ['a readable workbook', sheetWith(`<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>`)],
    [
      'a sheet without its part',
      Object.fromEntries(Object.entries(sheetWith('<sheetData/>')).filter(([name]) => name !== SHEET)),
    ],
  ];
  it.each(cases)('%s', async (_name, parts) => {
    const file = await tmp.file(`agree-${Math.random().toString(36).slice(2)}.xlsx`, zipBytes(parts));
    for (const mode of ['light', 'standard', 'verbose']) {
      const validated = await session.call<{
        is_readable: boolean;
        errors: { code: string }[];
        warnings: string[];
      }>('exstruct_validate_input', { xlsx_path: file, mode });
      const extracted = await session.call<{ warnings: string[] }>('exstruct_extract', {
        xlsx_path: file,
        mode,
        on_conflict: 'overwrite',
      });
      expect(validated.structured.is_readable, `${mode}: ${extracted.text}`).toBe(!extracted.isError);
      if (extracted.isError) expect(validated.structured.errors[0]!.code).toBe(extracted.error!.code);
      else
        for (const warning of extracted.structured.warnings)
          expect(validated.structured.warnings).toContain(warning);
    }
  });
});

describe('an extract that writes several files', () => {
  const threeSheets = {
    sheets: ['A', 'B', 'C'].map((name) => ({
      name,
      body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>`,
    })),
  };
  /** Every file under `dir`, relative, temp files included. */
  async function tree(dir: string): Promise<string[]> {
    return (await readdir(dir, { recursive: true })).map(String).sort();
  }

  it('writes none of them when one is refused (a denied sheet file), and leaves no temp file', async () => {
    const dir = await tempDir('exstruct-all-or-nothing-');
    const paths = await PathPolicy.create({ roots: [dir.dir], denyGlobs: ['**/sheets/B.json'] });
    const client = await connectInMemory(createServer({ paths, logger: silentLogger }));
    try {
      const book = await dir.package('three.xlsx', threeSheets);
      await mkdir(path.join(dir.dir, 'sheets'));
      const before = await tree(dir.dir);
      const res = await callTool(client.client, 'exstruct_extract', {
        xlsx_path: book,
        options: { sheets_dir: 'sheets' },
      });
      expect(res.error).toMatchObject({ code: 'PATH_DENIED' });
      // Neither three.json nor sheets/A.json: all or nothing.
      expect(await tree(dir.dir)).toEqual(before);
    } finally {
      await client.close();
      await dir.remove();
    }
  });

  it('writes none of them when a target cannot be a file, and all of them otherwise', async () => {
    const book = await tmp.package('three.xlsx', threeSheets);
    await mkdir(path.join(tmp.dir, 'per-sheet', 'C.json'), { recursive: true }); // a folder in the way
    const before = await files();
    const res = await session.call('exstruct_extract', {
      xlsx_path: book,
      on_conflict: 'overwrite',
      options: { sheets_dir: 'per-sheet' },
    });
    expect(res.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await files()).toEqual(before);
    expect(await readdir(path.join(tmp.dir, 'per-sheet'))).toEqual(['C.json']);

    const ok = await session.call<{ sheet_paths: string[] }>('exstruct_extract', {
      xlsx_path: book,
      options: { sheets_dir: 'sheets-ok' },
    });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.structured.sheet_paths.map((p) => path.basename(p))).toEqual(['A.json', 'B.json', 'C.json']);
    expect((await readdir(path.join(tmp.dir, 'sheets-ok'))).sort()).toEqual(['A.json', 'B.json', 'C.json']);
  });
});
