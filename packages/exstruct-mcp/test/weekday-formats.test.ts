// Dates shown as Japanese weekdays (書式 aaa → 金, aaaa → 金曜日, as a 曜日 column beside a date column
// has them) are dates: extraction writes them as ISO dates like every other date format, in small
// sheets (the JavaScript row reader) and in large ones (the row kernel). The workbook is openpyxl's.
import { describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { classifyFormatCode } from '../src/ooxml/number-format.js';
import { useOpenpyxlWorkbook } from './independent-reader.js';

const MAKE = `
import datetime, sys
import openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "予定表"
formats = ["yyyy/m/d", "aaa", "aaaa", "[$-411]aaa", "(aaa)", "[$-ja-JP]aaaa;@", "m/d(aaa)"]
for col, fmt in enumerate(formats, start=1):
    cell = ws.cell(row=1, column=col, value=datetime.datetime(2024, 3, 15))
    cell.number_format = fmt
big = wb.create_sheet("大きい表")
for r in range(1, 40001):
    big.cell(row=r, column=1, value=r)
    cell = big.cell(row=r, column=2, value=datetime.datetime(2024, 1, 1) + datetime.timedelta(days=r - 1))
    cell.number_format = "aaa"
wb.save(sys.argv[1])
print("ok")
`;

const made = useOpenpyxlWorkbook('weekdays.xlsx', MAKE);

describe('Japanese weekday number formats', () => {
  it.each(['aaa', 'aaaa', '[$-411]aaa', '(aaa)', 'm/d(aaa)', 'yyyy"年"m"月"d"日"(aaaa)'])(
    '%s shows a date',
    (code) => {
      expect(classifyFormatCode(code)).toBe('date');
    },
  );

  it('"aaa" in quotes or an a escaped is text, not a weekday', () => {
    expect(classifyFormatCode('0"aaa"')).toBeUndefined();
    expect(classifyFormatCode('0\\a\\a\\a')).toBeUndefined();
  });

  it('cells shown as weekdays are extracted as ISO dates, in a small sheet and in a 40,000-row one', async (ctx) => {
    if (made.file() === undefined) ctx.skip(); // openpyxl missing (see useOpenpyxlWorkbook)
    const { workbook } = await extractWorkbook(made.file()!, { mode: 'standard', alphaCol: true });
    const small = workbook.sheets['予定表']!.rows![0]!.c;
    expect(Object.values(small)).toEqual(Array(7).fill('2024-03-15'));
    const rows = workbook.sheets['大きい表']!.rows!;
    expect(rows).toHaveLength(40_000);
    expect(rows[0]!.c).toEqual({ A: 1, B: '2024-01-01' });
    expect(rows[39_999]!.c).toEqual({ A: 40_000, B: '2133-07-07' });
  });
});
