/**
 * What a cell's number format says about its number: `date` (a calendar date, maybe with a time),
 * `time` (a time of day only), or undefined (a plain number, including elapsed `[h]:mm` durations).
 */
export type DateKind = 'date' | 'time' | undefined;

/** Built-in format ids that are dates or times (ECMA-376 18.8.30 plus the CJK built-ins 27–58). */
const BUILTIN_DATE_IDS = new Set([
  14, 15, 16, 17, 22, 27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58,
]);
// 46 is [h]:mm:ss, an elapsed duration: a plain number, as custom [h]:mm is.
const BUILTIN_TIME_IDS = new Set([18, 19, 20, 21, 32, 33, 45, 47, 55, 56]);

export function classifyNumberFormat(numFmtId: number, formatCode: string | undefined): DateKind {
  if (formatCode === undefined) {
    if (BUILTIN_DATE_IDS.has(numFmtId)) return 'date';
    if (BUILTIN_TIME_IDS.has(numFmtId)) return 'time';
    return undefined;
  }
  return classifyFormatCode(formatCode);
}

/**
 * Classifies a custom format code such as `yyyy/m/d`, `h:mm AM/PM` or `[$-411]ggge"年"m"月"d"日"`, from
 * the tokens of its first section: quoted and escaped literals, padding and repeat directives,
 * bracketed colours, conditions and locales, `General` and scientific `E+`/`E-` are not date tokens
 * (`[Red]General` and `[$-409]General` are plain numbers).
 */
export function classifyFormatCode(code: string): DateKind {
  // Only the first section (positive numbers) decides.
  const section = splitSections(code)[0] ?? '';
  let date = false;
  let time = false;
  let month = false;
  let digits = false;
  for (let i = 0; i < section.length; i++) {
    const ch = section[i]!;
    if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      i = end < 0 ? section.length : end;
      continue;
    }
    if (ch === '\\' || ch === '_' || ch === '*') {
      i++; // the next character is a literal, a width or a fill
      continue;
    }
    if (ch === '[') {
      const end = section.indexOf(']', i + 1);
      const inner = section.slice(i + 1, end < 0 ? section.length : end);
      // Elapsed-time formats ([h], [mm], [ss]) show durations, not points in time.
      if (/^(h+|m+|s+)$/i.test(inner)) return undefined;
      i = end < 0 ? section.length : end;
      continue;
    }
    const rest = section.slice(i, i + 7).toLowerCase();
    if (rest === 'general') {
      i += 6;
      continue;
    }
    if (rest.startsWith('am/pm') || rest.startsWith('a/p')) {
      time = true;
      i += rest.startsWith('am/pm') ? 4 : 2;
      continue;
    }
    if (rest.startsWith('aaa')) {
      date = true; // the weekday of Japanese formats (aaa 金, aaaa 金曜日)
      while (section[i + 1]?.toLowerCase() === 'a') i++;
      continue;
    }
    switch (ch.toLowerCase()) {
      case 'e':
        if (section[i + 1] === '+' || section[i + 1] === '-')
          i++; // scientific notation
        else date = true; // the era year of Japanese formats
        break;
      case 'y':
      case 'd':
      case 'g': // era name
        date = true;
        break;
      case 'h':
      case 's':
        time = true;
        break;
      case 'm':
        month = true;
        break;
      case '0':
      case '#':
      case '?':
        digits = true;
        break;
    }
  }
  if (date) return 'date';
  if (time) return 'time';
  // A lone `m` is a month next to date tokens (handled above) or minutes next to h/s; alone it is a month.
  if (month && !digits) return 'date';
  return undefined;
}

function splitSections(code: string): string[] {
  const sections: string[] = [];
  let current = '';
  let inQuote = false;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '"') inQuote = !inQuote;
    if (ch === '\\' && !inQuote) {
      current += ch + (code[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === ';' && !inQuote) {
      sections.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  sections.push(current);
  return sections;
}
