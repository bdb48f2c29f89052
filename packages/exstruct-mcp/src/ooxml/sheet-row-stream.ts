import { ToolError } from '@mcp-workbench/core/engine';
import { isMainNs } from './namespaces.js';
import type { SaxHandlers } from './sax.js';
import { SurroundParser, type SurroundRecord } from './surround-parser.js';
import { ROOT_SCOPE, type NsScope } from './xml-tokenizer.js';
import type { ZipArchive } from './zip-archive.js';
import { throwIfCancelled } from './cancel.js';

/** Where the content of sheetData goes. */
export interface SheetRowSink {
  /**
   * Called once, before any rows, with the namespace declarations in force inside sheetData (the row
   * tokenizer resolves prefixes with them) and sheetData's own prefix (`x:` or '').
   */
  start?(scope: NsScope, prefix: string): void;
  /**
   * The content of sheetData in sheet order. With `wholeRows`, runs of whole `<row>` elements (about
   * `RUN_BYTES` long); without, the bytes as they arrive, cut anywhere (and never joined: a piece may
   * be a few bytes long). `bytes` is only valid during the call (its memory is reused for the next
   * run): copy what must be kept.
   */
  rows(bytes: Buffer): void;
  /** Awaited after each run cut from the stream: lets the consumer hold the stream back. */
  drain?(): Promise<void>;
}

export interface RowStreamOptions {
  /** Cut the rows into runs of whole `<row>` elements (for parsing them apart, e.g. on other threads). */
  wholeRows?: boolean;
  signal?: AbortSignal | undefined;
}

/** Runs of rows are cut once this many bytes have arrived. */
export const RUN_BYTES = 1024 * 1024;
/**
 * A run that finds no row end within this many bytes cannot be cut into whole rows: the sheet is then
 * read in one stream, which never holds more than a piece of it (a hostile row tens of MB long would
 * otherwise be held whole, and parsed as one string).
 */
export const MAX_RUN_BYTES = 8 * RUN_BYTES;

/** Thrown (with `wholeRows`) when the rows cannot be cut: the caller parses the sheet in one stream. */
export class RowsNotSeparable extends Error {
  override name = 'RowsNotSeparable';
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Where to cut `bytes` so the first part ends with a whole row: after the last `</row>` that is followed
 * by another tag (so a `</row>` inside a comment or CDATA section is not taken for the end of a row).
 * Returns 0 when there is no such place.
 */
export function cutAfterLastRow(bytes: Buffer, rowClose: Buffer): number {
  let from = bytes.length;
  for (;;) {
    const at = bytes.lastIndexOf(rowClose, from - 1);
    if (at < 0) return 0;
    let next = at + rowClose.length;
    while (next < bytes.length && WHITESPACE.has(bytes[next]!)) next++;
    if (next < bytes.length && bytes[next] === 0x3c /* < */) return at + rowClose.length;
    from = at;
  }
}

/** The surroundings of the last whole sheet part read from each package (see SurroundParser). */
const lastSurroundings = new WeakMap<ZipArchive, SurroundRecord>();

/** Bytes kept from one chunk to the next so a marker split between them is still found. */
const SEAM = 64;

const SHEET_DATA = Buffer.from('sheetData');

/** `\s` of a regular expression, for the bytes of a latin1 string. */
function isSpaceByte(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0;
}

/** `[\w.-]` (a name character) for a byte. */
function isNameByte(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x2d
  );
}

/** `[A-Za-z_]` (a name's first character) for a byte. */
function isNameStartByte(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/**
 * The start tag of sheetData in `bytes` (`<([A-Za-z_][\w.-]*:)?sheetData[\s/>]` over their latin1
 * text): its offset and prefix, or undefined. Searched in the bytes: a latin1 copy of each whole sheet
 * was a sixth of what a workbook of small sheets allocated.
 */
export function findSheetDataStart(bytes: Buffer): { at: number; prefix: string } | undefined {
  for (let name = bytes.indexOf(SHEET_DATA); name >= 0; name = bytes.indexOf(SHEET_DATA, name + 1)) {
    const after = name + SHEET_DATA.length;
    if (after >= bytes.length) return undefined;
    const next = bytes[after]!;
    if (!isSpaceByte(next) && next !== 0x2f && next !== 0x3e) continue;
    if (name > 0 && bytes[name - 1] === 0x3c) return { at: name - 1, prefix: '' };
    if (name === 0 || bytes[name - 1] !== 0x3a) continue;
    // `<prefix:sheetData`: the prefix is the run of name characters before the colon, right after a
    // `<` (which is no name character, so no other `<` can start a match of this occurrence).
    let start = name - 1;
    while (start > 0 && isNameByte(bytes[start - 1]!)) start--;
    if (start === 0 || start === name - 1 || bytes[start - 1] !== 0x3c || !isNameStartByte(bytes[start]!))
      continue;
    return { at: start - 1, prefix: bytes.toString('latin1', start, name) };
  }
  return undefined;
}

/** The end of `</sheetData` (as `</x:sheetData` when prefixed) that the search below looks for first. */
const DATA_CLOSE_TAIL = 7;

/**
 * `bytes.indexOf(dataClose)`, in a tenth of its time on the rows producers write: searching for the
 * whole `</sheetData`, whose first bytes are in every tag, Node's search could skip only a byte or two
 * at a time; its tail `heetDat` holds neither `<` nor `/` (16-18 against 1.8-2 ms over the 48 MB of
 * the 1M-cell benchmark sheet, 4.9 against 4.2 ms over English text).
 */
export function indexOfDataClose(bytes: Buffer, dataClose: Buffer): number {
  const head = dataClose.length - DATA_CLOSE_TAIL - 1;
  const tail = dataClose.subarray(head, head + DATA_CLOSE_TAIL);
  for (let at = bytes.indexOf(tail, head); at >= 0; at = bytes.indexOf(tail, at + 1)) {
    const start = at - head;
    const last = at + DATA_CLOSE_TAIL;
    if (bytes[last] === dataClose[last - start] && bytes.compare(dataClose, 0, head, start, at) === 0)
      return start;
  }
  return -1;
}

/** Offset just past the `>` of the tag starting at `start`, honouring quotes; -1 when not complete. */
function tagEnd(bytes: Buffer, start: number): number {
  let quote = 0;
  for (let i = start + 1; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i + 1;
  }
  return -1;
}

/**
 * Streams a worksheet part once, splitting it where its structure allows: what surrounds sheetData
 * (columns, merges, links, drawing references) goes through the strict tokenizer with `surround`, and
 * the content of sheetData goes to `sink` without being parsed here — as it arrives, or (`wholeRows`)
 * in runs of whole `<row>` elements cut at `</row>` boundaries. Every byte is looked at a bounded number
 * of times, whatever the chunking or the length of rows. A part that ends inside its sheetData is
 * CORRUPT_WORKBOOK.
 */
export async function streamSheetRows(
  zip: ZipArchive,
  part: string,
  surround: SaxHandlers,
  sink: SheetRowSink,
  options: RowStreamOptions = {},
): Promise<void> {
  let scope: NsScope = ROOT_SCOPE;
  const userOpen = surround.open;
  // A small part comes whole, without a stream (a workbook of many small sheets paid for one each), in
  // memory the archive reuses for the next sheet: nothing here or in the sinks keeps its bytes.
  const whole = zip.borrowPart(part);
  // The surroundings of a whole part replay those of the last one read from the package where equal.
  const parser = new SurroundParser(
    part,
    {
      ...surround,
      open(name, attrs, tag) {
        if (name === 'sheetData' && isMainNs(tag.ns)) scope = (tag as { scope?: NsScope }).scope ?? scope;
        userOpen?.(name, attrs, tag);
      },
    },
    whole ? lastSurroundings.get(zip) : undefined,
  );
  const feedSurround = (bytes: Buffer) => parser.feed(bytes);

  let mode: 'before' | 'tag' | 'rows' | 'after' = 'before';
  let rowClose = Buffer.from('</row>');
  let dataClose = Buffer.from('</sheetData');
  // Bytes not yet handed on (kept as a list so each byte is copied once) and their total length.
  let parts: Buffer[] = [];
  let length = 0;
  // Where the last cut point found so far ends, counted in `length` (0: none yet).
  let cut = 0;
  let seam: Buffer = Buffer.alloc(0);
  let dataPrefix = '';
  const take = () => {
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
    parts = [];
    length = 0;
    return all;
  };
  // What is handed to the sink is joined in one buffer reused from run to run (sinks copy what they
  // keep): a fresh megabyte per run cost more in page faults than the copy itself.
  let scratch = Buffer.alloc(0);
  const takeRows = () => {
    if (parts.length === 1) return take();
    if (scratch.length < length) scratch = Buffer.allocUnsafeSlow(Math.max(length, scratch.length * 2));
    let at = 0;
    for (const piece of parts) at += piece.copy(scratch, at);
    const all = scratch.subarray(0, length);
    parts = [];
    length = 0;
    return all;
  };
  const startRows = (prefix: string) => {
    rowClose = Buffer.from(`</${prefix}row>`);
    dataClose = Buffer.from(`</${prefix}sheetData`);
    sink.start?.(scope, prefix);
    mode = 'rows';
    seam = Buffer.alloc(0);
    cut = 0;
  };
  const rows = (bytes: Buffer) => {
    if (bytes.length > 0) sink.rows(bytes);
  };

  try {
    for await (const raw of whole ? [whole.bytes] : await zip.openStream(part)) {
      throwIfCancelled(options.signal);
      let chunk = raw as Buffer;
      if (mode === 'after') {
        feedSurround(chunk);
        continue;
      }
      if (mode === 'before') {
        // Only the seam kept from the last chunk is looked at again.
        const probe = seam.length > 0 ? Buffer.concat([seam, chunk]) : chunk;
        const found = findSheetDataStart(probe);
        if (!found) {
          const keep = Math.min(SEAM, probe.length);
          feedSurround(probe.subarray(0, probe.length - keep));
          seam = Buffer.from(probe.subarray(probe.length - keep));
          continue;
        }
        feedSurround(probe.subarray(0, found.at));
        parts = [probe.subarray(found.at)];
        length = parts[0]!.length;
        mode = 'tag';
        chunk = Buffer.alloc(0);
        seam = Buffer.alloc(0);
        dataPrefix = found.prefix;
      }
      if (mode === 'tag') {
        if (chunk.length > 0) {
          parts.push(chunk);
          length += chunk.length;
        }
        const head = take();
        const end = tagEnd(head, 0);
        if (end < 0) {
          if (head.length > RUN_BYTES) throw corruptTag(part);
          parts = [head];
          length = head.length;
          continue;
        }
        feedSurround(head.subarray(0, end));
        if (head[end - 2] === 0x2f /* / */) {
          // <sheetData/> or <sheetData /> (as .NET writes an empty sheet): no rows.
          mode = 'after';
          feedSurround(head.subarray(end));
          continue;
        }
        startRows(dataPrefix);
        chunk = head.subarray(end);
        if (chunk.length === 0) continue;
      }
      // mode === 'rows'. Invariant: `seam` is the last (at most SEAM) bytes of what `parts` holds.
      const probe = Buffer.concat([seam, chunk.subarray(0, dataClose.length - 1)]);
      const seamEnd = probe.indexOf(dataClose);
      const inChunk = seamEnd >= 0 ? -1 : indexOfDataClose(chunk, dataClose);
      const end = seamEnd >= 0 ? length - seam.length + seamEnd : inChunk >= 0 ? length + inChunk : -1;
      if (end < 0 && options.wholeRows) {
        // Look for a row end in this chunk only, so no byte is searched twice; only a row end split
        // between the last chunk and this one is looked for in a small copy of the seam and this
        // chunk's head (copying every chunk cost a tenth of a big extraction).
        const local = cutAfterLastRow(chunk, rowClose);
        if (local > 0) cut = length + local;
        else {
          const joined = Buffer.concat([seam, chunk.subarray(0, SEAM)]);
          const split = cutAfterLastRow(joined, rowClose);
          if (split > 0) cut = Math.max(cut, length - seam.length + split);
        }
      }
      parts.push(chunk);
      length += chunk.length;
      if (end >= 0) {
        const all = takeRows();
        rows(all.subarray(0, end));
        mode = 'after';
        feedSurround(all.subarray(end));
        continue;
      }
      if (!options.wholeRows) {
        // Streaming: hand everything on but the bytes that may begin a split `</sheetData`, piece by
        // piece as they came (joining them would copy every byte once more).
        const keep = Math.min(length, dataClose.length - 1);
        let left = length - keep;
        for (const piece of parts) {
          if (left <= 0) break;
          rows(piece.length <= left ? piece : piece.subarray(0, left));
          left -= piece.length;
        }
        seam = lastBytes(parts, keep);
        parts = keep > 0 ? [seam] : [];
        length = keep;
        await sink.drain?.();
        continue;
      }
      if (length >= RUN_BYTES && cut > 0) {
        const all = takeRows();
        const rest = Buffer.from(all.subarray(cut));
        rows(all.subarray(0, cut));
        cut = 0;
        parts = rest.length > 0 ? [rest] : [];
        length = rest.length;
        seam = rest.subarray(Math.max(0, rest.length - SEAM));
        await sink.drain?.();
        continue;
      }
      if (length > MAX_RUN_BYTES) {
        throw new RowsNotSeparable(`No row ends within ${MAX_RUN_BYTES} bytes of "${part}".`);
      }
      seam = tailOf(seam, chunk);
    }
    if ((mode as string) === 'rows' || mode === 'tag') {
      throw new ToolError('CORRUPT_WORKBOOK', `The worksheet part "${part}" ends inside its data.`, {
        hint: 'Re-download or re-save the workbook; the file may be truncated.',
        details: { part },
      });
    }
    // A part without sheetData (not valid, but harmless) is all surroundings.
    if (mode === 'before') feedSurround(seam);
    parser.end();
    const record = whole ? parser.record() : undefined;
    if (record) lastSurroundings.set(zip, record);
  } finally {
    // The surroundings' record copied what it keeps: the part's memory may go to the next sheet.
    whole?.release();
  }
}

/** A copy of the last `n` bytes of `parts` (which hold at least that many). */
function lastBytes(parts: Buffer[], n: number): Buffer {
  const tail = Buffer.allocUnsafe(n);
  let need = n;
  for (let p = parts.length - 1; p >= 0 && need > 0; p--) {
    const piece = parts[p]!;
    const take = Math.min(need, piece.length);
    piece.copy(tail, need - take, piece.length - take);
    need -= take;
  }
  return tail;
}

/** The last SEAM bytes of `seam` followed by `chunk`. */
function tailOf(seam: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= SEAM) return Buffer.from(chunk.subarray(chunk.length - SEAM));
  const joined = Buffer.concat([seam, chunk]);
  return joined.subarray(Math.max(0, joined.length - SEAM));
}

function corruptTag(part: string): ToolError {
  return new ToolError('CORRUPT_WORKBOOK', `The <sheetData> tag of "${part}" never ends.`, {
    hint: 'The file looks damaged or crafted; open and re-save it in Excel.',
    details: { part },
  });
}
