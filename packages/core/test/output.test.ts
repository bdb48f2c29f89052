import fc from 'fast-check';
import { decode } from '@toon-format/toon';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatOutput, parseToon } from '../src/index.js';

// Strings that break naive TOON/CSV-like encoders: delimiters, quotes, newlines, indentation, CJK,
// and texts that look like other literals.
const trickyString = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({
    unit: fc.constantFrom('a', ',', '"', '\n', ' ', ':', '東', '京', '\\', '|', '\t', '-', '#', '[', '{'),
  }),
  fc.constantFrom(
    '',
    ' leading space',
    'trailing space ',
    'a,b,c',
    'say "hi"',
    'line\nbreak',
    '東京都千代田区',
    'key: value',
    '- looks like a list',
    'null',
    'true',
    '42',
    '1e21',
    '-0',
    '[3]: x',
    '{braces}',
    '\t',
    '\\',
  ),
);

const trickyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e21, 1e-7, 0.1, 2 ** 53, -1.5e300, 123456789.123),
);

const scalar = fc.oneof(trickyString, trickyNumber, fc.boolean(), fc.constant(null));

// Uniform arrays of objects get TOON's tabular form; mixed ones the list form.
const { value: jsonValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    tie('array'),
    tie('object'),
    tie('table'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(trickyString, tie('value'), { maxKeys: 5 }),
  table: fc.array(fc.record({ id: trickyNumber, name: trickyString, ok: fc.boolean(), note: scalar }), {
    minLength: 1,
    maxLength: 5,
  }),
}));

/**
 * What the value is as JSON: TOON, like JSON, has no -0. (Not computed with JSON.parse(JSON.stringify(v)):
 * Node 24.21's JSON.parse, once hot, sometimes returns a key "\n" as "\\" — a V8 bug this test found.)
 */
const asJson = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(asJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asJson(v)]));
  }
  return Object.is(value, -0) ? 0 : value;
};

describe('TOON output', () => {
  it('round-trips random JSON values through the official encoder and decoder', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = formatOutput(value, 'toon');
        expect(decode(text)).toEqual(asJson(value));
      }),
      { numRuns: 400 },
    );
  });

  it('encodes uniform arrays of objects as a table that decodes back', () => {
    const rows = [
      { path: 'src/a.ts', size: 10, note: 'a, b' },
      { path: 'src/東京.ts', size: 1e21, note: ' spaced' },
    ];
    const text = formatOutput({ rows }, 'toon');
    expect(text.split('\n')[0]).toBe('rows[2]{path,size,note}:');
    expect(parseToon(text)).toEqual(asJson({ rows }));
  });

  it('reads TOON back at whatever indentation it was written with', () => {
    const value = { book: { sheets: { 'S 1': { rows: [{ r: 1, v: 'x' }], tags: ['a', 'b'] } } } };
    for (const indent of [1, 2, 3, 4, 8]) {
      const text = formatOutput(value, 'toon', { indent });
      expect(text.split('\n')[1]).toBe(`${' '.repeat(indent)}sheets:`);
      expect(parseToon(text)).toEqual(value);
    }
  });
});

describe('TOON delimiters', () => {
  it('round-trips with a tab or pipe delimiter', () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom('\t' as const, '|' as const), (value, delimiter) => {
        expect(decode(formatOutput(value, 'toon', { delimiter }))).toEqual(asJson(value));
      }),
      { numRuns: 400 },
    );
  });
});

describe('JSON and YAML output', () => {
  const value = { name: '名前', list: [1, 'two', { three: true }], empty: '' };

  it('writes compact JSON by default and pretty JSON with the chosen indent', () => {
    expect(formatOutput(value, 'json')).toBe(JSON.stringify(value));
    expect(formatOutput(value, 'json', { pretty: true, indent: 4 })).toBe(JSON.stringify(value, null, 4));
  });

  it('writes YAML that parses back to the same value', () => {
    expect(parseYaml(formatOutput(value, 'yaml'))).toEqual(value);
  });

  it('writes YAML that YAML 1.1 readers (PyYAML) and 1.2 readers both read as the same strings', () => {
    const lookalikes = {
      date: '2025-01-01',
      stamp: '2025-01-01T10:00:00',
      yes: 'yes',
      on: 'On',
      norway: 'NO',
      n: 'n',
      sexagesimal: '1:30',
      underscored: '1_000',
      octal11: '012',
      octal12: '0o17',
      hex: '0x1F',
      real: 1.5,
      flag: true,
    };
    const text = formatOutput(lookalikes, 'yaml');
    expect(parseYaml(text, { version: '1.1' })).toEqual(lookalikes);
    expect(parseYaml(text, { version: '1.2' })).toEqual(lookalikes);
  });

  it('agrees with JSON on numbers JSON cannot hold, and never fails on a broken character', () => {
    const odd = { nan: NaN, inf: Infinity, negZero: -0, list: [-Infinity, -0, 1], text: 'a\ud800b' };
    const json = JSON.parse(formatOutput(odd, 'json')) as Record<string, unknown>;
    expect(json).toEqual({ nan: null, inf: null, negZero: 0, list: [null, 0, 1], text: 'a\ud800b' });
    const asText = { ...json, text: 'a\ufffdb' }; // TOON and YAML cannot carry the lone surrogate
    expect(decode(formatOutput(odd, 'toon'))).toEqual(asText);
    expect(parseYaml(formatOutput(odd, 'yaml'))).toEqual(asText);
    expect(Object.is(odd.negZero, -0)).toBe(true); // the caller's value is not changed
  });

  it('rejects an unknown format with INVALID_ARGUMENT', () => {
    expect(() => formatOutput(value, 'xml' as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
