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
