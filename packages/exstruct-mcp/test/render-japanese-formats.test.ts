import { describe, expect, it } from 'vitest';
import type { CellFormat } from '../src/render/cell-formats.js';
import { displayText } from '../src/render/cell-text.js';

// Japanese number formats as Japanese Excel shows them in a sheet image: era (和暦) names and years,
// Japanese weekdays and the [DBNumN] numerals, none of which numfmt knows.

/** The 1900-system serial of a day (after 1900-02-28). */
const serial = (iso: string) => {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) / 86400000 + 25569;
};

function shown(value: number, format: { code?: string; id?: number }): string {
  const cellFormat = { numFmtId: format.id ?? 164, formatCode: format.code } as CellFormat;
  return displayText({ type: undefined, value: String(value), style: 0 }, cellFormat, [], false).text;
}

const NENGO = '[$-411]ggge"年"m"月"d"日"';

describe('era (和暦) formats', () => {
  it.each([
    ['1912-07-29', '明治45年7月29日'],
    ['1912-07-30', '大正1年7月30日'],
    ['1926-12-24', '大正15年12月24日'],
    ['1926-12-25', '昭和1年12月25日'],
    ['1989-01-07', '昭和64年1月7日'],
    ['1989-01-08', '平成1年1月8日'],
    ['2019-04-30', '平成31年4月30日'],
    ['2019-05-01', '令和1年5月1日'],
    ['2024-03-15', '令和6年3月15日'],
  ])('draws %s as %s', (iso, text) => {
    expect(shown(serial(iso), { code: NENGO })).toBe(text);
  });

  it('counts serial 1 as 1900-01-01 (before the 1900 leap-year bug)', () => {
    expect(shown(1, { code: NENGO })).toBe('明治33年1月1日');
  });

  it('reads the ja-JP tag and shows the first year as 元 under -x-gannen', () => {
    const day = serial('2019-05-01');
    expect(shown(day, { code: '[$-ja-JP]ggge"年"m"月"d"日"' })).toBe('令和1年5月1日');
    expect(shown(day, { code: '[$-ja-JP-x-gannen]ggge"年"m"月"d"日"' })).toBe('令和元年5月1日');
    expect(shown(serial('2020-05-01'), { code: '[$-ja-JP-x-gannen]ggge"年"' })).toBe('令和2年');
  });

  it('gives g, gg and ggg as letter, one kanji and full name, e and ee as the era year', () => {
    const day = serial('2024-03-15');
    expect(shown(day, { code: '[$-411]ge.m.d' })).toBe('R6.3.15');
    expect(shown(day, { code: '[$-411]gge' })).toBe('令6');
    expect(shown(day, { code: '[$-411]gggee"年"' })).toBe('令和06年');
    expect(shown(serial('1995-01-01'), { code: '[$-411]ge.m.d' })).toBe('H7.1.1');
    expect(shown(serial('1970-06-01'), { code: 'ge.m.d' })).toBe('S45.6.1');
  });

  it('resolves the Japanese built-in ids (57: ge.m.d, 58: ggge年m月d日)', () => {
    const day = serial('2024-03-15');
    expect(shown(day, { id: 57 })).toBe('R6.3.15');
    expect(shown(day, { id: 27 })).toBe('R6.3.15');
    expect(shown(day, { id: 58 })).toBe('令和6年3月15日');
  });

  it('leaves Gregorian years, quoted g and e, scientific E and AM/PM alone', () => {
    const day = serial('2024-03-15');
    expect(shown(day, { code: 'yyyy"年"m"月"d"日"' })).toBe('2024年3月15日');
    expect(shown(day, { id: 31 })).toBe('2024年3月15日');
    expect(shown(5, { code: '0"g e"' })).toBe('5g e');
    expect(shown(12345, { code: '0.00E+00' })).toBe('1.23E+04');
    expect(shown(12345, { code: 'General' })).toBe('12345');
    expect(shown(0.75, { code: 'h:mm AM/PM' })).toBe('6:00 PM');
  });
});

describe('Japanese weekdays', () => {
  it('draws aaa and aaaa in Japanese, with or without a Japanese locale tag', () => {
    const friday = serial('2024-03-15');
    expect(shown(friday, { code: 'yyyy/m/d(aaa)' })).toBe('2024/3/15(金)');
    expect(shown(friday, { code: 'aaaa' })).toBe('金曜日');
    expect(shown(friday, { code: '[$-411]aaa' })).toBe('金');
    expect(shown(serial('1989-01-08'), { code: '[$-ja-JP]m/d aaaa' })).toBe('1/8 日曜日');
  });
});

describe('[DBNumN] numerals', () => {
  it.each([
    ['[DBNum1][$-411]General', 1234, '千二百三十四'],
    ['[DBNum1][$-411]General', 10, '十'],
    ['[DBNum1][$-411]General', 20305, '二万三百五'],
    ['[DBNum1][$-411]General', 0, '〇'],
    ['[DBNum2][$-411]General', 1234, '壱阡弐百参拾四'],
    ['[DBNum3][$-411]General', 1234, '１２３４'],
    ['[DBNum3]0', 56, '５６'],
  ])('%s shows %d as %s', (code, value, text) => {
    expect(shown(value, { code })).toBe(text);
  });

  it('writes the numbers of an era date in kanji', () => {
    expect(shown(serial('2024-03-15'), { code: '[DBNum1][$-411]ggge"年"m"月"d"日"' })).toBe(
      '令和六年三月十五日',
    );
    expect(shown(serial('2024-03-15'), { code: '[DBNum1][$-411]yyyy"年"m"月"d"日"' })).toBe(
      '二〇二四年三月十五日',
    );
  });
});
