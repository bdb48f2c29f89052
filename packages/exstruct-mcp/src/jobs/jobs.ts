// The long CPU work of the reading tools, as jobs that run on a worker thread (job-worker.ts) so the
// server's event loop stays free, and that a cancel can stop at once (the thread is terminated). Each
// job reads the one file the tool opened through the PathPolicy (by its descriptor) and returns plain
// data (bytes transferred).
import { importBundled } from '../import-bundled.js';
import type { OutputFormat } from '@mcp-workbench/core/engine';
import type { SerializeOptions } from '../extract/extraction.js';
import type { ExtractionMode } from '../extract/modes.js';
import type { ReadRequest, ReadAnswer } from '../read/read-output.js';
import type { CaptureRequest, CapturedImage } from '../render/capture.js';

export interface ExtractJobInput {
  file: string;
  mode: ExtractionMode;
  alphaCol: boolean;
  format: OutputFormat;
  serialize: SerializeOptions;
  sheetFiles: boolean;
  printAreaFiles: boolean;
  /**
   * The output's temp file, opened by the server, which the job writes whole (the server syncs it and
   * puts it in place once the job has succeeded; see JobStart.writes).
   */
  outputFd: number;
}

export interface ExtractJobOutput {
  sheetNames: string[];
  warnings: string[];
  sheets: Array<{ sheetName: string; data: Uint8Array }>;
  printAreas: Array<{
    sheet: string;
    index: number;
    area: { r1: number; r2: number; c1: number; c2: number };
    data: Uint8Array;
  }>;
}

export interface ReadJobInput {
  file: string;
  request: ReadRequest;
}

export interface CaptureJobInput {
  file: string;
  request: CaptureRequest;
}

export interface CaptureJobOutput {
  images: CapturedImage[];
  warnings: string[];
}

export interface Jobs {
  extract: { input: ExtractJobInput; output: ExtractJobOutput };
  read: { input: ReadJobInput; output: ReadAnswer };
  capture: { input: CaptureJobInput; output: CaptureJobOutput };
}

export type JobName = keyof Jobs;

/** A job: its input and the descriptor of the file the server opened for it, to its output. */
export type JobFunction<K extends JobName> = (
  input: Jobs[K]['input'],
  fd: number,
) => Promise<Jobs[K]['output']>;

/**
 * Each job's code, loaded on first use: a thread loads only the jobs it runs (the extraction thread
 * neither the output reader nor zod, the read thread no extraction engine), which keeps its memory small.
 */
const JOB_MODULES: { [K in JobName]: () => Promise<JobFunction<K>> } = {
  extract: async () => (await loadExtractThread()).extractJob,
  read: async () => (await import('./read-output-job.js')).readJob,
  capture: async () => (await import('./capture-job.js')).captureJob,
};

/** The build's bundle of extract-thread.ts (scripts/bundle-extract-thread.mjs); absent when run from src. */
const EXTRACT_BUNDLE = new URL('../extract/extract-thread.bundle.js', import.meta.url);
let extractThread: Promise<typeof import('./extract-thread.js')> | undefined;

/**
 * The extraction thread's code: the bundle (one file to load instead of ~80 modules) where the build
 * wrote one, else its modules.
 */
export function loadExtractThread(): Promise<typeof import('./extract-thread.js')> {
  extractThread ??= importBundled(EXTRACT_BUNDLE, () => import('./extract-thread.js'));
  return extractThread;
}

/** The job `name`'s function (its modules loaded on the first call). */
export function loadJob<K extends JobName>(name: K): Promise<JobFunction<K>> {
  return (JOB_MODULES[name] as () => Promise<JobFunction<K>>)();
}

/** The buffers of a job's result, handed over to the other thread instead of copied. */
export function transferables(name: JobName, output: unknown): ArrayBuffer[] {
  if (name === 'capture') return []; // PNG Buffers share Node's pool: copied, not transferred
  if (name !== 'extract') return [];
  const result = output as ExtractJobOutput;
  // Chunks may share memory: each buffer is handed over once.
  const buffers = new Set<ArrayBuffer>();
  for (const bytes of [...result.sheets.map((s) => s.data), ...result.printAreas.map((a) => a.data)])
    buffers.add(bytes.buffer as ArrayBuffer);
  return [...buffers];
}
