// A text written with a CR in it (a CRLF line break pasted from Windows, `住所1行目\r\n住所2行目`) keeps
// its CR: written raw in the XML, every reader turned it into LF, so the value read back — and the
// value an undo restores — was not the one written. Excel writes the CR as `_x000D_`; so does a patch.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { runWithOpenpyxl } from './independent-reader.js';
import { workspace, type Workspace } from './patch-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => {
  await ws.close();
});

const ADDRESS = '住所1行目\r\n住所2行目';
const OLD_MAC = '一行目\r二行目';

async function valuesOf(file: string): Promise<Record<string, unknown>> {
  const extraction = await extractWorkbook(file, { alphaCol: true, sheets: ['Sheet1'] });
  const out: Record<string, unknown> = {};
  for (const row of extraction.sheetPayloads()[0]!.sheet.rows ?? [])
    for (const [col, v] of Object.entries(row.c)) out[`${col}${row.r}`] = v;
  return out;
}

interface PatchOut {
  out_path: string;
  inverse_ops: Record<string, unknown>[];
}

async function patch(args: Record<string, unknown>): Promise<PatchOut> {
  const res = await ws.call<PatchOut>('exstruct_patch', args);
  expect(res.isError, res.text).toBe(false);
  return res.structured;
}

describe('a CR in a written text', () => {
  it('is read back as written, by us and by openpyxl, and an undo restores it', async () => {
    const source = await ws.fixture('basic__sample.xlsx', 'source.xlsx');
    const first = await patch({
      xlsx_path: source,
      out_name: 'first.xlsx',
      ops: [
        { op: 'set_value', sheet: 'Sheet1', cell: 'H1', value: ADDRESS },
        { op: 'set_value', sheet: 'Sheet1', cell: 'H2', value: OLD_MAC },
      ],
    });
    expect(await valuesOf(first.out_path)).toMatchObject({ H1: ADDRESS, H2: OLD_MAC });
    const read = await runWithOpenpyxl(
      'import json, sys, openpyxl\nws = openpyxl.load_workbook(sys.argv[1])["Sheet1"]\nprint(json.dumps([ws["H1"].value, ws["H2"].value]))',
      [first.out_path],
    );
    if (read !== undefined) expect(JSON.parse(read)).toEqual([ADDRESS, OLD_MAC]);

    // Overwritten, then undone with the inverse ops the overwrite answered.
    const second = await patch({
      xlsx_path: first.out_path,
      out_name: 'second.xlsx',
      return_inverse_ops: true,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'H1', value: 'x' }],
    });
    const undone = await patch({
      xlsx_path: second.out_path,
      out_name: 'undone.xlsx',
      ops: second.inverse_ops,
    });
    expect((await valuesOf(undone.out_path)).H1).toBe(ADDRESS);
    expect(path.basename(undone.out_path)).toBe('undone.xlsx');
  });
});
