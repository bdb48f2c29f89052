import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoToSerial, serialToIso } from '../src/extract/cell-value.js';
import { classifyFormatCode } from '../src/ooxml/number-format.js';

describe('isoToSerial (the inverse of the dates extraction writes)', () => {
  it('reads dates, date-times and times of day in both date systems', () => {
    expect(isoToSerial('2025-01-01')).toBe(45658);
    expect(isoToSerial('2025-01-01T12:00:00')).toBe(45658.5);
    expect(isoToSerial('06:00:00')).toBe(0.25);
    expect(isoToSerial('1900-01-01')).toBe(1);
    expect(isoToSerial('1900-02-28')).toBe(59);
    expect(isoToSerial('1900-02-29')).toBe(60); // Excel's phantom leap day
    expect(isoToSerial('1900-03-01')).toBe(61);
    expect(isoToSerial('1904-01-02', true)).toBe(1);
  });

  it('refuses text that is not such a date', () => {
    for (const text of [
      '2025-02-30',
      '2025-1-1',
      '2025-01-01 12:00',
      '24:00:00',
      'soon',
      '45658',
      '1899-12-29',
    ])
      expect(isoToSerial(text), text).toBeUndefined();
  });

  it('round-trips every serial extraction can write, to the millisecond', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2958465 }),
        fc.integer({ min: 0, max: 86_399_999 }),
        fc.boolean(),
        (anyDay, ms, date1904) => {
          // Both systems end on 9999-12-31: serial 2958465, or 2957003 counted from 1904.
          const days = date1904 ? Math.min(anyDay, 2957003) : anyDay;
          const iso = serialToIso(days + ms / 86_400_000, 'date', date1904);
          fc.pre(typeof iso === 'string'); // past 9999-12-31 extraction writes the number itself
          const serial = isoToSerial(iso, date1904);
          expect(serial).toBeDefined();
          expect(serialToIso(serial!, 'date', date1904)).toBe(iso);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('classifyFormatCode (which number formats show dates)', () => {
  it.each([
    ['yyyy/m/d', 'date'],
    ['[$-411]ggge"年"m"月"d"日"', 'date'],
    ['[$-F800]dddd, mmmm dd, yyyy', 'date'],
    ['mmm-yy', 'date'],
    ['h:mm AM/PM', 'time'],
    ['[$-F400]h:mm:ss AM/PM', 'time'],
    ['mm:ss', 'time'],
    ['[h]:mm', undefined],
    ['[mm]:ss', undefined],
    ['General', undefined],
    ['[Red]General', undefined],
    ['[$-409]General', undefined],
    ['[$-409]General;[Red]\\-General', undefined],
    ['0.00E+00', undefined],
    ['#,##0.00 "days"', undefined],
    ['[$€-407] #,##0.00', undefined],
    ['[<=9999999]###-####;(###) ###-####', undefined],
    ['0" m"', undefined],
    ['@', undefined],
  ] as const)('%s → %s', (code, kind) => {
    expect(classifyFormatCode(code)).toBe(kind);
  });
});
