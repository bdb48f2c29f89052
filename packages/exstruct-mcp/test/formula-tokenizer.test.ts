// The formula tokenizer is linear (issue 26 §2): a long formula of the shapes that made the regex
// rules quadratic is split in bounded time, into the very tokens the regex rules gave.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenizeFormula, type FormulaToken } from '../src/patch/formula.js';

/** The rules as they were (regexes only): the reference on short formulas, where quadratic is cheap. */
const UNQUOTED_SHEET = String.raw`[^\s!'"(),;:=<>+*/^&{}[\]#$@-][^\s!'"(),;:=<>+*/^&{}[\]#]*`;
const ARRAY_ITEM = String.raw`\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|"(?:[^"]|"")*"|TRUE|FALSE|#N\/A|#DIV\/0!|#VALUE!|#REF!|#NAME\?|#NUM!|#NULL!|#GETTING_DATA)\s*`;
const REFERENCE_RULES: [FormulaToken['type'], RegExp][] = [
  ['space', /\s+/y],
  ['string', /"(?:[^"]|"")*"/y],
  ['array', new RegExp(String.raw`\{${ARRAY_ITEM}(?:[,;]${ARRAY_ITEM})*\}`, 'iy')],
  [
    'sheet',
    new RegExp(
      String.raw`(?:'(?:[^']|'')+'|\[[^\]]+\][^\s!'"(),;:=<>+*/^&-]*|${UNQUOTED_SHEET}(?::${UNQUOTED_SHEET})?)!`,
      'y',
    ),
  ],
  [
    'error',
    /#(?:NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A|GETTING_DATA|SPILL!|CALC!|FIELD!|BLOCKED!|CONNECT!|BUSY!|UNKNOWN!)/iy,
  ],
  ['spill', /#(?=$|[\s),;:+\-*/^&=<>%}])/y],
  ['columns', /\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![\w(.])/y],
  ['rows', /\$?\d+:\$?\d+(?![\w.(])/y],
  ['cell', /\$?[A-Za-z]{1,3}\$?\d+(?![\w(.!])/y],
  ['number', /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y],
  ['function', /[A-Za-z_\\][\w.]*(?=\s*\()/y],
  [
    'name',
    /[A-Za-z_\\\u00C0-\uFFFF][\w.\u00C0-\uFFFF]*(?:\[(?:[^[\]]|\[[^\]]*\])*\])?|\[(?:[^[\]]|\[[^\]]*\])*\]/y,
  ],
  ['operator', /<>|<=|>=|[-+*/^&=<>%:@]/y],
  ['paren', /[(){}]/y],
  ['separator', /[,;]/y],
];

function referenceTokens(formula: string): FormulaToken[] {
  const tokens: FormulaToken[] = [];
  let pos = 0;
  outer: while (pos < formula.length) {
    for (const [type, re] of REFERENCE_RULES) {
      re.lastIndex = pos;
      const m = re.exec(formula);
      if (m && m[0].length > 0) {
        tokens.push({ type, text: m[0] });
        pos += m[0].length;
        continue outer;
      }
    }
    tokens.push({ type: 'invalid', text: formula.slice(pos) });
    break;
  }
  return tokens;
}

describe('tokenizeFormula', () => {
  it('gives the tokens of the regex rules, on real formulas and on random text of formula characters', () => {
    for (const formula of [
      'SUM(\'Q1 data\'!A1:B3,[1]Sheet1!$C$4,Jan:Mar!D5)+{1,2;3,4}*A2#-@B1:B3&"a""b"',
      "LET(x,1,x+'It''s'!A1)+Table1[[#Headers],[Qty]]+XLOOKUP(A1,B:B,2:2)%",
      "'C:\\dir\\[Book.xlsx]S'!A1+[Book2.xlsx]S!A1+_xlfn.SINGLE(A1)+#REF!+#N/A+1.5e-3+.5",
    ]) {
      expect(tokenizeFormula(formula)).toEqual(referenceTokens(formula));
    }
    const alphabet = fc.constantFrom(
      ...'aAzZ19._\\$\'"![]:;,.%{}()#@ -+*/^&=<>eé表'.split(''),
      'Sheet1!',
      "'x y'!",
      '[1]',
      'SUM(',
      'A1',
      'TRUE',
      '#REF!',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (parts) => {
        const formula = parts.join('');
        expect(tokenizeFormula(formula)).toEqual(referenceTokens(formula));
      }),
      { numRuns: 3000 },
    );
  });

  it('splits 100,000-character formulas of the shapes that were quadratic in bounded time', () => {
    const n = 100_000;
    // Before: an unclosed array of digits (the audit's `={111…`) took ~35 s at this length, `%a%a…`
    // and `1.1.1.…` (a sheet name rescanned from every position) 12–25 s.
    const shapes = {
      'unclosed array of digits': `{${'1'.repeat(n)}`,
      'sheet-name characters': '%a'.repeat(n / 2),
      'numbers and dots': '1.'.repeat(n / 2),
      'external references without !': '[a]'.repeat(n / 3),
      'a 3-D name without !': 'a:b'.repeat(n / 3),
    };
    for (const [shape, formula] of Object.entries(shapes)) {
      const start = performance.now();
      const tokens = tokenizeFormula(formula);
      const ms = performance.now() - start;
      expect(tokens.map((t) => t.text).join(''), shape).toBe(formula);
      expect(ms, shape).toBeLessThan(1500);
    }
  });
});
