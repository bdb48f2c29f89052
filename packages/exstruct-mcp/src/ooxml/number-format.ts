/**
 * What a cell's number format says about its number: `date` (a calendar date, maybe with a time),
 * `time` (a time of day only), or undefined (a plain number, including elapsed `[h]:mm` durations).
 */
export type DateKind = 'date' | 'time' | undefined;

/** Built-in format ids that are dates or times (ECMA-376 18.8.30 plus the CJK built-ins 27–58). */
const BUILTIN_DATE_IDS = new Set([
  14, 15, 16, 17, 22, 27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58,
]);
const BUILTIN_TIME_IDS = new Set([18, 19, 20, 21, 32, 33, 45, 46, 47, 55, 56]);

export function classifyNumberFormat(numFmtId: number, formatCode: string | undefined): DateKind {
  if (formatCode === undefined) {
    if (BUILTIN_DATE_IDS.has(numFmtId)) return 'date';
    if (BUILTIN_TIME_IDS.has(numFmtId)) return 'time';
    return undefined;
  }
  return classifyFormatCode(formatCode);
}

/** Classifies a custom format code such as `yyyy/m/d`, `h:mm AM/PM` or `[$-411]ggge"年"m"月"d"日"`. */
export function classifyFormatCode(code: string): DateKind {
  // Only the first section (positive numbers) decides.
  const section = splitSections(code)[0] ?? '';
  if (/^\s*general\s*$/i.test(section)) return undefined;
  // Elapsed-time formats ([h], [mm], [ss]) show durations, not points in time.
  if (/\[(h+|m+|s+)\]/i.test(section)) return undefined;
  const stripped = section
    .replace(/"[^"]*"/g, '') // quoted literals
    .replace(/\\./g, '') // escaped characters
    .replace(/\[[^\]]*\]/g, '') // colours, conditions, locales
    .replace(/[_*]./g, '') // padding/repeat directives
    .replace(/E[+-]/gi, ''); // scientific notation
  if (/[yde]/i.test(stripped) || /g{1,3}/i.test(stripped.replace(/general/gi, ''))) return 'date';
  if (/[hs]/i.test(stripped)) return 'time';
  // A lone `m` is a month next to date tokens (handled above) or minutes next to h/s; alone it is a month.
  if (/m/i.test(stripped) && !/[0#?]/.test(stripped)) return 'date';
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
