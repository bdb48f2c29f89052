/**
 * A value as every text format can carry it, the way JSON.stringify already writes it: NaN and
 * ±Infinity become null, -0 becomes 0, and a lone UTF-16 surrogate (a broken character, e.g. from an
 * `_xD800_` escape in a workbook) becomes U+FFFD. TOON refuses lone surrogates and YAML would write
 * `.nan`, so the three formats would otherwise disagree. Copies only what changes.
 */
export function textSafe(value: unknown): unknown {
  if (typeof value === 'string') return isWellFormed(value) ? value : toWellFormed(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null; // -0 + 0 === 0
  if (Array.isArray(value)) {
    const list = value as unknown[];
    let copy: unknown[] | undefined;
    list.forEach((item, i) => {
      const safe = textSafe(item);
      if (safe !== item || (typeof item === 'number' && Object.is(item, -0)))
        (copy ??= list.slice())[i] = safe;
    });
    return copy ?? list;
  }
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const safe = textSafe(item);
      if (safe !== item || (typeof item === 'number' && Object.is(item, -0)))
        (copy ??= { ...(value as Record<string, unknown>) })[key] = safe;
    }
    return copy ?? value;
  }
  return value;
}

// String.prototype.isWellFormed/toWellFormed are in Node 20 but not in the ES2023 lib typings.
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
const isWellFormed = (s: string) => (s as unknown as WellFormed).isWellFormed();
const toWellFormed = (s: string) => (s as unknown as WellFormed).toWellFormed();
