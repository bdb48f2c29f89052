// A big sheet's rows read on two cores (issue 26, section 1): the sheet is cut into batches of whole rows as it
// inflates (sheet-row-stream.ts); the rows thread (rows-worker.ts) reads some while this thread reads
// the others, each with the fast row parser into memory of its own (fast-batch.ts), and this thread
// joins them in sheet order: the JSON into the extraction's sink, byte for byte what one pass writes.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { streamSheetRows } from '../ooxml/sheet-row-stream.js';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { emptyWorksheetInfo, worksheetHandlers } from '../ooxml/worksheet-handlers.js';
import type { ByteSink } from './byte-sink.js';
import type { SinkConfig } from './cell-sink.js';
import { readFastBatch, type BatchContext, type FastBatch } from './fast-batch.js';
import { NotFast } from './fast-rows.js';
import type { FastScan } from './fast-scan.js';
import type { RowSegment, WorkbookValues } from './row-store.js';
import type { RowsRequest } from './rows-worker.js';
import { spareCores } from './spare-cores.js';

export interface ParallelOptions {
  /** Sheets whose XML is at least this large (uncompressed bytes) are read on two cores. */
  minBytes?: number;
  /** Use the rows thread whatever the machine's load (true) or never (false); default: when idle. */
  helper?: boolean;
}

/** Below this a sheet reads in ~40 ms on one core: not worth a thread's memory. */
export const PARALLEL_MIN_BYTES = 8 << 20;
/** The rows thread is used while the rest of the machine leaves this many cores idle. */
const SPARE_CORES_NEEDED = 1.75;
/**
 * ...and only on a machine of at least this many cores. On 2 cores the inflating (libuv's pool) already
 * takes much of the second one, and a fresh rows thread reads its first sheets several times slower
 * than a warm one. The 1M-cell workbook through the bin, the thread forced on against off, alternated
 * (3 rounds, load ~1.7): first call 586 vs 528 ms, a call 1 s after the handshake 422 vs 354, again
 * 481 vs 342 (the thread's first use; server CPU 680 vs 380); later warm calls (16 rounds) 314 vs 309
 * median, 237 vs 291 best, CPU 430 vs 340. A third core leaves the inflating its own.
 */
const MIN_CORES = 3;
/** Batches handed to the rows thread at a time; this thread reads the rest. */
const IN_FLIGHT = 2;
/** JSON memory smaller than this (a small batch's) is not kept for the next. */
const MIN_JSON_MEMORY = 128 * 1024;
const WORKER_URL = new URL('./rows-worker.js', import.meta.url);

interface Reply {
  ready?: true;
  sheet: number;
  seq: number;
  batch?: FastBatch;
  bytes?: Uint8Array;
  error?: string;
  stale?: true;
}

/** The rows thread, started at the first big sheet and kept (warm) for the next ones. */
class RowsThread {
  readonly worker: Worker;
  ready = false;
  /** Resolves once the thread can take batches (or is lost). */
  readonly started: Promise<void>;
  private onStarted: (() => void) | undefined;
  dead = false;
  /** The sheet being read with it, which gets its replies. */
  current: ((reply: Reply | undefined) => void) | undefined;
  /** Batch memory back from the thread, for the next batches. */
  readonly spare: Uint8Array[] = [];
  /** The memory of JSON it wrote, once joined: given back with the next batches. */
  readonly jsonSpare: Uint8Array[] = [];

  constructor() {
    // A small young generation: the thread holds one batch at a time, and its heap counts towards the
    // process's peak memory.
    this.worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    this.started = new Promise((resolve) => (this.onStarted = resolve));
    this.worker.on('message', (reply: Reply) => {
      if (reply.ready) {
        this.ready = true;
        this.onStarted?.();
      } else {
        // The whole memory (the batch was a view of its start).
        if (reply.bytes && this.spare.length < IN_FLIGHT + 1)
          this.spare.push(new Uint8Array(reply.bytes.buffer as ArrayBuffer));
        this.current?.(reply);
      }
    });
    const lost = () => {
      this.dead = true;
      this.onStarted?.();
      this.current?.(undefined);
    };
    this.worker.on('error', lost);
    this.worker.on('exit', lost);
    // Kept between calls, but never what keeps the process alive (unref after the listeners, which
    // would ref it again).
    this.worker.unref();
  }

  post(request: RowsRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }

  /** Memory for a batch of `length` bytes. */
  memory(length: number): Uint8Array {
    const index = this.spare.findIndex((memory) => memory.byteLength >= length);
    if (index >= 0) return this.spare.splice(index, 1)[0]!;
    return new Uint8Array(Math.max(length, 5 << 18));
  }
}

let thread: RowsThread | undefined;
let sheets = 0;

/** The rows thread, started now if need be; undefined where there is no worker script (tests). */
function rowsThread(): RowsThread | undefined {
  if (thread && !thread.dead) return thread;
  if (!existsSync(fileURLToPath(WORKER_URL))) return undefined;
  thread = new RowsThread();
  return thread;
}

/** Whether the rows thread is to be used now. */
function helperWanted(options: ParallelOptions): boolean {
  if (options.helper !== undefined) return options.helper;
  if (availableParallelism() < MIN_CORES) return false;
  const spare = spareCores();
  return spare === undefined || spare >= SPARE_CORES_NEEDED;
}

/**
 * Reads a big sheet's rows on two cores. Undefined for a small sheet, on a busy machine, and for rows
 * the batches cannot read alone (markup the fast parser leaves to the tokenizer, rows without `r`, a
 * row cut between two batches): the caller then reads the sheet on this thread alone.
 */
export async function scanParallel(
  reader: WorkbookReader,
  part: string,
  config: SinkConfig,
  values: WorkbookValues,
  json: { sink: ByteSink; alpha: boolean } | undefined,
  options: ParallelOptions,
): Promise<FastScan | undefined> {
  if (options.helper === false) return undefined;
  const size = reader.zip.info(part)?.uncompressedSize ?? 0;
  if (size < (options.minBytes ?? PARALLEL_MIN_BYTES) || !helperWanted(options)) return undefined;
  const helper = rowsThread();
  if (!helper) return undefined;
  // Asked for (tests): waited for. Otherwise a thread not ready yet (started by this sheet: it warms up
  // meanwhile) is left for the next big sheet, as its first megabytes would run many times slower.
  if (options.helper === true) {
    helper.worker.ref();
    await helper.started;
  } else if (!helper.ready) return undefined;
  const sheet = ++sheets;
  const info = emptyWorksheetInfo();
  const offset = json?.sink.offset ?? 0;
  const join = new BatchJoin(info, json?.sink);
  let context: BatchContext | undefined;
  let seq = 0;
  let inFlight = 0;
  let declined = false;
  let failure: Error | undefined;
  let settled: (() => void) | undefined;
  // Batches read here write their JSON into memory reused from batch to batch.
  const jsonMemory: Uint8Array[] = [];
  let useHelper = true;
  let sinceCheck = 0;

  // Held while a sheet waits on it: an unref'd thread is no reason for the process to wait for a reply.
  helper.worker.ref();
  helper.current = (reply) => {
    if (reply === undefined) declined = true;
    else if (reply.sheet !== sheet || reply.stale) return;
    else {
      inFlight--;
      try {
        if (reply.batch) join.add(reply.seq, reply.batch, helper.jsonSpare, true);
        else declined = true;
      } catch (error) {
        // A batch the join leaves to one pass (NotFast), or a write that failed: the sheet says so.
        failure = error instanceof Error ? error : new Error(String(error));
        declined = true;
      }
    }
    if (declined || inFlight === 0) settled?.();
  };
  try {
    await streamSheetRows(
      reader.zip,
      part,
      worksheetHandlers(() => undefined, info),
      {
        start(scope, prefix) {
          context = { config, values, prefix, scope, json: json ? { alpha: json.alpha } : undefined };
          helper.post({
            kind: 'sheet',
            sheet,
            config,
            sharedStrings: values.sharedStrings as string[],
            date1904: values.date1904,
            prefix,
            scope: [...scope],
            json: context.json,
          });
        },
        rows(bytes) {
          if (declined) throw failure ?? new NotFast();
          const id = seq++;
          // The machine may have got busy since: looked at again every few batches.
          if (options.helper === undefined && ++sinceCheck >= 4) {
            sinceCheck = 0;
            const spare = spareCores();
            if (spare !== undefined) useHelper = spare >= SPARE_CORES_NEEDED;
          }
          if (useHelper && helper.ready && !helper.dead && inFlight < IN_FLIGHT) {
            const memory = helper.memory(bytes.length);
            memory.set(bytes);
            const view = memory.subarray(0, bytes.length);
            inFlight++;
            const jsonBack = helper.jsonSpare.pop();
            const transfer = [memory.buffer as ArrayBuffer];
            if (jsonBack) transfer.push(jsonBack.buffer as ArrayBuffer);
            helper.post({ kind: 'batch', sheet, seq: id, bytes: view, json: jsonBack }, transfer);
            return;
          }
          const batch = readFastBatch(bytes, context!, jsonMemory.pop());
          if (!batch) throw new NotFast();
          join.add(id, batch, jsonMemory);
        },
      },
      { wholeRows: true },
    );
    if (inFlight > 0 && !declined) await new Promise<void>((resolve) => (settled = resolve));
    if (failure !== undefined && !(failure instanceof NotFast)) throw failure;
    if (declined || !join.complete(seq)) throw new NotFast();
  } catch (error) {
    // NotFast, a row longer than a batch (RowsNotSeparable), a lost thread: read on one thread.
    json?.sink.truncate(offset);
    if (error instanceof NotFast || (error as Error).name === 'RowsNotSeparable') return undefined;
    throw error;
  } finally {
    helper.current = undefined;
    helper.worker.unref();
    if (!helper.dead) helper.post({ kind: 'done', sheet });
  }
  return {
    segments: join.segments,
    borders: join.borders(),
    info,
    json: json ? { offset, bytes: join.end(), ordered: join.ordered } : undefined,
    helped: join.helped,
  };
}

/** Batches joined in sheet order as they come. */
class BatchJoin {
  readonly segments: RowSegment[] = [];
  private readonly borderRuns: Int32Array[] = [];
  private readonly waiting = new Map<number, { batch: FastBatch; memory: Uint8Array[] }>();
  private next = 0;
  /** The last row holding a value so far (0: none). */
  private lastRow = 0;
  private jsonBytes = 0;
  ordered = true;
  /** Batches read by the rows thread. */
  helped = 0;

  constructor(
    private readonly info: { rowHeights: Map<number, number> },
    private readonly sink: ByteSink | undefined,
  ) {}

  /**
   * A batch read, here or (`helped`) by the rows thread; `memory` gets its JSON's memory back once
   * joined, for another batch.
   */
  add(seq: number, batch: FastBatch, memory: Uint8Array[], helped = false): void {
    if (helped) this.helped++;
    this.waiting.set(seq, { batch, memory });
    for (let ready = this.waiting.get(this.next); ready; ready = this.waiting.get(this.next)) {
      this.waiting.delete(this.next++);
      this.join(ready.batch);
      const { buffer } = ready.batch.json;
      if (buffer.byteLength >= MIN_JSON_MEMORY && ready.memory.length < IN_FLIGHT + 1)
        ready.memory.push(new Uint8Array(buffer as ArrayBuffer));
    }
  }

  private join(batch: FastBatch): void {
    if (batch.firstRow > 0) {
      // One pass writes a row number met again at once into the same object: left to it.
      if (batch.firstRow === this.lastRow) throw new NotFast();
      if (batch.firstRow < this.lastRow || !batch.ordered) this.ordered = false;
      this.lastRow = batch.lastRow;
      this.segments.push(batch.segment);
    }
    if (batch.borders.length > 0) this.borderRuns.push(batch.borders);
    const { heights } = batch;
    for (let i = 0; i < heights.length; i += 2) this.info.rowHeights.set(heights[i]!, heights[i + 1]!);
    const sink = this.sink;
    if (sink && batch.json.length > 0) {
      sink.byte(this.jsonBytes === 0 ? 91 /* [ */ : 44 /* , */);
      sink.write(batch.json);
      this.jsonBytes += batch.json.length + 1;
    }
  }

  /** Every batch up to `count` joined. */
  complete(count: number): boolean {
    return this.next === count && this.waiting.size === 0;
  }

  /** Closes the JSON array; its length. */
  end(): number {
    if (this.jsonBytes === 0) return 0;
    this.sink!.byte(93); // ]
    return this.jsonBytes + 1;
  }

  borders(): Int32Array {
    const all = new Int32Array(this.borderRuns.reduce((n, run) => n + run.length, 0));
    let at = 0;
    for (const run of this.borderRuns) {
      all.set(run, at);
      at += run.length;
    }
    return all;
  }
}
