import { format, formatColor, getFormatFromId } from 'numfmt';
import type { CellFormat } from './cell-formats.js';
import { japaneseFormat } from './japanese-dates.js';

/** A cell value as the sheet stores it. */
export interface RawCell {
  /** The `t` attribute: s, str, inlineStr, b, e, n, d (undefined = number). */
  type: string | undefined;
  value: string | undefined;
  style: number;
}

/** What a cell shows: its text, how it aligns by default, and a colour its number format asks for. */
export interface DisplayText {
  text: string;
  /** General alignment: numbers and dates right, booleans and errors centred, text left. */
  align: 'left' | 'right' | 'center';
  /** A number: shown as #### when it does not fit (never overflows into its neighbours). */
  numeric: boolean;
  /** RRGGBB from a [Red]-style section of the format, if any. */
  color: string | undefined;
  /** The number, for re-formatting General with fewer digits when it does not fit. */
  number: number | undefined;
}

/** The Japanese built-in formats (ids 27–36, 50–58), which numfmt gives as the US date. */
const JAPANESE_BUILTINS: Record<number, string> = {
  27: '[$-411]ge.m.d',
  28: '[$-411]ggge"年"m"月"d"日"',
  29: '[$-411]ggge"年"m"月"d"日"',
  30: 'm/d/yy',
  31: 'yyyy"年"m"月"d"日"',
  32: 'h"時"mm"分"',
  33: 'h"時"mm"分"ss"秒"',
  34: 'yyyy"年"m"月"',
  35: 'm"月"d"日"',
  36: '[$-411]ge.m.d',
  50: '[$-411]ge.m.d',
  51: '[$-411]ggge"年"m"月"d"日"',
  52: 'yyyy"年"m"月"',
  53: 'm"月"d"日"',
  54: '[$-411]ggge"年"m"月"d"日"',
  55: 'yyyy"年"m"月"',
  56: 'm"月"d"日"',
  57: '[$-411]ge.m.d',
  58: '[$-411]ggge"年"m"月"d"日"',
};

const NAMED_COLORS: Record<string, string> = {
  black: '000000',
  blue: '0000FF',
  cyan: '00FFFF',
  green: '00FF00',
  magenta: 'FF00FF',
  red: 'FF0000',
  white: 'FFFFFF',
  yellow: 'FFFF00',
};

export function formatCodeOf(format: CellFormat | undefined): string {
  if (!format) return 'General';
  if (format.formatCode !== undefined) return format.formatCode;
  return JAPANESE_BUILTINS[format.numFmtId] ?? getFormatFromId(format.numFmtId) ?? 'General';
}

/** Days from 1899-12-30 (the 1900 system's serial 0) to 1904-01-01. */
const DAYS_1904 = 1462;

/** The text a cell shows, formatted with its number format as Excel shows it. */
export function displayText(
  cell: RawCell,
  cellFormat: CellFormat | undefined,
  sharedStrings: readonly string[],
  date1904: boolean,
): DisplayText {
  const plain = (text: string, align: DisplayText['align'] = 'left'): DisplayText => ({
    text,
    align,
    numeric: false,
    color: undefined,
    number: undefined,
  });
  const raw = cell.value ?? '';
  switch (cell.type) {
    case 's':
      return textWithFormat(sharedStrings[Number(raw)] ?? '', cellFormat);
    case 'inlineStr':
    case 'str':
      return textWithFormat(raw, cellFormat);
    case 'b':
      return plain(raw === '1' || raw === 'true' ? 'TRUE' : 'FALSE', 'center');
    case 'e':
      return plain(raw, 'center');
    case 'd': {
      const serial = isoToSerial(raw);
      return serial === undefined ? plain(raw) : numberText(serial, cellFormat);
    }
    default: {
      if (raw === '') return plain('');
      const value = Number(raw);
      if (!Number.isFinite(value)) return plain(raw);
      return numberText(date1904 ? value + DAYS_1904 : value, cellFormat);
    }
  }
}

function textWithFormat(text: string, cellFormat: CellFormat | undefined): DisplayText {
  const code = formatCodeOf(cellFormat);
  let shown = text;
  // A text section (`@` in the fourth section or alone) may wrap the text in literals.
  if (code !== 'General' && code.includes('@')) {
    try {
      shown = format(code, text);
    } catch {
      shown = text;
    }
  }
  return { text: shown, align: 'left', numeric: false, color: undefined, number: undefined };
}

function numberText(value: number, cellFormat: CellFormat | undefined): DisplayText {
  const code = formatCodeOf(cellFormat);
  let text: string;
  let color: string | undefined;
  try {
    // numfmt knows no era, Japanese weekday or [DBNumN]: those tokens are rewritten around it.
    const japanese = japaneseFormat(code, value);
    text = japanese.numerals(format(japanese.code, value, { nbsp: false, throws: false }));
    const named = formatColor(code, value, { throws: false });
    if (typeof named === 'string')
      color = named.startsWith('#') ? named.slice(1).toUpperCase() : NAMED_COLORS[named];
  } catch {
    text = format('General', value);
  }
  return { text, align: 'right', numeric: true, color, number: code === 'General' ? value : undefined };
}

/** Shorter General forms of a number, most precise first (Excel drops decimals to fit the column). */
export function* shorterGeneral(value: number): Generator<string> {
  const abs = Math.abs(value);
  for (let digits = 9; digits >= 1; digits--) {
    if (abs >= 1e-4 && abs < 1e11) {
      const fixed = Number(value.toPrecision(digits));
      yield String(fixed);
    }
  }
  for (let digits = 5; digits >= 0; digits--)
    yield value.toExponential(digits).replace('e', 'E').replace(/E(\d)/, 'E+$1');
}

function isoToSerial(text: string): number | undefined {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?)?|^(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/.exec(
      text,
    );
  if (!m) return undefined;
  if (m[7] !== undefined) return (Number(m[7]) * 3600 + Number(m[8]) * 60 + Number(m[9] ?? 0)) / 86400;
  const days = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86400000 + 25569;
  const time = (Number(m[4] ?? 0) * 3600 + Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0)) / 86400;
  return days + time;
}
