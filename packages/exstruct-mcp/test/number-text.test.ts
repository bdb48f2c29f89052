import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFractionDigits } from '../src/extract/cell-sink.js';

// A fraction stored with its count of decimals n is written back as toFixed(n): that must be exactly
// what JSON.stringify writes for the value.
describe('jsonFractionDigits', () => {
  it.each([
    ['79.19', 2],
    ['-0.5', 1],
    ['0.000001', 6],
    ['123456.78901', 5],
    ['-9.5', 1],
    ['0.1', 1],
  ])('gives %s %i decimals', (text, decimals) => {
    expect(jsonFractionDigits(text)).toBe(decimals);
    expect(Number(text).toFixed(decimals)).toBe(text);
    expect(JSON.stringify(Number(text))).toBe(text);
  });

  it.each([
    ['a whole number', '12'],
    ['a trailing zero', '1.50'],
    ['a leading zero', '01.5'],
    ['an exponent', '1.5E3'],
    ['a value JavaScript writes with an exponent', '0.0000001'],
    ['more than 12 characters', '0.123456789012'],
    ['a bare point', '.5'],
    ['a plus sign', '+1.5'],
    ['a trailing point', '1.'],
    ['nothing', ''],
  ])('refuses %s (%s)', (_label, text) => {
    expect(jsonFractionDigits(text)).toBe(0);
  });

  it('never claims a count of decimals that would write a value differently', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
    const decimal = fc
      .tuple(
        fc.constantFrom('', '-', '+'),
        digits(0, 8),
        fc.constantFrom('', '.'),
        digits(0, 8),
        fc.constantFrom('', 'e2'),
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(decimal, fc.double().map(String)), (text) => {
        const decimals = jsonFractionDigits(text);
        if (decimals > 0) {
          expect(Number(text).toFixed(decimals)).toBe(text);
          expect(JSON.stringify(Number(text))).toBe(text);
        }
      }),
      { numRuns: 20_000 },
    );
  });
});
