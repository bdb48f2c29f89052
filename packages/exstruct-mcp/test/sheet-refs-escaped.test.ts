// rename_sheet / delete_sheet follow references however the producer escaped the sheet name in XML:
// openpyxl writes `=フォーム!A2*2` as `<f>&#12501;&#12457;&#12540;&#12512;!A2*2</f>`, others use hex
// character references, and a quoted name doubles its apostrophes (`'Bob''s'!A1`). The rewritten
// workbooks are read back by openpyxl.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeXmlText } from '../src/patch/xml.js';
import { runWithOpenpyxl } from './independent-reader.js';
import { readPart, workspace, type Workspace } from './patch-helpers.js';
import { mutateWorkbook } from './workbook-traits.js';

interface PatchOut {
  out_path: string;
  warnings: string[];
}

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => ws.close());

const NAME = 'フォーム';
const decimal = (text: string) => [...text].map((ch) => `&#${ch.codePointAt(0)};`).join('');
const hex = (text: string) =>
  [...text].map((ch) => `&#x${ch.codePointAt(0)!.toString(16).toUpperCase()};`).join('');

/** 計算 refers to フォーム from cells (one a shared formula group), CF, DV, a table; a chart on フォーム. */
async function escapedBook(): Promise<string> {
  const made = await ws.call<PatchOut>('exstruct_make', {
    out_path: 'base.xlsx',
    sheet: NAME,
    ops: [
      { op: 'add_sheet', sheet: '計算' },
      {
        op: 'set_range_values',
        sheet: NAME,
        range: 'A1:B3',
        values: [
          ['x', 'y'],
          [1, 2],
          [3, 4],
        ],
      },
      { op: 'set_formula', sheet: '計算', cell: 'B1', formula: `=${NAME}!A2*2` },
      { op: 'fill_formula', sheet: '計算', range: 'C1:C3', base_cell: 'C1', formula: `=${NAME}!A2+1` },
      {
        op: 'set_range_values',
        sheet: '計算',
        range: 'A5:B7',
        values: [
          ['k', 'v'],
          [1, 2],
          [3, 4],
        ],
      },
      { op: 'apply_table_style', sheet: '計算', range: 'A5:B7', style: 'TableStyleMedium2' },
      { op: 'create_chart', sheet: NAME, chart_type: 'column', data_range: 'A1:B3', anchor_cell: 'D2' },
    ],
  });
  const target = path.join(ws.dir, 'escaped.xlsx');
  await mutateWorkbook(made.structured.out_path, target, {
    'xl/worksheets/sheet2.xml': (xml) =>
      xml
        // C1:C3 as one shared formula group (Excel's storage of a filled formula).
        .replace(
          `<c r="C1"><f>${NAME}!A2+1</f>`,
          `<c r="C1"><f t="shared" ref="C1:C3" si="0">${NAME}!A2+1</f>`,
        )
        .replace(/<c r="C([23])"><f>[^<]*<\/f>/g, '<c r="C$1"><f t="shared" si="0"/>')
        .replace(
          '<pageMargins',
          `<conditionalFormatting sqref="B1"><cfRule type="expression" priority="1"><formula>B1&gt;${NAME}!$A$2</formula></cfRule></conditionalFormatting>` +
            `<dataValidations count="1"><dataValidation type="list" allowBlank="1" sqref="D1"><formula1>${hex(NAME)}!$A$2:$A$3</formula1></dataValidation></dataValidations><pageMargins`,
        )
        .replaceAll(NAME, decimal(NAME)),
    'xl/charts/chart1.xml': (xml) => xml.replaceAll(NAME, hex(NAME)),
    'xl/tables/table1.xml': (xml) =>
      xml.replace(
        '<tableColumn id="2" name="v"/>',
        `<tableColumn id="2" name="v"><calculatedColumnFormula>${decimal(NAME)}!$A$2*3</calculatedColumnFormula></tableColumn>`,
      ),
  });
  return target;
}

const READ_BACK = `
import json, sys, warnings
warnings.simplefilter("ignore")
import openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["計算"]
print(json.dumps({
  "cells": [ws[a].value for a in ("B1", "C1", "C2", "C3")],
  "cf": [r.formula for cf in ws.conditional_formatting for r in cf.rules],
  "dv": [dv.formula1 for dv in ws.data_validations.dataValidation],
}, ensure_ascii=False))
`;

async function readBack(file: string) {
  const out = await runWithOpenpyxl(READ_BACK, [file]);
  return out === undefined
    ? undefined
    : (JSON.parse(out) as { cells: string[]; cf: string[][]; dv: string[] });
}

/** The formula texts of a part's formula elements, decoded. */
async function formulasIn(file: string, part: string, element: string): Promise<string[]> {
  const xml = await readPart(file, part);
  return [...xml.matchAll(new RegExp(`<${element}>([^<]*)</${element}>`, 'g'))].map((m) =>
    decodeXmlText(m[1]!, false),
  );
}

describe('sheet references the producer escaped as character references', () => {
  it('rename_sheet rewrites cells, shared formulas, CF, DV, charts and table formulas', async () => {
    const input = await escapedBook();
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'rename_sheet', sheet: NAME, new_name: 'Form2' }],
    });
    expect(res.isError).toBe(false);
    const back = await readBack(res.structured.out_path);
    if (back) {
      expect(back.cells).toEqual(['=Form2!A2*2', '=Form2!A2+1', '=Form2!A3+1', '=Form2!A4+1']);
      expect(back.cf).toEqual([['B1>Form2!$A$2']]);
      expect(back.dv).toEqual(['Form2!$A$2:$A$3']);
    }
    const chart = await formulasIn(res.structured.out_path, 'xl/charts/chart1.xml', 'c:f');
    expect(chart).toEqual(["'Form2'!$A$1", "'Form2'!$A$2:$A$3", "'Form2'!$B$1", "'Form2'!$B$2:$B$3"]);
    const table = await formulasIn(
      res.structured.out_path,
      'xl/tables/table1.xml',
      'calculatedColumnFormula',
    );
    expect(table).toEqual(['Form2!$A$2*3']);
  });

  it('delete_sheet turns them into #REF!, and says so for the table', async () => {
    const input = await escapedBook();
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: input,
      ops: [{ op: 'delete_sheet', sheet: NAME }],
    });
    expect(res.isError).toBe(false);
    const back = await readBack(res.structured.out_path);
    if (back) {
      expect(back.cells).toEqual(['=#REF!A2*2', '=#REF!A2+1', '=#REF!A3+1', '=#REF!A4+1']);
      expect(back.cf).toEqual([['B1>#REF!$A$2']]);
      expect(back.dv).toEqual(['#REF!$A$2:$A$3']);
    }
    const table = await formulasIn(
      res.structured.out_path,
      'xl/tables/table1.xml',
      'calculatedColumnFormula',
    );
    expect(table).toEqual(['#REF!$A$2*3']);
    expect(res.structured.warnings.join(' ')).toMatch(/Table formulas in xl\/tables\/table1\.xml .* #REF!/);
  });

  it("follows a quoted name with an apostrophe ('Bob''s'!A1)", async () => {
    const made = await ws.call<PatchOut>('exstruct_make', {
      out_path: 'bob.xlsx',
      ops: [
        { op: 'add_sheet', sheet: "Bob's" },
        { op: 'set_value', sheet: "Bob's", cell: 'A1', value: 5 },
        { op: 'set_formula', sheet: 'Sheet1', cell: 'A1', formula: "='Bob''s'!A1*2" },
      ],
    });
    const res = await ws.call<PatchOut>('exstruct_patch', {
      xlsx_path: made.structured.out_path,
      ops: [{ op: 'rename_sheet', sheet: "Bob's", new_name: 'Ann' }],
    });
    const out = await runWithOpenpyxl(
      'import sys, openpyxl; print(openpyxl.load_workbook(sys.argv[1])["Sheet1"]["A1"].value)',
      [res.structured.out_path],
    );
    if (out !== undefined) expect(out.trim()).toBe("='Ann'!A1*2");
  });
});
