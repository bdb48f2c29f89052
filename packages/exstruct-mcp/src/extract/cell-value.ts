import type { DateKind } from '../ooxml/number-format.js';

/** A cell value as extraction emits it: text, number, boolean; dates become ISO 8601 text. */
export type CellValue = string | number | boolean;

const MS_PER_DAY = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/**
 * Excel serial day → ISO 8601: `2025-01-01` for midnight, `2025-01-01T13:45:00` with a time, `13:45:00`
 * for a time-of-day format. Serial 60 is Excel's phantom 1900-02-29 (a Lotus 1-2-3 compatibility bug).
 */
export function serialToIso(serial: number, kind: DateKind, date1904 = false): string | number {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2958465) return serial;
  let days = Math.floor(serial);
  // Round to the millisecond: serials carry binary noise (0.5 day = 0.49999999999).
  let ms = Math.round((serial - days) * MS_PER_DAY);
  if (ms >= MS_PER_DAY) {
    days += 1;
    ms -= MS_PER_DAY;
  }
  const time = formatTime(ms);
  if (kind === 'time' && days === 0) return time;
  let date: string;
  if (date1904) {
    date = new Date(EPOCH_1904 + days * MS_PER_DAY).toISOString().slice(0, 10);
  } else if (days === 60) {
    date = '1900-02-29';
  } else {
    // Before the phantom leap day the 1900 system is one day ahead of the calendar.
    const offset = days < 60 ? days + 1 : days;
    date = new Date(EPOCH_1900 + offset * MS_PER_DAY).toISOString().slice(0, 10);
  }
  return ms === 0 ? date : `${date}T${time}`;
}

function formatTime(ms: number): string {
  const totalSeconds = Math.floor(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const millis = ms % 1000;
  const base = `${pad(h)}:${pad(m)}:${pad(s)}`;
  return millis === 0 ? base : `${base}.${String(millis).padStart(3, '0')}`;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?)?$/;
const ISO_TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/**
 * ISO 8601 text as serialToIso writes it → Excel serial day (its inverse), or undefined when the text
 * is not such a date, date-time or time of day. Lets an edit write back a date read by extraction.
 */
export function isoToSerial(text: string, date1904 = false): number | undefined {
  const time = ISO_TIME.exec(text);
  if (time) return dayFraction(time[1]!, time[2]!, time[3]!, time[4]);
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const fraction = m[4] === undefined ? 0 : dayFraction(m[4], m[5]!, m[6]!, m[7]);
  if (fraction === undefined) return undefined;
  if (!date1904 && year === 1900 && month === 2 && day === 29) return 60 + fraction;
  const utc = Date.UTC(year, month - 1, day);
  const back = new Date(utc);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day)
    return undefined;
  let days = Math.round((utc - (date1904 ? EPOCH_1904 : EPOCH_1900)) / MS_PER_DAY);
  // Before the phantom 1900-02-29 the 1900 system is one day ahead of the calendar.
  if (!date1904 && days <= 60) days -= 1;
  if (days < 0 || days > 2958465) return undefined;
  return days + fraction;
}

function dayFraction(h: string, m: string, s: string, millis: string | undefined): number | undefined {
  const [hours, minutes, seconds] = [Number(h), Number(m), Number(s)];
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const ms = ((hours * 60 + minutes) * 60 + seconds) * 1000 + (millis ? Number(millis.padEnd(3, '0')) : 0);
  return ms / MS_PER_DAY;
}
