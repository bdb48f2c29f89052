// Compare-and-set (set_value_if, set_formula_if): what "the cell holds `expected`" means (spec 12.5).
import { isoToSerial } from '../../extract/cell-value.js';
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

/**
 * Compare-and-set against a date given as ISO text (`serial`: the date it names). Extraction shows a
 * date to the millisecond, and writers store the same instant with different noise (openpyxl
 * 45688.35416666666, LibreOffice 45688.3541666667), so the cell matches when it names the same
 * millisecond: a serial number, or ISO text of a `t="d"` cell.
 */
export function matchesDate(current: PatchValue | null, serial: number, date1904: boolean): boolean {
  if (current === null || current.kind === 'formula') return false;
  const value = current.value;
  const have =
    typeof value === 'number'
      ? value
      : typeof value === 'string'
        ? isoToSerial(value.trim(), date1904)
        : undefined;
  return have !== undefined && Math.round(have * MS_PER_DAY) === Math.round(serial * MS_PER_DAY);
}

const MS_PER_DAY = 86_400_000;

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
