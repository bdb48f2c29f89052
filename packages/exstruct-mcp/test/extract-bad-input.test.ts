// Every kind of bad input gets its own error code and a message that says what to do.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { validateInput } from '../src/extract/validate-input.js';
import { FIXTURES, packageParts, row, tempDir, zipBytes, type TempDir } from './extract-helpers.js';

let tmp: TempDir;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.remove());

const SIMPLE = {
  sheets: [{ name: 'S', body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>` }],
};

/** An OLE compound file header followed by the directory entry name Excel uses for encrypted packages. */
function fakeEncryptedWorkbook(): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  return Buffer.concat([
    header,
    Buffer.alloc(64),
    Buffer.from('EncryptedPackage', 'utf16le'),
    Buffer.alloc(128),
  ]);
}

describe('bad input', () => {
  it('NOT_A_ZIP for a file that is not a zip package', async () => {
    const file = await tmp.file('notes.xlsx', 'name,qty\napple,3\n');
    await expect(extractWorkbook(file)).rejects.toMatchObject({
      code: 'NOT_A_ZIP',
      message: expect.stringContaining('not a zip package'),
    });
  });

  it('CORRUPT_WORKBOOK for a truncated zip', async () => {
    const whole = zipBytes(packageParts(SIMPLE));
    const file = await tmp.file('cut.xlsx', whole.subarray(0, Math.floor(whole.length * 0.6)));
    await expect(extractWorkbook(file)).rejects.toMatchObject({
      code: 'CORRUPT_WORKBOOK',
      hint: expect.stringContaining('Re-download'),
    });
  });

  it('CORRUPT_WORKBOOK for a zip that holds no workbook, or malformed sheet XML', async () => {
    const docx = await tmp.file('doc.xlsx', zipBytes({ 'word/document.xml': '<w:document/>' }));
    await expect(extractWorkbook(docx)).rejects.toMatchObject({ code: 'CORRUPT_WORKBOOK' });
    const parts = packageParts(SIMPLE);
    parts['xl/worksheets/sheet1.xml'] =
      '<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></row></sheetData>';
    const broken = await tmp.file('broken.xlsx', zipBytes(parts));
    await expect(extractWorkbook(broken)).rejects.toMatchObject({
      code: 'CORRUPT_WORKBOOK',
      message: expect.stringContaining('xl/worksheets/sheet1.xml'),
    });
  });

  it('ZIP_BOMB when the archive declares more than the caps allow, before inflating anything', async () => {
    const bytes = zipBytes(packageParts(SIMPLE));
    // Rewrite the declared uncompressed size of every central-directory entry to 1.5 GB.
    let at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    while (at >= 0) {
      bytes.writeUInt32LE(1_500_000_000, at + 24);
      at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4);
    }
    const file = await tmp.file('bomb.xlsx', bytes);
    await expect(extractWorkbook(file)).rejects.toMatchObject({ code: 'ZIP_BOMB' });
  });

  it('ZIP_BOMB while inflating a part whose compression ratio is implausible', async () => {
    // 4 MB of padding inside the sheet deflates to a few KB: ratio far above the cap set here.
    const padded = `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>${' '.repeat(4 * 1024 * 1024)}`;
    const file = await tmp.package('padded.xlsx', { sheets: [{ name: 'S', body: padded }] });
    await expect(
      extractWorkbook(file, { zipLimits: { ratioFloorBytes: 1024 * 1024, maxRatio: 100 } }),
    ).rejects.toMatchObject({
      code: 'ZIP_BOMB',
      message: expect.stringContaining('compression ratio'),
    });
    // With the default caps the same (honest) file reads fine.
    expect((await extractWorkbook(file)).workbook.sheets.S?.rows).toEqual([{ r: 1, c: { '0': 1 } }]);
  });

  it('ENCRYPTED_WORKBOOK for a password-protected workbook (OLE file with an EncryptedPackage)', async () => {
    const file = await tmp.file('secret.xlsx', fakeEncryptedWorkbook());
    await expect(extractWorkbook(file)).rejects.toMatchObject({
      code: 'ENCRYPTED_WORKBOOK',
      hint: expect.stringContaining('Remove the password'),
    });
  });

  it('UNSUPPORTED_FORMAT for .xls, .xlsb and .csv, each naming the fix', async () => {
    await expect(extractWorkbook(path.join(FIXTURES, 'assets__sample.xls'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      details: { format: 'xls' },
      hint: expect.stringContaining('save it as .xlsx'),
    });
    const xlsb = await tmp.file('book.xlsb', zipBytes(packageParts(SIMPLE)));
    await expect(extractWorkbook(xlsb)).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      details: { format: 'xlsb' },
    });
    const csv = await tmp.file('data.csv', 'a,b\n1,2\n');
    await expect(extractWorkbook(csv)).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      details: { format: 'csv' },
      message: expect.stringContaining('plain-text CSV'),
    });
  });

  it('a missing file fails with ENOENT (the tools report it as NOT_FOUND)', async () => {
    await expect(extractWorkbook(path.join(tmp.dir, 'nope.xlsx'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('validateInput', () => {
  it('reports a readable workbook with its sheet names and warnings', async () => {
    const file = await tmp.package('macro.xlsm', SIMPLE);
    expect(await validateInput(file)).toEqual({
      is_readable: true,
      format: 'xlsm',
      sheet_names: ['S'],
      warnings: ['Macros (VBA) are neither run nor extracted.'],
      errors: [],
    });
  });

  it('returns problems instead of throwing, with the same codes as extraction', async () => {
    const encrypted = await tmp.file('locked.xlsx', fakeEncryptedWorkbook());
    const result = await validateInput(encrypted);
    expect(result.is_readable).toBe(false);
    expect(result.errors[0]?.code).toBe('ENCRYPTED_WORKBOOK');
    const legacy = await validateInput(path.join(FIXTURES, 'assets__sample.xls'));
    expect(legacy.errors.map((e) => e.code)).toEqual(['UNSUPPORTED_FORMAT']);
  });

  it('warns, as extraction does, about a sheet whose part is missing from the package', async () => {
    const parts = packageParts(SIMPLE);
    delete parts['xl/worksheets/sheet1.xml'];
    const file = await tmp.file('hollow.xlsx', zipBytes(parts));
    const result = await validateInput(file);
    // Extraction reads the workbook and leaves that sheet empty, saying so: validation agrees.
    expect(result.is_readable).toBe(true);
    expect(result.warnings).toEqual([expect.stringContaining('"S" has no worksheet part')]);
    expect((await extractWorkbook(file)).warnings).toEqual(result.warnings);
  });

  it('reads the real fixtures as readable', async () => {
    const bytes = await readFile(path.join(FIXTURES, 'basic__sample.xlsx'));
    const file = await tmp.file('copy.xlsx', bytes);
    expect((await validateInput(file)).is_readable).toBe(true);
  });
});
