/**
 * Byte needles that tell whether raw XML may mention one of some sheet names, so that parts and rows
 * that cannot are copied without decoding. The name's own bytes are not a sound test: a producer may
 * spell any character as a character reference (openpyxl writes `&#12501;` for `フ`) or a predefined
 * entity, and a quoted name doubles its apostrophes (`'Bob''s'!A1`). So we look for the longest run of
 * the name that no producer has to escape and quoting leaves alone, and for any character reference.
 * A hit means "decode and look"; the rewriting itself always works on decoded formula text.
 */
export function sheetNameNeedles(names: readonly string[]): Buffer[] {
  if (names.length === 0) return [];
  const needles = new Set<string>(['&#']);
  for (const name of names) {
    const run = longestPlainRun(name);
    if (run === '') return [Buffer.alloc(0)]; // nothing to look for: every part may mention it
    for (const variant of [run, run.toLowerCase(), run.toUpperCase()]) needles.add(variant);
  }
  return [...needles].map((n) => Buffer.from(n));
}

/** Characters that may be written as an entity (`&amp;`, `&apos;`…) or doubled by quoting. */
const SPELLED_DIFFERENTLY = /[&<>"']/;

function longestPlainRun(name: string): string {
  return name.split(SPELLED_DIFFERENTLY).reduce((a, b) => (b.length > a.length ? b : a), '');
}
