/** Control characters (NUL, escapes, …) and emoji variation selectors: never searched for. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must go
const IGNORED = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]|\ufe0e|\ufe0f/gu;

/**
 * Text normalisation shared by indexing and querying: NFKC (full-width ASCII and half-width kana become
 * their usual forms), lower case, control characters and emoji variation selectors dropped, one space
 * for any run of white space.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(IGNORED, '').replace(/\s+/gu, ' ').trim();
}

/**
 * Han, Hiragana, Katakana (with the prolonged sound mark) and Hangul — scripts written without spaces —
 * and emoji (with their modifiers and joiners): runs of them are searched as substrings, one or two
 * characters through the short-term index.
 */
const CJK_CHARS =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}ー々〆ヵヶ\\p{Extended_Pictographic}\\p{Emoji_Modifier}\\u200d';
const CJK = new RegExp(`[${CJK_CHARS}]`, 'u');
const CJK_RUN = new RegExp(`[${CJK_CHARS}]+`, 'gu');
const WORD_RUN = new RegExp(`[\\p{L}\\p{N}_${CJK_CHARS}]+`, 'gu');
/** A character a term can be found by: a letter, a digit or an emoji. */
const SEARCHABLE = /[\p{L}\p{N}\p{Extended_Pictographic}]/u;

export function isSearchable(text: string): boolean {
  return SEARCHABLE.test(text);
}

export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/** Number of Unicode code points (what "a two-character term" means for 「設計」 and "ui" alike). */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Splits normalised text into runs that are searched as units: runs of CJK characters, and words of
 * other letters and digits. Punctuation and spaces separate runs.
 */
export interface TextRun {
  text: string;
  cjk: boolean;
}

export function textRuns(normalized: string): TextRun[] {
  const runs: TextRun[] = [];
  for (const word of normalized.match(WORD_RUN) ?? []) {
    let last = 0;
    for (const match of word.matchAll(CJK_RUN)) {
      if (match.index > last) runs.push({ text: word.slice(last, match.index), cjk: false });
      runs.push({ text: match[0], cjk: true });
      last = match.index + match[0].length;
    }
    if (last < word.length) runs.push({ text: word.slice(last), cjk: false });
  }
  return runs;
}
