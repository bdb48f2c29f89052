import type { CellStyle } from '../ooxml/styles.js';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import type { CellHandler } from '../ooxml/worksheet-reader.js';
import { DECIMALS, Kind, SegmentBuilder, type RowSegment } from './row-store.js';

/**
 * What turning raw cells into stored values needs, as plain typed arrays so the same configuration can
 * be posted to worker threads.
 */
export interface SinkConfig {
  /** Per cell style: 0 plain number, 1 date, 2 time of day. */
  dateKind: Uint8Array;
  /** Per cell style: 1 when the style draws a border. */
  bordered: Uint8Array;
  /** How many shared strings there are (an index past them is no value). */
  sharedCount: number;
}

export function sinkConfig(cellStyles: readonly CellStyle[], sharedStrings: readonly string[]): SinkConfig {
  const dateKind = new Uint8Array(cellStyles.length);
  const bordered = new Uint8Array(cellStyles.length);
  cellStyles.forEach((style, i) => {
    dateKind[i] = style.dateKind === 'date' ? 1 : style.dateKind === 'time' ? 2 : 0;
    bordered[i] = style.bordered ? 1 : 0;
  });
  return { dateKind, bordered, sharedCount: sharedStrings.length };
}

const configs = new WeakMap<WorkbookReader, Promise<SinkConfig>>();

/** The workbook's sink configuration, computed once per open workbook (shared by sheets and workers). */
export function workbookSinkConfig(reader: WorkbookReader): Promise<SinkConfig> {
  let config = configs.get(reader);
  if (!config) {
    config = Promise.all([reader.styles(), reader.sharedStrings()]).then(([styles, strings]) =>
      sinkConfig(styles.cellStyles, strings),
    );
    configs.set(reader, config);
  }
  return config;
}

/**
 * The count of decimals of a fractional number's text when the text is exactly what JSON.stringify
 * writes for its value, judged from its shape alone; 0 otherwise. The shape is
 * `-?(0|[1-9]\d*)\.\d*[1-9]`, at most 12 characters (so at most 11 digits, which a double keeps
 * exactly), not below 1e-6 (JavaScript writes those with an exponent). For such text, `toFixed(n)` of
 * the value gives the text back.
 */
export function jsonFractionDigits(text: string): number {
  const n = text.length;
  if (n > 12) return 0;
  let i = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  const intStart = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intDigits = i - intStart;
  if (intDigits === 0 || (intDigits > 1 && text.charCodeAt(intStart) === 48)) return 0;
  if (i >= n - 1 || text.charCodeAt(i) !== 46 /* . */) return 0;
  const fracStart = ++i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  if (i !== n || text.charCodeAt(n - 1) === 48) return 0;
  if (intDigits === 1 && text.charCodeAt(intStart) === 48) {
    let zeros = 0;
    while (text.charCodeAt(fracStart + zeros) === 48) zeros++;
    if (zeros > 5) return 0;
  }
  return n - fracStart;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Largest serial Excel shows as a date (9999-12-31). */
export const MAX_DATE_SERIAL = 2958465;

export interface CellSink {
  onCell: CellHandler;
  /** The stored rows and the (row, col) pairs of bordered cells. */
  finish(): { segment: RowSegment; borders: Int32Array };
}

/**
 * Stores one raw cell's value (the sheet's `t`, `s` and `<v>` text) in the columnar row store: shared
 * strings stay indexes, numbers formatted as dates are marked as dates. A cell holding an empty or
 * whitespace-only string is kept (an agent must be able to tell it from an empty cell); a cell without a
 * value (`<c/>`, `<v/>` of a number, shared string or error) is not. The fast row parser (fast-rows.ts)
 * comes here for every value it does not decide itself.
 */
export function storeValue(
  builder: SegmentBuilder,
  config: SinkConfig,
  row: number,
  col: number,
  type: string | undefined,
  style: number,
  raw: string | undefined,
): void {
  if (raw === undefined) return;
  switch (type) {
    case 's': {
      // `<v/>` is no index at all (+'' would be shared string 0).
      if (raw === '') return;
      const index = +raw;
      if (!(Number.isInteger(index) && index >= 0 && index < config.sharedCount)) return;
      builder.add(row, col, Kind.Shared, index);
      return;
    }
    case 'b':
      builder.add(row, col, raw === '1' || raw === 'true' ? Kind.True : Kind.False, 0);
      return;
    case 'str':
    case 'inlineStr':
      builder.addText(row, col, raw);
      return;
    case 'e':
    case 'd':
      if (raw.trim() !== '') builder.addText(row, col, raw);
      return;
    default: {
      if (raw === '') return;
      const number = +raw;
      if (Number.isNaN(number)) {
        builder.addText(row, col, raw);
        return;
      }
      const date = config.dateKind[style] ?? 0;
      if (date !== 0 && number >= 0 && number <= MAX_DATE_SERIAL) {
        builder.add(row, col, date === 1 ? Kind.Date : Kind.Time, number);
      } else {
        // A fraction written the way JSON writes it keeps its count of decimals (see DECIMALS).
        const decimals = number % 1 === 0 ? 0 : jsonFractionDigits(raw);
        builder.add(row, col, decimals > 0 ? DECIMALS + decimals : Kind.Number, number);
      }
    }
  }
}

/**
 * Turns raw sheet cells into the columnar row store (storeValue), noting bordered cells for table
 * detection (even when empty).
 */
export function createCellSink(config: SinkConfig, expectedCells?: number): CellSink {
  const builder = new SegmentBuilder(expectedCells);
  const { bordered } = config;
  const anyBorders = bordered.includes(1);
  let borders: number[] = [];
  const onCell: CellHandler = (row, col, type, style, raw) => {
    if (anyBorders && bordered[style] === 1) borders.push(row, col);
    storeValue(builder, config, row, col, type, style, raw);
  };
  return {
    onCell,
    finish() {
      const result = { segment: builder.finish(), borders: Int32Array.from(borders) };
      borders = [];
      return result;
    },
  };
}
