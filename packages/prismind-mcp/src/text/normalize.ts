/**
 * Text normalisation shared by indexing and querying: NFKC (full-width ASCII and half-width kana become
 * their usual forms), lower case, one space for any run of white space.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** Han, Hiragana, Katakana (with the prolonged sound mark) and Hangul: scripts written without spaces. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆ヵヶ]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆ヵヶ]+/gu;
const WORD_RUN = /[\p{L}\p{N}_]+/gu;

export function isCjk(char: string): boolean {
  return CJK.test(char);
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
