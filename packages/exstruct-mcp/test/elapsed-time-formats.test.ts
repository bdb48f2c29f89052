// A duration shown as [h]:mm:ss (25:30:00 on a timesheet) is a number of days, not a date: the
// built-in format 46 was read as "1900-01-01T01:30:00", while the same format written as a custom code,
// and [h]:mm or [mm]:ss, gave the number. The workbook is openpyxl's, which writes the built-in id.
import { describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { classifyNumberFormat } from '../src/ooxml/number-format.js';
import { readPart } from './patch-helpers.js';
import { useOpenpyxlWorkbook } from './independent-reader.js';

const MAKE = `
import sys
import openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "勤務表"
for col, fmt in enumerate(["[h]:mm:ss", "[h]:mm", "[mm]:ss"], start=1):
    cell = ws.cell(row=1, column=col, value=1.0625)  # 25:30:00
    cell.number_format = fmt
ws.cell(row=1, column=4, value=0.0625).number_format = "h:mm:ss"  # a time of day, 01:30:00
wb.save(sys.argv[1])
print("ok")
`;

const made = useOpenpyxlWorkbook('timesheet.xlsx', MAKE);

describe('elapsed-time formats', () => {
  it('the built-in [h]:mm:ss (46) is a number, the times of day 45 and 47 are times', () => {
    expect(classifyNumberFormat(46, undefined)).toBeUndefined();
    expect(classifyNumberFormat(45, undefined)).toBe('time');
    expect(classifyNumberFormat(47, undefined)).toBe('time');
  });

  it('a duration is extracted as its number, whichever way the format is written', async (ctx) => {
    if (made.file() === undefined) ctx.skip(); // openpyxl missing (see useOpenpyxlWorkbook)
    expect(await readPart(made.file()!, 'xl/styles.xml')).toMatch(/numFmtId="46"/); // the built-in id itself
    const { workbook } = await extractWorkbook(made.file()!, { mode: 'standard', alphaCol: true });
    expect(workbook.sheets['勤務表']!.rows![0]!.c).toEqual({
      A: 1.0625,
      B: 1.0625,
      C: 1.0625,
      D: '01:30:00',
    });
  });
});
