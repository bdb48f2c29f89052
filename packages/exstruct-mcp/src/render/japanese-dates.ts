// Japanese tokens of number formats that numfmt does not know: era names and years (g, e; y after g),
// weekdays (aaa, aaaa) and the [DBNumN] numerals. Era and weekday tokens are rewritten into quoted
// literals for the value at hand before numfmt sees the code; [DBNumN] rewrites the digits it printed.
import { kanjiNumerals, type DbNum } from './japanese-numerals.js';

interface Era {
  /** First day, as yyyymmdd. */
  start: number;
  letter: string;
  short: string;
  name: string;
}

/** The eras Excel knows; Excel's dates start in 1900 (Meiji 33), so Meiji's start is never reached. */
const ERAS: readonly Era[] = [
  { start: 2019_05_01, letter: 'R', short: '令', name: '令和' },
  { start: 1989_01_08, letter: 'H', short: '平', name: '平成' },
  { start: 1926_12_25, letter: 'S', short: '昭', name: '昭和' },
  { start: 1912_07_30, letter: 'T', short: '大', name: '大正' },
  { start: 1868_09_08, letter: 'M', short: '明', name: '明治' },
];

const WEEKDAYS = '日月火水木金土';

/** Beyond 9999-12-31 Excel shows no date at all (numfmt prints its own ####). */
const LAST_SERIAL = 2958465;

export interface JapaneseFormat {
  /** The code for numfmt: era and weekday tokens replaced by the value's text. */
  code: string;
  /** Rewrites the digits numfmt printed as [DBNumN] asks (identity without one). */
  numerals: (text: string) => string;
}

/** Codes with no Japanese token, which most cells have: known after one look, then passed through. */
const PLAIN = new Set<string>();
const PLAIN_MAX = 2000;
/** Any day: tokens are rewritten whatever the day, so one look at one day tells whether a code has any. */
const PROBE = 45366;

const identity = (text: string) => text;

/** Rewrites the Japanese tokens of `code` for `value` (a serial when the code is a date format). */
export function japaneseFormat(code: string, value: number): JapaneseFormat {
  if (PLAIN.has(code)) return { code, numerals: identity };
  const probe = rewrite(code, PROBE);
  if (probe.code === code && probe.numerals === identity) {
    if (PLAIN.size >= PLAIN_MAX) PLAIN.clear();
    PLAIN.add(code);
    return probe;
  }
  return rewrite(code, value);
}

function rewrite(code: string, value: number): JapaneseFormat {
  let dbNum: DbNum | undefined;
  let dateSection = false;
  const day = dayOf(value);
  const sections = splitSections(code).map((section) => {
    const rewritten = rewriteSection(section, day);
    dbNum ??= rewritten.dbNum;
    dateSection ||= rewritten.date;
    return rewritten.code;
  });
  const numerals = dbNum ? (text: string) => kanjiNumerals(text, dbNum!, dateSection) : identity;
  return { code: sections.join(';'), numerals };
}

interface Day {
  year: number;
  month: number;
  date: number;
  weekday: number;
}

/** The calendar day a serial shows (time rounded to the second, as it is displayed). */
function dayOf(value: number): Day | undefined {
  if (!Number.isFinite(value) || value < 0 || value >= LAST_SERIAL + 1) return undefined;
  const serial = Math.floor(Math.round(value * 86400) / 86400);
  // Excel's serial 60 is 1900-02-29, a day that never was: before it, count from 1899-12-31.
  const d = new Date(Date.UTC(1899, 11, serial < 61 ? 31 : 30) + serial * 86400000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    date: d.getUTCDate(),
    // Excel calls serial 1 a Sunday (1900-01-01 was a Monday; Excel keeps Lotus's count).
    weekday: (((serial - 1) % 7) + 7) % 7,
  };
}

/** Splits at `;` outside quotes, escapes and brackets. */
function splitSections(code: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i];
    if (ch === '"') i = skipQuoted(code, i) - 1;
    else if (ch === '\\' || ch === '_' || ch === '*') i++;
    else if (ch === '[') i = closing(code, i);
    else if (ch === ';') {
      out.push(code.slice(start, i));
      start = i + 1;
    }
  }
  out.push(code.slice(start));
  return out;
}

/** The index after a quoted literal starting at `i`. */
function skipQuoted(code: string, i: number): number {
  const end = code.indexOf('"', i + 1);
  return end < 0 ? code.length : end + 1;
}

function closing(code: string, i: number): number {
  const end = code.indexOf(']', i);
  return end < 0 ? code.length - 1 : end;
}

const quote = (text: string) => `"${text}"`;

interface Rewritten {
  code: string;
  dbNum: DbNum | undefined;
  /** Holds date tokens (its numbers are years, months and days). */
  date: boolean;
}

/** The locale of a `[$…-locale]` tag, if the bracket is one. */
function localeOf(bracket: string): string | undefined {
  const m = /^\[\$[^-\]]*-([^\]]+)\]$/.exec(bracket);
  return m?.[1];
}

function isJapanese(locale: string): boolean {
  if (/^[0-9a-f]+$/i.test(locale)) return (parseInt(locale, 16) & 0xffff) === 0x411;
  return /^ja(?:-|$)/i.test(locale);
}

function rewriteSection(section: string, day: Day | undefined): Rewritten {
  // Which locale rules: Japanese tags, or none (a workbook using g or aaa at all is Japanese).
  let locale: string | undefined;
  let dbNum: DbNum | undefined;
  for (const m of section.matchAll(/\[[^\]]*\]/g)) {
    locale ??= localeOf(m[0]);
    const db = /^\[DBNum([123])\]$/i.exec(m[0]);
    if (db) dbNum = Number(db[1]) as DbNum;
  }
  const japanese = locale === undefined || isJapanese(locale);
  const gannen = locale !== undefined && /-x-gannen$/i.test(locale);
  const explicit = locale !== undefined && japanese;
  const era = day ? eraOf(day) : undefined;
  const eraYear = (digits: number) => {
    if (!day || !era) return '';
    const year = day.year - Math.floor(era.start / 10000) + 1;
    return gannen && year === 1 ? '元' : String(year).padStart(digits, '0');
  };
  let out = '';
  let sawEra = false;
  let date = false;
  for (let i = 0; i < section.length;) {
    const ch = section[i]!;
    const rest = section.slice(i);
    const run = (letter: RegExp) => /^(.)\1*/.exec(rest)![0].length * (letter.test(ch) ? 1 : 0);
    if (ch === '"') {
      const end = skipQuoted(section, i);
      out += section.slice(i, end);
      i = end;
    } else if (ch === '\\' || ch === '_' || ch === '*') {
      out += section.slice(i, i + 2);
      i += 2;
    } else if (ch === '[') {
      const end = closing(section, i) + 1;
      // numfmt knows no [DBNumN]: the digits are rewritten after it formatted.
      if (!/^\[DBNum\d\]$/i.test(section.slice(i, end))) out += section.slice(i, end);
      i = end;
    } else if (/^(?:general|am\/pm|a\/p)/i.test(rest)) {
      const len = /^general/i.test(rest) ? 7 : /^am\/pm/i.test(rest) ? 5 : 3;
      out += rest.slice(0, len);
      i += len;
    } else if (/[gG]/.test(ch) && japanese && day) {
      const n = run(/[gG]/);
      out += quote(n === 1 ? era!.letter : n === 2 ? era!.short : era!.name);
      sawEra = true;
      date = true;
      i += n;
    } else if (/[eE]/.test(ch) && day && (explicit || sawEra)) {
      const n = run(/[eE]/);
      if (/^[+-]/.test(section.slice(i + n))) {
        out += section.slice(i, i + n); // scientific notation
      } else {
        out += quote(eraYear(n === 1 ? 1 : 2));
        date = true;
      }
      i += n;
    } else if (/[yY]/.test(ch) && day && sawEra) {
      // After an era name, a year is the era's year (as Japanese Excel reads it).
      const n = run(/[yY]/);
      out += quote(eraYear(n === 1 ? 1 : 2));
      date = true;
      i += n;
    } else if (/[aA]/.test(ch) && japanese && day && run(/[aA]/) >= 3) {
      const n = run(/[aA]/);
      const name = WEEKDAYS[day.weekday]!;
      out += quote(n === 3 ? name : `${name}曜日`);
      date = true;
      i += n;
    } else {
      if (/[ymdhs]/i.test(ch)) date = true;
      out += ch;
      i++;
    }
  }
  return { code: out, dbNum, date };
}

function eraOf(day: Day): Era | undefined {
  const ymd = day.year * 10000 + day.month * 100 + day.date;
  return ERAS.find((era) => ymd >= era.start);
}
