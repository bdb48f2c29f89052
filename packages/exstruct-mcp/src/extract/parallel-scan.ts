import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolError } from '@mcp-workbench/core';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { emptyWorksheetInfo, worksheetHandlers, type WorksheetInfo } from '../ooxml/worksheet-reader.js';
import { createPushParser } from '../ooxml/xml.js';
import type { SinkConfig } from './cell-sink.js';
import type { RowSegment } from './row-store.js';
import { parseRowBatch, type BatchResult } from './row-batch.js';

export interface ParallelOptions {
  /** Sheets whose XML is at least this large (uncompressed bytes) are parsed by worker threads. */
  minBytes?: number;
  /** Threads parsing rows, this one included (default: the cores available, at most 4). */
  threads?: number;
}

const DEFAULT_MIN_BYTES = 8 * 1024 * 1024;
const BATCH_BYTES = 1024 * 1024;
const WORKER_URL = new URL('./sheet-worker.js', import.meta.url);

export interface ParallelScan {
  segments: RowSegment[];
  borders: Int32Array;
  info: WorksheetInfo;
}

/**
 * Parses a big worksheet on several cores. The inflating stream is cut into batches of whole `<row>`
 * elements at `</row>` boundaries; worker threads parse the batches with the same SAX handlers and send
 * back columnar segments; this thread parses what surrounds sheetData (columns, merges, links, …).
 * Returns undefined when the sheet is small, only one core is available, or it cannot be cut safely —
 * the caller then parses it in one pass.
 */
export async function scanInParallel(
  reader: WorkbookReader,
  part: string,
  config: SinkConfig,
  options: ParallelOptions | false = {},
): Promise<ParallelScan | undefined> {
  if (options === false) return undefined;
  const size = reader.zip.info(part)?.uncompressedSize ?? 0;
  const threads = Math.min(options.threads ?? Math.min(4, availableParallelism()), 8);
  if (size < (options.minBytes ?? DEFAULT_MIN_BYTES) || threads < 2) return undefined;
  // Running from TypeScript sources (tests) there is no compiled worker: parse in one pass instead.
  if (!existsSync(fileURLToPath(WORKER_URL))) return undefined;

  // This thread parses every n-th batch itself; threads - 1 workers parse the others.
  const pool = Array.from(
    { length: threads - 1 },
    () => new Worker(WORKER_URL, { workerData: { config, part } }),
  );
  const pending = new Map<number, { resolve: (r: BatchResult) => void; reject: (e: Error) => void }>();
  const results: Array<Promise<BatchResult>> = [];
  for (const worker of pool) {
    worker.on('message', (result: BatchResult) => {
      const waiter = pending.get(result.seq);
      pending.delete(result.seq);
      waiter?.resolve(result);
    });
    worker.on('error', (error) => {
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    });
  }
  let seq = 0;
  const dispatch = (bytes: Buffer) => {
    const id = seq++;
    const slot = id % threads;
    if (slot === threads - 1) {
      results.push(Promise.resolve(parseRowBatch(id, bytes, config, part)));
      return;
    }
    const copy = new Uint8Array(bytes); // its own memory, so it can be transferred
    const result = new Promise<BatchResult>((resolve, reject) => pending.set(id, { resolve, reject }));
    result.catch(() => undefined); // awaited below; this only marks an early failure as handled
    results.push(result);
    pool[slot]!.postMessage({ seq: id, bytes: copy }, [copy.buffer]);
  };

  try {
    const info = emptyWorksheetInfo();
    const main = createPushParser(
      part,
      worksheetHandlers(() => undefined, info),
    );
    const decoder = new StringDecoder('utf8');
    const feedMain = (bytes: Buffer) => main.write(decoder.write(bytes));

    let mode: 'before' | 'rows' | 'after' = 'before';
    let rowClose = Buffer.from('</row>');
    let dataClose = Buffer.from('</sheetData');
    // Inflated bytes not yet handed on, kept as a list so each byte is copied once per batch.
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
    for await (const raw of await reader.zip.openStream(part)) {
      const chunk = raw as Buffer;
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
          feedMain(head);
          continue;
        }
        feedMain(head.subarray(0, tagEnd));
        const prefix = match[1] ?? '';
        rowClose = Buffer.from(`</${prefix}row>`);
        dataClose = Buffer.from(`</${prefix}sheetData`);
        mode = 'rows';
        const rest = head.subarray(tagEnd);
        parts = rest.length > 0 ? [rest] : [];
        length = rest.length;
        tail = rest.subarray(Math.max(0, rest.length - dataClose.length));
        const endHere = rest.indexOf(dataClose);
        if (endHere < 0) continue;
        // The whole sheetData fits in the first chunk.
        parts = [];
        length = 0;
        if (endHere > 0) dispatch(rest.subarray(0, endHere));
        mode = 'after';
        feedMain(rest.subarray(endHere));
        continue;
      }
      if (mode === 'after') {
        feedMain(chunk);
        continue;
      }
      // mode === 'rows'
      const probe = Buffer.concat([tail, chunk]);
      const end = probe.indexOf(dataClose);
      const base = length - tail.length;
      parts.push(chunk);
      length += chunk.length;
      tail = probe.subarray(Math.max(0, probe.length - dataClose.length));
      if (end >= 0) {
        const all = take();
        const at = base + end;
        if (at > 0) dispatch(all.subarray(0, at));
        mode = 'after';
        feedMain(all.subarray(at));
        continue;
      }
      if (length >= BATCH_BYTES) {
        const all = take();
        const cut = all.lastIndexOf(rowClose);
        if (cut < 0) {
          parts = [all];
          length = all.length;
          continue;
        }
        const at = cut + rowClose.length;
        const rest = Buffer.from(all.subarray(at));
        dispatch(all.subarray(0, at));
        if (rest.length > 0) {
          parts = [rest];
          length = rest.length;
        }
        // Back-pressure: do not inflate far ahead of the workers.
        if (pending.size >= threads * 3) await Promise.race([...pending.keys()].map((k) => results[k]!));
      }
    }
    if (mode !== 'after')
      throw new ToolError('CORRUPT_WORKBOOK', `The worksheet part "${part}" ends inside its data.`);
    main.write(decoder.end());
    main.close();

    const batches = await Promise.all(results);
    const segments: RowSegment[] = [];
    const borders: Int32Array[] = [];
    for (const batch of batches) {
      if (batch.error) {
        throw new ToolError(batch.error.code, batch.error.message, {
          hint: 'Open and re-save the file in Excel, or check that the download was complete.',
        });
      }
      // Rows without `r` are numbered by position, which a batch cannot know: parse in one pass.
      if (batch.rowsWithoutRef) return undefined;
      segments.push(batch.segment!);
      borders.push(batch.borders!);
      const heights = batch.rowHeights!;
      for (let i = 0; i < heights.length; i += 2) info.rowHeights.set(heights[i]!, heights[i + 1]!);
    }
    const allBorders = new Int32Array(borders.reduce((n, b) => n + b.length, 0));
    let offset = 0;
    for (const b of borders) {
      allBorders.set(b, offset);
      offset += b.length;
    }
    return { segments, borders: allBorders, info };
  } finally {
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
}
