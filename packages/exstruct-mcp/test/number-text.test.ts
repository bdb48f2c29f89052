import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonNumberText } from '../src/extract/cell-sink.js';

// Sheet text kept as the JSON of a number must be exactly what JSON.stringify writes for it.
describe('isJsonNumberText', () => {
  it.each(['79.19', '-0.5', '0.000001', '123456.78901', '-9.5', '0.1'])('keeps %s', (text) => {
    expect(isJsonNumberText(text)).toBe(true);
    expect(JSON.stringify(Number(text))).toBe(text);
  });

  it.each([
    ['a trailing zero', '1.50'],
    ['a leading zero', '01.5'],
    ['an exponent', '1.5E3'],
    ['negative zero', '-0'],
    ['a value JavaScript writes with an exponent', '0.0000001'],
    ['more than 12 characters', '0.123456789012'],
    ['a bare point', '.5'],
    ['a plus sign', '+1.5'],
    ['a trailing point', '1.'],
    ['nothing', ''],
  ])('refuses %s (%s)', (_label, text) => {
    expect(isJsonNumberText(text)).toBe(false);
  });

  it('never keeps a text that JSON.stringify would write differently', () => {
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
        if (isJsonNumberText(text)) expect(JSON.stringify(Number(text))).toBe(text);
      }),
      { numRuns: 20_000 },
    );
  });
});
