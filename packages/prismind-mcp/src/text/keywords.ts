import { charLength, normalizeText } from './normalize.js';
import { words } from './words.js';

/** The longest keyword or tag generated (characters): a base64 blob or a minified line is no keyword. */
export const MAX_KEYWORD_CHARS = 40;

const KATAKANA = /^[\p{Script=Katakana}ー]+$/u;
const HAN = /^[\p{Script=Han}々]+$/u;
const NUMERIC = /^[\p{N}.,:]+$/u;

/** Common English words that say nothing about a text's subject. */
const STOPWORDS = new Set(
  (
    'a an the and or but if then else when while of to in on at by for with from into onto over under ' +
    'is are was were be been being am do does did done have has had having it its this that these those ' +
    'there here as not no yes can could should would will shall may might must use used using via per ' +
    'you your we our they their he she his her them i me my also just only very more most less than so ' +
    'such what which who whom how why all any each both few other some same own again about after before ' +
    'out up down off too new get got set'
  ).split(' '),
);

/** Japanese words that are grammatical rather than topical even though they are written in kanji. */
const JA_STOP = new Set([
  '場合',
  '必要',
  '方法',
  '時',
  '事',
  '物',
  '為',
  '等',
  '方',
  '中',
  '上',
  '下',
  '前',
  '後',
  '的',
]);

const HAS_KANA = /[\p{Script=Hiragana}]/u;

function candidate(word: string): boolean {
  const n = charLength(word);
  if (n > MAX_KEYWORD_CHARS || NUMERIC.test(word)) return false;
  // Particles, and verbs or adjectives with their endings (仕掛ける, 安定する): not topics.
  if (HAS_KANA.test(word)) return false;
  if (JA_STOP.has(word)) return false;
  if (KATAKANA.test(word)) return n >= 2;
  // A single kanji can be the whole topic (罠, 敵, 弾); its score is lower than a compound's.
  if (HAN.test(word)) return true;
  if (STOPWORDS.has(word.toLowerCase())) return false;
  return n >= 3 || /[\p{Lu}\d+#]/u.test(word);
}

/**
 * Key terms of a text, most telling first (the spec's 「自動生成」 tags and keywords). Words come from
 * ICU's dictionary segmenter, so Japanese is cut into words without spaces; particles, inflections and
 * stop words are dropped; katakana loanwords, kanji compounds, identifiers (WeaponSystem, UE5, C++) stay.
 * Score: frequency, a bonus for words in the title part, and length. Linear in the text's length.
 */
export function extractKeywords(text: string, max: number, title = ''): string[] {
  const scores = new Map<string, { score: number; first: number; shown: string }>();
  // A long text repeats its words: each spelling is judged and normalised once.
  const keys = new Map<string, string | null>();
  const keyOf = (shown: string): string | null => {
    let key = keys.get(shown);
    if (key === undefined) {
      key = candidate(shown) ? normalizeText(shown) : null;
      keys.set(shown, key);
    }
    return key;
  };
  let position = 0;
  const visit = (source: string, weight: number) => {
    // Keep the original spelling of Latin words (UE5, WeaponSystem) while counting them case-insensitively.
    const nfkc = source.normalize('NFKC');
    for (const shown of katakanaJoined(words(nfkc))) {
      const key = keyOf(shown);
      if (key === null) continue;
      const lengthBonus = Math.min(charLength(key), 8) / 8;
      const entry = scores.get(key);
      if (entry) entry.score += weight;
      else scores.set(key, { score: weight + lengthBonus, first: position, shown });
      position++;
    }
  };
  visit(title, 3);
  visit(text, 1);
  return [...scores.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, max)
    .map((e) => e.shown);
}

/**
 * The word-like words, with runs of katakana pieces joined: ICU's dictionary cuts loanwords it does not
 * know (シーク|レット, ビル|ド, エンド|ポイント), and a tag or keyword must be the word a person searches.
 */
function* katakanaJoined(all: Iterable<{ text: string; wordLike: boolean }>): Generator<string> {
  let run = '';
  for (const word of all) {
    if (word.wordLike && KATAKANA.test(word.text)) {
      run += word.text;
      continue;
    }
    if (run) yield run;
    run = '';
    if (word.wordLike) yield word.text;
  }
  if (run) yield run;
}
