import { tokenizeFormula } from './formula.js';

/**
 * Functions that make a formula a dynamic-array formula. Written as a plain `<f>`, Excel opens such a
 * formula as a legacy one and shows it with `@` and one value instead of the spilled array. The list is
 * XlsxWriter's (`re_dynamic_function` in worksheet.py, 2025, with LET and XMATCH of its 3.0 list), plus
 * GROUPBY and PIVOTBY, which always spill. A formula marked so that returns one value is still read
 * right by Excel; one left unmarked that spills is not.
 */
const DYNAMIC_ARRAY_FUNCTIONS: ReadonlySet<string> = new Set(
  `ANCHORARRAY BYCOL BYROW CHOOSECOLS CHOOSEROWS DROP EXPAND FILTER GROUPBY HSTACK LAMBDA LET MAKEARRAY MAP
  PIVOTBY RANDARRAY REDUCE SCAN SEQUENCE SINGLE SORT SORTBY SWITCH TAKE TEXTSPLIT TOCOL TOROW UNIQUE VSTACK
  WRAPCOLS WRAPROWS XLOOKUP XMATCH`.split(/\s+/),
);

/** A name of those followed by `(`: most formulas have none, and are not tokenized again. */
const MAY_CALL_ONE = new RegExp(`\\b(?:${[...DYNAMIC_ARRAY_FUNCTIONS].join('|')})\\s*\\(`, 'i');

/** Whether a formula (as stored, prefixes or not) calls one of those functions; text in strings does not count. */
export function isDynamicArrayFormula(formula: string): boolean {
  if (!MAY_CALL_ONE.test(formula)) return false;
  return tokenizeFormula(formula).some(
    (token) =>
      token.type === 'function' &&
      DYNAMIC_ARRAY_FUNCTIONS.has(token.text.replace(/^(?:_xlfn\.|_xlws\.)+/i, '').toUpperCase()),
  );
}
