/**
 * Whether text can be a `t="d"` cell: the ISO 8601 forms such a cell holds (a date, a date and time,
 * a time of day) naming a real instant. Readers turn the text into a date when they load the workbook
 * (openpyxl builds a Python datetime), so `2025-02-30`, `24:00` or year 0000 would make the whole
 * workbook unreadable to them. Returns why not, or undefined when it can.
 */
export function isoDateProblem(text: string): string | undefined {
  const date = DATE.exec(text);
  const time = date ? undefined : TIME.exec(text);
  if (!date && !time)
    return `"${text}" is not ISO 8601 text such as "2025-01-31", "2025-01-31T08:30:00" or "08:30:00"`;
  if (date) {
    const [y, mo, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (y < 1) return `"${text}" is not a date: years run from 0001 to 9999`;
    if (mo < 1 || mo > 12) return `"${text}" is not a date: month ${date[2]} does not exist`;
    const last = daysIn(y, mo);
    if (d < 1 || d > last) return `"${text}" is not a date: ${date[1]}-${date[2]} has days 01 to ${last}`;
  }
  const [hour, minute, second] = date ? [date[4], date[5], date[6]] : [time![1], time![2], time![3]];
  // 24:00 is ISO's end of the day, but readers do not take it: write 00:00 of the next day.
  if (hour !== undefined && Number(hour) > 23) return `"${text}" is not a time: hours run from 00 to 23`;
  if (minute !== undefined && Number(minute) > 59)
    return `"${text}" is not a time: minutes run from 00 to 59`;
  if (second !== undefined && Number(second) > 59)
    return `"${text}" is not a time: seconds run from 00 to 59`;
  return undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** Days of a month in the proleptic Gregorian calendar (1900 is not a leap year). */
function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
