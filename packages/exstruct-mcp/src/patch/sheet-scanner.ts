import { ToolError } from '@mcp-workbench/core/engine';
import { checkRow } from '../ooxml/columns.js';

/** What the scanner reports while it walks a worksheet part. */
export interface SheetScanHandler {
  /** Everything before `<sheetData>`, including its start tag (or up to `<sheetData/>`). */
  head(bytes: Buffer, prefix: string, emptySheetData: boolean): void;
  /** One whole `<row>` element. `row` is its 1-based number (from `r`, or counted). */
  row?(row: number, bytes: Buffer): void;
  /**
   * Instead of `row`: the row as `buf[start, end)`, without a Buffer made for each row (a sheet of
   * 200,000 rows made as many views per pass, and their garbage). `buf` is not changed afterwards.
   * `at`: where the row begins in the part's bytes (`start` in the bytes pushed so far).
   */
  rowIn?(row: number, buf: Buffer, start: number, end: number, at: number): void;
  /** Whitespace or comments between rows. */
  gap?(bytes: Buffer): void;
  /** Instead of `gap`: the gap as `buf[start, end)`. */
  gapIn?(buf: Buffer, start: number, end: number): void;
  /** Everything from `</sheetData>` (or just after `<sheetData/>`) to the end; may come in pieces. */
  tail(bytes: Buffer): void;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;

/**
 * Splits a worksheet part into head, rows and tail while it streams, without parsing the rows:
 * rows nobody edits pass through as the very bytes they were. Works on bytes (tags are ASCII, and
 * UTF-8 never hides an ASCII byte inside a multi-byte character).
 */
export class SheetScanner {
  private pending: Buffer = Buffer.alloc(0);
  /**
   * Set when the scan stopped inside something long (a row, a tag, the head): what says it has ended,
   * and the chunks held until then. Only new chunks are searched, and they are joined once (joining and
   * rescanning a growing row on every chunk made a row tens of MB long take minutes).
   */
  private waiting: EndMarker | undefined;
  private held: Buffer[] = [];
  private heldLength = 0;
  /** Where the next search for `sheetData` in the head starts. */
  private headFrom = 0;
  private phase: 'head' | 'rows' | 'tail' = 'head';
  private prefix = '';
  private rowOpen = Buffer.from('<row');
  private rowClose = Buffer.from('</row>');
  private dataClose = Buffer.from('</sheetData');
  private lastRow = 0;
  /** Where `pending` begins in the part's bytes (it always ends where the bytes pushed so far end). */
  private base = 0;
  /** Where the rows begin in the part's bytes (just past `<sheetData>`), once the head is found. */
  rowsStart = -1;
  /** Where the tail (`</sheetData>` on) begins in the part's bytes, once found. */
  tailStart = -1;

  constructor(private readonly handler: SheetScanHandler) {}

  push(chunk: Buffer): void {
    if (this.phase === 'tail') {
      this.handler.tail(chunk);
      return;
    }
    if (this.waiting) {
      this.held.push(chunk);
      this.heldLength += chunk.length;
      if (!this.waiting.arrivedIn(chunk)) return;
      this.pending = Buffer.concat(this.held, this.heldLength);
      this.waiting = undefined;
      this.held = [];
      this.heldLength = 0;
    } else {
      // An empty pending ended where the chunk begins: `base` is already right.
      this.pending = this.pending.length === 0 ? chunk : this.joinRest(chunk);
    }
    let wait: EndMarker | undefined;
    if (this.phase === 'head') wait = this.scanHead();
    if (this.phase === 'rows') wait = this.scanRows();
    if ((this.phase as string) === 'tail' && this.pending.length > 0) {
      this.handler.tail(this.pending);
      this.pending = Buffer.alloc(0);
    }
    if (wait && this.pending.length > WAIT_AFTER) {
      this.waiting = wait;
      this.held = [this.pending];
      this.heldLength = this.pending.length;
    }
  }

  end(): void {
    if (this.phase !== 'tail' || this.waiting) {
      throw new ToolError('CORRUPT_WORKBOOK', 'A worksheet part ends before its <sheetData> is complete.', {
        hint: 'The workbook looks damaged; open and re-save it in Excel.',
      });
    }
  }

  /**
   * The rest of the last chunk followed by `chunk`. Among the rows, the rest (mostly the start of a
   * row) is first joined with only the head of `chunk` up to its first row end and scanned, so the
   * chunk itself goes on without being copied (copying every chunk behind a few bytes of rest cost
   * more than finding the rows in it); otherwise, or when something is still left, all is joined.
   */
  private joinRest(chunk: Buffer): Buffer {
    if (this.phase === 'rows') {
      const cut = chunk.subarray(0, JOIN_HEAD).indexOf(this.rowClose);
      if (cut >= 0) {
        const headEnd = cut + this.rowClose.length;
        this.pending = Buffer.concat([this.pending, chunk.subarray(0, headEnd)]);
        // What it waits for, if anything, is found again once all is joined.
        const wait = this.scanRows();
        if (!wait && this.phase === 'rows' && this.pending.length === 0) return chunk.subarray(headEnd);
        return Buffer.concat([this.pending, chunk.subarray(headEnd)]);
      }
    }
    return Buffer.concat([this.pending, chunk]);
  }

  /** Finds `<sheetData>`; when it has not come yet, returns what to wait for. */
  private scanHead(): EndMarker | undefined {
    const buf = this.pending;
    let from = this.headFrom;
    for (;;) {
      const at = buf.indexOf('sheetData', from);
      if (at === -1) {
        this.headFrom = Math.max(0, buf.length - SHEET_DATA.length);
        return new EndMarker(SHEET_DATA, buf);
      }
      if (at + 9 >= buf.length) {
        this.headFrom = at; // what follows the name decides: read it with the next chunk
        return undefined;
      }
      let lt = at - 1;
      while (lt >= 0 && lt > at - 40 && buf[lt] !== LT && buf[lt] !== GT) lt--;
      const next = buf[at + 9];
      if (
        lt < 0 ||
        buf[lt] !== LT ||
        buf[lt + 1] === SLASH ||
        !(next === GT || next === SLASH || next === 0x20 || next === 0x09 || next === 0x0a || next === 0x0d)
      ) {
        from = at + 9;
        continue;
      }
      const prefix = buf.toString('latin1', lt + 1, at);
      if (prefix && !prefix.endsWith(':')) {
        from = at + 9;
        continue;
      }
      const close = tagEndBytes(buf, lt);
      if (close === -1) {
        this.headFrom = lt;
        return EndMarker.tagEnd(buf, lt);
      }
      this.setPrefix(prefix);
      // (tagEndBytes gives the offset just past the `>`.)
      const empty = buf[close - 2] === SLASH;
      if (empty) {
        this.handler.head(buf.subarray(0, lt), prefix, true);
        this.tailStart = this.base + close;
        this.phase = 'tail';
      } else {
        this.handler.head(buf.subarray(0, close), prefix, false);
        this.rowsStart = this.base + close;
        this.phase = 'rows';
      }
      this.pending = buf.subarray(close);
      this.base += close;
      return undefined;
    }
  }

  private setPrefix(prefix: string): void {
    this.prefix = prefix;
    this.rowOpen = Buffer.from(`<${prefix}row`);
    this.rowClose = Buffer.from(`</${prefix}row>`);
    this.dataClose = Buffer.from(`</${prefix}sheetData`);
  }

  private gap(buf: Buffer, start: number, end: number): void {
    if (this.handler.gapIn) this.handler.gapIn(buf, start, end);
    else this.handler.gap?.(buf.subarray(start, end));
  }

  /** Hands on whole rows; returns what to wait for when it stopped inside a long one. */
  private scanRows(): EndMarker | undefined {
    const buf = this.pending;
    const base = this.base;
    let pos = 0;
    let wait: EndMarker | undefined;
    for (;;) {
      const lt = buf.indexOf(LT, pos);
      if (lt === -1) {
        if (buf.length > pos) this.gap(buf, pos, buf.length);
        pos = buf.length;
        break;
      }
      if (lt > pos) this.gap(buf, pos, lt);
      pos = lt;
      if (startsWith(buf, lt, this.rowOpen)) {
        const after = buf[lt + this.rowOpen.length];
        if (after === undefined) break;
        if (
          after === GT ||
          after === SLASH ||
          after === 0x20 ||
          after === 0x0a ||
          after === 0x0d ||
          after === 0x09
        ) {
          const startEnd = tagEndBytes(buf, lt);
          if (startEnd === -1) {
            wait = EndMarker.tagEnd(buf, lt);
            break;
          }
          let end: number;
          if (buf[startEnd - 2] === SLASH) end = startEnd;
          else {
            const close = buf.indexOf(this.rowClose, startEnd);
            if (close === -1) {
              wait = new EndMarker(this.rowClose, buf);
              break;
            }
            end = close + this.rowClose.length;
          }
          const row = inGrid(rowNumber(buf, lt, startEnd) ?? this.lastRow + 1);
          this.lastRow = row;
          if (this.handler.rowIn) this.handler.rowIn(row, buf, lt, end, base + lt);
          else this.handler.row?.(row, buf.subarray(lt, end));
          pos = end;
          continue;
        }
      }
      if (startsWith(buf, lt, this.dataClose)) {
        this.pending = buf.subarray(lt);
        this.base = base + lt;
        this.tailStart = this.base;
        this.phase = 'tail';
        return undefined;
      }
      if (buf.length - lt < this.dataClose.length + 1) break; // maybe a split tag
      // Comments and processing instructions between rows pass through.
      const closeAt = startsWith(buf, lt, COMMENT_OPEN) ? buf.indexOf('-->', lt) : buf.indexOf(GT, lt);
      if (closeAt === -1) {
        wait = new EndMarker(startsWith(buf, lt, COMMENT_OPEN) ? COMMENT_CLOSE : GT_BYTES, buf);
        break;
      }
      const end = startsWith(buf, lt, COMMENT_OPEN) ? closeAt + 3 : closeAt + 1;
      if (!startsWith(buf, lt, COMMENT_OPEN) && buf[lt + 1] !== 0x3f) {
        throw new ToolError(
          'CORRUPT_WORKBOOK',
          `Unexpected element in <sheetData>: ${buf.toString('utf8', lt, Math.min(end, lt + 40))}`,
          {
            hint: 'The worksheet XML is not what Excel writes; open and re-save the workbook in Excel.',
          },
        );
      }
      this.gap(buf, lt, end);
      pos = end;
    }
    this.pending = buf.subarray(pos);
    this.base = base + pos;
    return wait;
  }
}

const COMMENT_OPEN = Buffer.from('<!--');
const COMMENT_CLOSE = Buffer.from('-->');
const GT_BYTES = Buffer.from('>');
const SHEET_DATA = Buffer.from('sheetData');
/** How far into a chunk the end of the row begun in the rest is looked for (see joinRest). */
const JOIN_HEAD = 64 * 1024;
/** A shorter rest is simply joined to the next chunk. */
const WAIT_AFTER = 4096;

/**
 * Says when what the scanner waits for has arrived, looking at each new chunk once: a marker (`</row>`,
 * `-->`, `sheetData`), possibly split between chunks, or the `>` that ends a tag (outside quoted
 * attribute values). The scanner then scans the joined bytes as usual.
 */
class EndMarker {
  private tail: Buffer;
  private quote = 0;

  /** `seen`: the bytes already searched (the marker is not in them). */
  constructor(
    private readonly marker: Buffer | undefined,
    seen: Buffer,
  ) {
    this.tail = marker ? Buffer.from(seen.subarray(Math.max(0, seen.length - marker.length + 1))) : EMPTY;
  }

  /** The end of the tag that starts at `start` in `seen` (whose rest has no unquoted `>`). */
  static tagEnd(seen: Buffer, start: number): EndMarker {
    const wait = new EndMarker(undefined, seen);
    wait.arrivedIn(seen.subarray(start + 1));
    return wait;
  }

  arrivedIn(chunk: Buffer): boolean {
    const marker = this.marker;
    if (marker === undefined) {
      let quote = this.quote;
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === GT) return true;
      }
      this.quote = quote;
      return false;
    }
    const seam = Buffer.concat([this.tail, chunk.subarray(0, marker.length - 1)]);
    if (seam.indexOf(marker) >= 0 || chunk.indexOf(marker) >= 0) return true;
    const keep = marker.length - 1;
    this.tail =
      chunk.length >= keep
        ? Buffer.from(chunk.subarray(chunk.length - keep))
        : Buffer.concat([this.tail, chunk]).subarray(-keep);
    return false;
  }
}

const EMPTY = Buffer.alloc(0);

function startsWith(buf: Buffer, at: number, token: Buffer): boolean {
  if (at + token.length > buf.length) return false;
  for (let i = 0; i < token.length; i++) if (buf[at + i] !== token[i]) return false;
  return true;
}

function tagEndBytes(buf: Buffer, start: number): number {
  let quote = 0;
  for (let i = start + 1; i < buf.length; i++) {
    const c = buf[i]!;
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === GT) return i + 1;
  }
  return -1;
}

/** A row of Excel's grid, or CORRUPT_WORKBOOK: no row of a sheet being edited may wrap or be dropped. */
function inGrid(row: number): number {
  try {
    return checkRow(row);
  } catch (error) {
    throw beyondGrid(error as Error);
  }
}

/** CORRUPT_WORKBOOK for a row of an edited sheet outside Excel's grid, or one that cannot be read. */
export function beyondGrid(error: Error): ToolError {
  return new ToolError('CORRUPT_WORKBOOK', `A worksheet to edit was not read: ${error.message}.`, {
    hint: 'Excel never writes such a cell; the file looks crafted or damaged. Open and re-save it in Excel.',
  });
}

const R_ATTR = Buffer.from(' r="');

/** The `r` attribute of a row start tag, read straight from the bytes. */
function rowNumber(buf: Buffer, start: number, end: number): number | undefined {
  // Searched inside the tag only: a row without `r` must not send the search through all that follows.
  const at = indexOfRAttr(buf, start, end);
  if (at === -1) {
    // Attributes may be separated by other whitespace.
    const text = buf.toString('latin1', start, end);
    const m = /\sr\s*=\s*["']([^"']*)["']/.exec(text);
    return m ? Number(m[1]) : undefined;
  }
  const from = at + R_ATTR.length;
  // Plain digits (what every producer writes) are read from the bytes; anything else as before.
  let value = 0;
  let i = from;
  for (; i < end && i - from < 15; i++) {
    const digit = buf[i]! - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  if (i > from && buf[i] === 0x22 && i < end) return value;
  const close = buf.indexOf(0x22, from);
  return Number(buf.toString('latin1', from, close === -1 || close > end ? end : close));
}

/** Where ` r="` begins in `buf[start, end)`, or -1. */
function indexOfRAttr(buf: Buffer, start: number, end: number): number {
  const last = end - R_ATTR.length;
  for (let i = start; i <= last; i++) {
    if (buf[i] === 0x20 && buf[i + 1] === 0x72 && buf[i + 2] === 0x3d && buf[i + 3] === 0x22) return i;
  }
  return -1;
}
