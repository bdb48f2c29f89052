// Compare-and-set (set_value_if, set_formula_if): what "the cell holds `expected`" means (spec 12.5).
import type { Scalar } from '../cells.js';
import type { PatchValue } from '../types.js';

/** Compare-and-set equality after normalisation (spec 12.5). */
export function matches(current: PatchValue | null, expected: Scalar | null): boolean {
  const want = normalize(expected);
  if (current?.kind === 'formula') {
    return (
      typeof expected === 'string' &&
      expected.trim().startsWith('=') &&
      formulaKey(expected) === formulaKey(String(current.value))
    );
  }
  const have = normalize(current?.value ?? null);
  if (have === null || want === null) return have === want;
  if (typeof have === 'number' || typeof want === 'number')
    return Number(have) === Number(want) && String(have).trim() !== '' && String(want).trim() !== '';
  return have === want;
}

/** A value as a warning shows it. */
export function show(value: PatchValue | Scalar | null): string {
  if (value === null) return 'nothing';
  if (typeof value === 'object') return JSON.stringify(value.value);
  return JSON.stringify(value);
}

function normalize(value: Scalar | null): Scalar | null {
  if (value === null) return null;
  if (typeof value === 'string') {
    const trimmed = value.normalize('NFC').trim();
    if (trimmed === '') return null;
    const n = Number(trimmed);
    return Number.isFinite(n) && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed) ? n : trimmed;
  }
  return value;
}

function formulaKey(formula: string): string {
  return formula
    .trim()
    .replace(/^=/, '')
    .replace(/("(?:[^"]|"")*")|\s+|_xl(?:fn|ws|pm)\./gi, (_m, str: string | undefined) => str ?? '') // stored prefixes
    .toUpperCase();
}
