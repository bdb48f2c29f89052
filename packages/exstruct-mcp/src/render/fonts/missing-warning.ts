// How a warning names the characters no font has: the sheet images and auto_fit_columns say it alike.

/** At most this many characters are named; the count says how many there were. */
const SAMPLE = 10;

/** `2 character(s) (𠮷 U+20BB7, 😀 U+1F600)`. */
export function missingCharacters(missing: ReadonlySet<string>): string {
  const sample = [...missing].slice(0, SAMPLE);
  const named = sample.map((c) => `${c} U+${c.codePointAt(0)!.toString(16).toUpperCase()}`).join(', ');
  return `${missing.size} character(s) (${named})`;
}

export const FONT_HINT =
  'Install a font that covers them (e.g. Noto Sans CJK) or name one in EXSTRUCT_FONT_FILES.';
