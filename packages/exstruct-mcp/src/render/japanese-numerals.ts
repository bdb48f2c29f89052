// The numerals of [DBNum1] (漢数字: 千二百三十四), [DBNum2] (大字: 壱阡弐百参拾四) and [DBNum3] (full-width
// digits: １２３４), applied to the digits a number format printed.

export type DbNum = 1 | 2 | 3;

const KANJI = '〇一二三四五六七八九';
const DAIJI = '〇壱弐参四伍六七八九';
/** Units inside a group of four digits (ones, tens, hundreds, thousands). */
const KANJI_UNITS = ['', '十', '百', '千'];
const DAIJI_UNITS = ['', '拾', '百', '阡'];
/** Units of the groups of four digits. */
const KANJI_GROUPS = ['', '万', '億', '兆', '京'];
const DAIJI_GROUPS = ['', '萬', '億', '兆', '京'];

/**
 * Rewrites each run of digits in `text`. In a date (`date`), a four-digit run is a year and is read digit
 * by digit (二〇二四), as are digits after a decimal point; other runs are read as numbers with units.
 */
export function kanjiNumerals(text: string, dbNum: DbNum, date: boolean): string {
  if (dbNum === 3) return text.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
  const digits = dbNum === 1 ? KANJI : DAIJI;
  return text.replace(/[0-9]+/g, (run, at: number) => {
    const afterPoint = at > 0 && text[at - 1] === '.' && /[0-9]/.test(text[at - 2] ?? '');
    if (afterPoint || (date && run.length === 4)) return [...run].map((d) => digits[Number(d)]).join('');
    return withUnits(run, dbNum);
  });
}

/** 1234 → 千二百三十四 (一 is left out before 十, 百 and 千, as Excel does); 大字 keeps 壱. */
function withUnits(run: string, dbNum: 1 | 2): string {
  const digits = dbNum === 1 ? KANJI : DAIJI;
  const units = dbNum === 1 ? KANJI_UNITS : DAIJI_UNITS;
  const groups = dbNum === 1 ? KANJI_GROUPS : DAIJI_GROUPS;
  const plain = run.replace(/^0+(?=.)/, '');
  if (plain === '0') return digits[0]!;
  if (plain.length > 4 * groups.length) return [...plain].map((d) => digits[Number(d)]).join('');
  let out = '';
  const groupCount = Math.ceil(plain.length / 4);
  for (let g = 0; g < groupCount; g++) {
    const end = plain.length - 4 * (groupCount - 1 - g);
    const group = plain.slice(Math.max(0, end - 4), end);
    let text = '';
    for (let i = 0; i < group.length; i++) {
      const d = Number(group[i]);
      const unit = group.length - 1 - i;
      if (d === 0) continue;
      text += (d === 1 && unit > 0 && dbNum === 1 ? '' : digits[d]!) + units[unit]!;
    }
    if (text) out += text + groups[groupCount - 1 - g];
  }
  return out;
}
