// Resource exhaustion (issue 14, item 8) as bounded stress tests through a real MCP client: the issue's
// three shapes at sizes that stay within seconds on a loaded machine — nesting far past the cap (an
// unbounded stack or tree would exhaust the heap), one row with no row break across many inflated chunks,
// one shared string across many chunks — each read and edited correctly. How time grows with the size
// is measured by bench/hostile.bench.mjs (`pnpm bench hostile`), not here.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageParts, zipBytes } from './extract-helpers.js';
import { readPart, workspace, type Workspace } from './patch-helpers.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => ws.close());

/** Content types with the overrides openpyxl needs to find the parts (it checks every written file). */
const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
  '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
  '</Types>';
const SHARED_STRINGS_TYPE =
  '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>';

async function workbook(name: string, sheetData: string, sharedStrings?: string): Promise<string> {
  const parts = packageParts({
    sheets: [{ name: 'Data', body: sheetData }],
    ...(sharedStrings !== undefined ? { sharedStrings } : {}),
  });
  const file = path.join(ws.dir, name);
  const types =
    sharedStrings === undefined
      ? CONTENT_TYPES
      : CONTENT_TYPES.replace('</Types>', `${SHARED_STRINGS_TYPE}</Types>`);
  await writeFile(file, zipBytes({ ...parts, '[Content_Types].xml': types }));
  return file;
}

/** Whitespace of every XML kind, varied so that it is not one repeated token. */
function whitespace(bytes: number): string {
  const unit = ' \t\n  \r\n \t \n';
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

describe('hostile sizes are read in bounded time and memory (issue 14, item 8)', () => {
  it('500,000 nested elements: refused as CORRUPT_WORKBOOK by extract, validate and patch, at the nesting cap', async () => {
    const n = 500_000;
    const file = await workbook(
      'nested.xlsx',
      `<sheetData><row r="1"><c r="A1" t="inlineStr"><is>${'<r>'.repeat(n)}${'</r>'.repeat(n)}</is></c></row></sheetData>`,
    );
    const extracted = await ws.call('exstruct_extract', { xlsx_path: file, out_name: 'nested.json' });
    expect(extracted.error?.code).toBe('CORRUPT_WORKBOOK');
    expect(extracted.error?.message).toMatch(/nested more than 512 levels/);
    const validated = await ws.call<{ is_readable: boolean; errors: { code: string }[] }>(
      'exstruct_validate_input',
      { xlsx_path: file },
    );
    expect(validated.structured.is_readable).toBe(false);
    expect(validated.structured.errors[0]!.code).toBe('CORRUPT_WORKBOOK');
    const patched = await ws.call('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'Data', cell: 'A1', value: 'x' }],
    });
    expect(patched.error?.code).toBe('CORRUPT_WORKBOOK');
  });

  it('a row holding 4 MB between its cells (no row break for the whole sheet): extracted and patched', async () => {
    const file = await workbook(
      'long-row.xlsx',
      `<sheetData><row r="1"><c r="A1"><v>1</v></c>${whitespace(4 << 20)}<c r="B1"><v>2</v></c></row><row r="2"><c r="A2"><v>3</v></c></row></sheetData>`,
    );
    const extracted = await ws.call('exstruct_extract', { xlsx_path: file, out_name: 'long-row.json' });
    expect(extracted.isError, extracted.text).toBe(false);
    const cells = await ws.call<{ cells: { cell: string; value: unknown }[] }>('exstruct_read_cells', {
      out_path: path.join(ws.dir, 'long-row.json'),
      sheet: 'Data',
      addresses: ['A1', 'B1', 'A2'],
    });
    expect(cells.isError, cells.text).toBe(false);
    expect(cells.structured.cells.map((c) => c.value)).toEqual([1, 2, 3]);
    const patched = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'Data', cell: 'C1', value: 'patched' }],
    });
    expect(patched.isError, patched.text).toBe(false);
    const xml = await readPart(patched.structured.out_path, 'xl/worksheets/sheet1.xml');
    expect(xml).toMatch(/<c r="B1"><v>2<\/v><\/c><c r="C1"[^>]*>.*patched.*<\/c><\/row>/);
    expect(xml).toMatch(/<row r="2"><c r="A2"><v>3<\/v><\/c><\/row>/);
  });

  it('an 8 MB shared string: the patch of another cell keeps it whole, and extraction reads it', async () => {
    const long = 'abcdefgh'.repeat(1 << 20);
    const file = await workbook(
      'long-string.xlsx',
      '<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c></row></sheetData>',
      `<si><t>${long}</t></si><si><t>short</t></si>`,
    );
    const patched = await ws.call<{ out_path: string }>('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'Data', cell: 'B1', value: 'patched' }],
    });
    expect(patched.isError, patched.text).toBe(false);
    const strings = await readPart(patched.structured.out_path, 'xl/sharedStrings.xml');
    expect(strings).toContain(`<si><t>${long}</t></si><si><t>short</t></si>`);
    const extracted = await ws.call('exstruct_extract', { xlsx_path: file, out_name: 'long-string.json' });
    expect(extracted.isError, extracted.text).toBe(false);
  });
});
