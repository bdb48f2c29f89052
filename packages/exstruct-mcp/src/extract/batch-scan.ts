import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { emptyWorksheetInfo, worksheetHandlers, type WorksheetInfo } from '../ooxml/worksheet-reader.js';
import { RowsNotSeparable, streamSheetRows } from '../ooxml/sheet-row-stream.js';
import type { NsScope } from '../ooxml/xml-tokenizer.js';
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
  /** Namespace declarations in force in sheetData, as entries (posted to the workers). */
  scope: [string, string][] = [];

  constructor(
    workerCount: number,
    private readonly config: SinkConfig,
  ) {
    // A small young generation: a worker only ever holds one 1 MB batch, and each isolate's heap counts
    // towards the process's peak memory.
    this.workers = Array.from(
      { length: workerCount },
      () =>
        new Worker(WORKER_URL, {
          workerData: { config },
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
   * one batch in every 2 * workers + 1 (all of them when there are no workers).
   */
  run(bytes: Buffer): void {
    const id = this.seq++;
    const cycle = 2 * this.workers.length + 1;
    const slot = id % cycle;
    if (slot === cycle - 1) {
      this.results.push(Promise.resolve(parseRowBatch(id, bytes, this.config, this.scope)));
      return;
    }
    const copy = new Uint8Array(bytes); // its own memory, so it can be transferred
    const result = new Promise<BatchResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    result.catch(() => undefined); // awaited later; this only marks an early failure as handled
    this.results.push(result);
    this.workers[slot % this.workers.length]!.postMessage({ seq: id, bytes: copy, scope: this.scope }, [
      copy.buffer,
    ]);
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
 * Parses a big worksheet in batches of whole `<row>` elements cut from the inflating stream
 * (sheet-row-stream.ts). Batches go through the fast row parser (row-batch.ts), on this thread and — for
 * very big sheets on a machine with idle cores — on worker threads as well. Returns undefined for small
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
  const pool = new BatchPool(workers, config);
  try {
    const info = emptyWorksheetInfo();
    try {
      await streamSheetRows(
        reader.zip,
        part,
        worksheetHandlers(() => undefined, info),
        {
          start: (scope: NsScope) => (pool.scope = [...scope]),
          rows: (bytes) => pool.run(bytes),
          drain: () => pool.drain(),
        },
        { wholeRows: true },
      );
    } catch (error) {
      // Rows that cannot be cut apart (no row ends for a long way): parse the sheet in one stream.
      if (error instanceof RowsNotSeparable) return undefined;
      throw error;
    }

    const segments: RowSegment[] = [];
    const borders: Int32Array[] = [];
    for (const batch of await Promise.all(pool.results)) {
      // A batch that fails may have been cut inside a comment or CDATA section, and rows without `r`
      // are numbered by position, which a batch cannot know: either way, parse in one stream (which
      // reports the real error, if there is one).
      if (batch.error !== undefined || batch.rowsWithoutRef) return undefined;
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
