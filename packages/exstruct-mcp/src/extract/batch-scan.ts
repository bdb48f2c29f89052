import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolError } from '@mcp-workbench/core/engine';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { emptyWorksheetInfo, worksheetHandlers, type WorksheetInfo } from '../ooxml/worksheet-reader.js';
import { createPushParser } from '../ooxml/xml.js';
import type { SinkConfig } from './cell-sink.js';
import { parseRowBatch, type BatchResult } from './row-batch.js';
import type { RowSegment } from './row-store.js';

export interface BatchOptions {
  /** Sheets whose XML is at least this large (uncompressed bytes) are parsed in row batches. */
  minBytes?: number;
  /** …and at least this large, by worker threads too. */
  workerMinBytes?: number;
  /** Threads parsing rows, this one included (default: the idle cores, at most 4). */
  threads?: number;
}

const DEFAULT_MIN_BYTES = 1024 * 1024;
const DEFAULT_WORKER_MIN_BYTES = 8 * 1024 * 1024;
const BATCH_BYTES = 1024 * 1024;
const WORKER_URL = new URL('./sheet-worker.js', import.meta.url);

/**
 * Cores worth using: at most 4, and only those the rest of the machine leaves idle (1-minute load
 * average) — on a busy machine extra threads only add overhead, so one thread is faster there.
 */
function idleCores(): number {
  const cores = Math.min(4, availableParallelism());
  const busy = Math.floor(loadavg()[0] ?? 0);
  return Math.max(1, cores - busy);
}

export interface BatchScan {
  segments: RowSegment[];
  borders: Int32Array;
  info: WorksheetInfo;
  /** Worker threads that took part. */
  workers: number;
}

/** Runs batches on this thread and on worker threads, keeping their results in sheet order. */
class BatchPool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<
    number,
    { resolve: (r: BatchResult) => void; reject: (e: Error) => void }
  >();
  readonly results: Array<Promise<BatchResult>> = [];
  private seq = 0;

  constructor(
    workerCount: number,
    private readonly config: SinkConfig,
    private readonly part: string,
  ) {
    // A small young generation: a worker only ever holds one 1 MB batch, and each isolate's heap counts
    // towards the process's peak memory.
    this.workers = Array.from(
      { length: workerCount },
      () =>
        new Worker(WORKER_URL, {
          workerData: { config, part },
          resourceLimits: { maxYoungGenerationSizeMb: 4 },
        }),
    );
    for (const worker of this.workers) {
      worker.on('message', (result: BatchResult) => {
        this.waiting.get(result.seq)?.resolve(result);
        this.waiting.delete(result.seq);
      });
      worker.on('error', (error) => {
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
      });
    }
  }

  /**
   * Hands a batch on. This thread, which also inflates, cuts batches and later writes the output, keeps
   * one batch in every 2 × workers + 1 (all of them when there are no workers).
   */
  run(bytes: Buffer): void {
    const id = this.seq++;
    const cycle = 2 * this.workers.length + 1;
    const slot = id % cycle;
    if (slot === cycle - 1) {
      this.results.push(Promise.resolve(parseRowBatch(id, bytes, this.config, this.part)));
      return;
    }
    const copy = new Uint8Array(bytes); // its own memory, so it can be transferred
    const result = new Promise<BatchResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    result.catch(() => undefined); // awaited later; this only marks an early failure as handled
    this.results.push(result);
    this.workers[slot % this.workers.length]!.postMessage({ seq: id, bytes: copy }, [copy.buffer]);
  }

  /** Back-pressure: resolves once the workers are not far behind the inflating stream. */
  async drain(): Promise<void> {
    if (this.waiting.size === 0 || this.waiting.size < this.workers.length * 3) return;
    await Promise.race([...this.waiting.keys()].map((k) => this.results[k]!));
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/**
 * Parses a big worksheet in batches of whole `<row>` elements, cut from the inflating stream at `</row>`
 * boundaries. Batches go through the fast row parser (row-batch.ts), on this thread and — for very big
 * sheets on a machine with idle cores — on worker threads as well; what surrounds sheetData (columns,
 * merges, links, drawing references) goes through the strict saxes parser. Returns undefined for small
 * sheets and for sheets that cannot be cut safely; the caller then parses them in one pass.
 */
export async function scanInBatches(
  reader: WorkbookReader,
  part: string,
  config: SinkConfig,
  options: BatchOptions | false = {},
): Promise<BatchScan | undefined> {
  if (options === false) return undefined;
  const size = reader.zip.info(part)?.uncompressedSize ?? 0;
  if (size < (options.minBytes ?? DEFAULT_MIN_BYTES)) return undefined;
  // Running from TypeScript sources (tests) there is no compiled worker script: this thread parses all.
  const canSpawn = existsSync(fileURLToPath(WORKER_URL));
  const threads = Math.min(options.threads ?? idleCores(), 8);
  const workers = canSpawn && size >= (options.workerMinBytes ?? DEFAULT_WORKER_MIN_BYTES) ? threads - 1 : 0;
  const pool = new BatchPool(workers, config, part);
  try {
    const info = emptyWorksheetInfo();
    const surround = createPushParser(
      part,
      worksheetHandlers(() => undefined, info),
    );
    const decoder = new StringDecoder('utf8');
    const feedSurround = (bytes: Buffer) => surround.write(decoder.write(bytes));

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
          if (end > 0) pool.run(rest.subarray(0, end));
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
        const at = end;
        if (at > 0) pool.run(all.subarray(0, at));
        mode = 'after';
        feedSurround(all.subarray(at));
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
        pool.run(all.subarray(0, at));
        if (rest.length > 0) {
          parts = [rest];
          length = rest.length;
        }
        await pool.drain();
      }
    }
    if (mode !== 'after') {
      throw new ToolError('CORRUPT_WORKBOOK', `The worksheet part "${part}" ends inside its data.`, {
        hint: 'Re-download or re-save the workbook; the file may be truncated.',
      });
    }
    surround.write(decoder.end());
    surround.close();

    const segments: RowSegment[] = [];
    const borders: Int32Array[] = [];
    for (const batch of await Promise.all(pool.results)) {
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
    return { segments, borders: allBorders, info, workers };
  } finally {
    await pool.close();
  }
}
