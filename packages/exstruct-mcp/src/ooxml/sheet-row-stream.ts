import { StringDecoder } from 'node:string_decoder';
import { ToolError } from '@mcp-workbench/core/engine';
import type { SaxHandlers } from './sax.js';
import { createPushParser } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

/** Where the runs of rows go. */
export interface SheetRowSink {
  /** A run of whole `<row>` elements (about `RUN_BYTES` long), in sheet order. */
  rows(bytes: Buffer): void;
  /** Awaited after each run cut from the stream: lets the consumer hold the stream back. */
  drain?(): Promise<void>;
}

/** Runs of rows are cut once this many bytes have arrived. */
export const RUN_BYTES = 1024 * 1024;

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

/**
 * Streams a worksheet part once, splitting it where its structure allows: what surrounds sheetData
 * (columns, merges, links, drawing references) goes through the strict saxes parser with `surround`,
 * and the rows go to `sink` in runs of whole `<row>` elements cut from the inflating stream at `</row>`
 * boundaries, without being parsed here. A part that ends inside its sheetData is CORRUPT_WORKBOOK.
 */
export async function streamSheetRows(
  zip: ZipArchive,
  part: string,
  surround: SaxHandlers,
  sink: SheetRowSink,
): Promise<void> {
  const parser = createPushParser(part, surround);
  const decoder = new StringDecoder('utf8');
  const feedSurround = (bytes: Buffer) => parser.write(decoder.write(bytes));

  let mode: 'before' | 'rows' | 'after' = 'before';
  let rowClose = Buffer.from('</row>');
  let dataClose = Buffer.from('</sheetData');
  // Inflated bytes not yet handed on, kept as a list so each byte is copied once per run.
  let parts: Buffer[] = [];
  let length = 0;
  // The last few bytes seen, so a marker split across two chunks is still found.
  let tail: Buffer = Buffer.alloc(0);
  const take = () => {
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
    parts = [];
    length = 0;
    return all;
  };
  const rows = (bytes: Buffer) => {
    if (bytes.length > 0) sink.rows(bytes);
  };
  for await (const raw of await zip.openStream(part)) {
    const chunk = raw as Buffer;
    if (mode === 'after') {
      feedSurround(chunk);
      continue;
    }
    if (mode === 'before') {
      parts.push(chunk);
      length += chunk.length;
      const head = take();
      const match = /<([A-Za-z0-9_]+:)?sheetData(\s[^>]*)?(\/?)>/.exec(head.toString('latin1'));
      if (!match) {
        parts = [head];
        length = head.length;
        continue;
      }
      const tagEnd = match.index + match[0].length;
      if (match[3] === '/') {
        mode = 'after';
        feedSurround(head);
        continue;
      }
      feedSurround(head.subarray(0, tagEnd));
      const prefix = match[1] ?? '';
      rowClose = Buffer.from(`</${prefix}row>`);
      dataClose = Buffer.from(`</${prefix}sheetData`);
      mode = 'rows';
      const rest = head.subarray(tagEnd);
      const end = rest.indexOf(dataClose);
      if (end >= 0) {
        // The whole sheetData came in the first chunk.
        rows(rest.subarray(0, end));
        mode = 'after';
        feedSurround(rest.subarray(end));
        continue;
      }
      parts = rest.length > 0 ? [rest] : [];
      length = rest.length;
      tail = rest.subarray(Math.max(0, rest.length - dataClose.length));
      continue;
    }
    // mode === 'rows': look for the end of sheetData in the chunk, and across the chunk boundary in a
    // small probe (the tail of what came before plus the chunk's first bytes), without copying chunks.
    const seam = Buffer.concat([tail, chunk.subarray(0, dataClose.length - 1)]);
    const seamEnd = seam.indexOf(dataClose);
    const inChunk = seamEnd >= 0 ? -1 : chunk.indexOf(dataClose);
    const end = seamEnd >= 0 ? length - tail.length + seamEnd : inChunk >= 0 ? length + inChunk : -1;
    parts.push(chunk);
    length += chunk.length;
    tail =
      chunk.length >= dataClose.length
        ? chunk.subarray(chunk.length - dataClose.length)
        : Buffer.concat([tail, chunk]).subarray(-dataClose.length);
    if (end >= 0) {
      const all = take();
      rows(all.subarray(0, end));
      mode = 'after';
      feedSurround(all.subarray(end));
      continue;
    }
    if (length >= RUN_BYTES) {
      const all = take();
      const cut = cutAfterLastRow(all, rowClose);
      if (cut === 0) {
        parts = [all];
        length = all.length;
        continue;
      }
      const rest = Buffer.from(all.subarray(cut));
      rows(all.subarray(0, cut));
      if (rest.length > 0) {
        parts = [rest];
        length = rest.length;
      }
      await sink.drain?.();
    }
  }
  if (mode === 'rows') {
    throw new ToolError('CORRUPT_WORKBOOK', `The worksheet part "${part}" ends inside its data.`, {
      hint: 'Re-download or re-save the workbook; the file may be truncated.',
    });
  }
  // A part without sheetData (not valid, but harmless) is all surroundings.
  if (mode === 'before') feedSurround(take());
  parser.write(decoder.end());
  parser.close();
}
