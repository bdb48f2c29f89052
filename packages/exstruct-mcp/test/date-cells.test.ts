// A date written with value_type "date" shows as a date in Excel and LibreOffice: a cell without a date
// format gets the built-in short date (under General, Excel shows 45382 for 2024-03-31). Checked with
// openpyxl; undo puts the old format back.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runWithOpenpyxl } from './independent-reader.js';
import { workspace, type Workspace } from './patch-helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws?.close());

interface PatchOut {
  out_path: string;
  inverse_ops: unknown[];
}

/** Each cell's value type and number format as openpyxl reads them. */
const FORMATS = `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Sheet1']
print(json.dumps({c: [type(ws[c].value).__name__, ws[c].number_format, ws[c].font.b] for c in sys.argv[2:]}))
`;
const formats = async (file: string, ...cells: string[]) =>
  JSON.parse((await runWithOpenpyxl(FORMATS, [file, ...cells]))!) as Record<
    string,
    [string, string, boolean]
  >;

it("writes a date a spreadsheet shows as a date, keeping the cell's other formatting, and undo restores the format", async () => {
  const input = await ws.fixture('basic__sample.xlsx', 'dates.xlsx');
  const bold = await ws.call<PatchOut>('exstruct_patch', {
    xlsx_path: input,
    out_name: 'bold.xlsx',
    ops: [{ op: 'set_style', sheet: 'Sheet1', range: 'H2', bold: true }],
  });
  expect(bold.isError, bold.text).toBe(false);
  const res = await ws.call<PatchOut>('exstruct_patch', {
    xlsx_path: bold.structured.out_path,
    out_name: 'dated.xlsx',
    ops: [
      { op: 'set_value', sheet: 'Sheet1', cell: 'H2', value: '2024-03-31', value_type: 'date' },
      { op: 'set_value', sheet: 'Sheet1', cell: 'H3', value: '2024-03-31T09:30:00', value_type: 'date' },
    ],
    return_inverse_ops: true,
  });
  expect(res.isError, res.text).toBe(false);
  const dated = await formats(res.structured.out_path, 'H2', 'H3');
  expect(dated.H2).toEqual(['date', 'mm-dd-yy', true]); // openpyxl's name of built-in format 14; bold kept
  expect(dated.H3).toEqual(['datetime', 'm/d/yy h:mm', false]); // built-in 22
  const undone = await ws.call<PatchOut>('exstruct_patch', {
    xlsx_path: res.structured.out_path,
    out_name: 'undone.xlsx',
    ops: res.structured.inverse_ops,
  });
  expect(undone.isError, undone.text).toBe(false);
  expect(await formats(undone.structured.out_path, 'H2', 'H3')).toEqual(
    await formats(bold.structured.out_path, 'H2', 'H3'),
  );
});
