// Spec 13: column letters ↔ indexes, and letter keys for rows, links and merged ranges.
import { describe, expect, it } from 'vitest';
import {
  alpha_to_col_index,
  col_index_to_alpha,
  convertRowKeysToAlpha,
  convertSheetKeysToAlpha,
} from '../src/engine.js';
import { translateFormula } from '../src/ooxml/formula-translate.js';

describe('col_index_to_alpha / alpha_to_col_index', () => {
  it('maps the spec examples', () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702, 16383].map(col_index_to_alpha)).toEqual([
      'A',
      'B',
      'Z',
      'AA',
      'AB',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
      'XFD',
    ]);
    expect(alpha_to_col_index('xfd')).toBe(16383);
  });

  it('round-trips every column up to XFD', () => {
    for (let i = 0; i <= 16383; i++) expect(alpha_to_col_index(col_index_to_alpha(i))).toBe(i);
  });

  it('refuses what is not a column', () => {
    expect(() => col_index_to_alpha(-1)).toThrow(/non-negative/);
    expect(() => alpha_to_col_index('XFE')).toThrow(/beyond XFD/);
    expect(() => alpha_to_col_index('A1')).toThrow(/not a column/);
  });
});

describe('letter keys', () => {
  it('converts c and links of a row', () => {
    expect(
      convertRowKeysToAlpha({
        r: 6,
        c: { '0': '氏　名', '12': '生年月日', '18': '年' },
        links: { '12': 'https://x' },
      }),
    ).toEqual({
      r: 6,
      c: { A: '氏　名', M: '生年月日', S: '年' },
      links: { M: 'https://x' },
    });
  });

  it('replaces merged_cells with merged_ranges and keeps other indexes numeric', () => {
    expect(
      convertSheetKeysToAlpha({
        rows: [{ r: 1, c: { '27': 1 } }],
        print_areas: [{ r1: 1, c1: 0, r2: 3, c2: 2 }],
        merged_cells: {
          schema: ['r1', 'c1', 'r2', 'c2', 'v'],
          items: [
            [1, 0, 3, 2, 'x'],
            [10, 5, 12, 6, ' '],
          ],
        },
      }),
    ).toEqual({
      rows: [{ r: 1, c: { AB: 1 } }],
      print_areas: [{ r1: 1, c1: 0, r2: 3, c2: 2 }],
      merged_ranges: ['A1:C3', 'F10:G12'],
    });
  });
});

describe('shared formula translation', () => {
  it('moves relative references and keeps absolute ones, strings, sheet names and functions', () => {
    expect(translateFormula('A1+$B$1+B$2+$C3', 2, 1)).toBe('B3+$B$1+C$2+$C5');
    expect(translateFormula('SUM(A1:A3)&"A1"', 1, 0)).toBe('SUM(A2:A4)&"A1"');
    expect(translateFormula("'My Sheet'!A1+Sheet2!B2", 1, 1)).toBe("'My Sheet'!B2+Sheet2!C3");
    expect(translateFormula('LOG10(A1)+ATAN2(B1,C1)', 1, 0)).toBe('LOG10(A2)+ATAN2(B2,C2)');
    expect(translateFormula('SUM(A:A)+SUM(1:1)', 1, 1)).toBe('SUM(B:B)+SUM(2:2)');
    expect(translateFormula('Table1[Amount]*A1', 1, 0)).toBe('Table1[Amount]*A2');
    expect(translateFormula('A1', -1, 0)).toBe('#REF!');
    // A 3-D reference names sheets: `Jan:Mar` is not the column range JAN:MAR.
    expect(translateFormula('SUM(Jan:Mar!B2)', 1, 1)).toBe('SUM(Jan:Mar!C3)');
    expect(translateFormula('SUM(Sheet1:Sheet3!A1:A2)', 1, 0)).toBe('SUM(Sheet1:Sheet3!A2:A3)');
  });
});
