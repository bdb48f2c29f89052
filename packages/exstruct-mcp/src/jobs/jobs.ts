// The long CPU work of the reading tools, as jobs that run on a worker thread (job-worker.ts) so the
// server's event loop stays free, and that a cancel can stop at once (the thread is terminated). Each
// job reads the one file the tool opened through the PathPolicy (by its descriptor) and returns plain
// data (bytes transferred).
import type { OutputFormat } from '@mcp-workbench/core/engine';
import { renderDocument } from '../output/render.js';
import { extractWorkbook } from '../extract/extract-workbook.js';
import type { SerializeOptions } from '../extract/extraction.js';
import type { ExtractionMode } from '../extract/modes.js';
import { readOutput, type ReadRequest, type ReadAnswer } from '../read/read-output.js';
import type { CaptureRequest, CapturedImage } from '../render/capture.js';
import { openedFileAccess } from './opened-file-access.js';

export interface ExtractJobInput {
  file: string;
  mode: ExtractionMode;
  alphaCol: boolean;
  format: OutputFormat;
  serialize: SerializeOptions;
  sheetFiles: boolean;
  printAreaFiles: boolean;
}

export interface ExtractJobOutput {
  /** The output file's bytes, in chunks (not joined: a big JSON is not copied once more). */
  output: Uint8Array[];
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

const encoder = new TextEncoder();

/** Text as UTF-8 in memory of its own, which can be handed to the other thread (not Node's pool). */
const encode = (text: string) => encoder.encode(text);

/** Extracts a workbook and serialises the output and the per-sheet / per-print-area files. */
async function extractJob(input: ExtractJobInput, fd: number): Promise<ExtractJobOutput> {
  const compactJson = input.format === 'json' && input.serialize.pretty !== true;
  const extraction = await extractWorkbook(input.file, {
    mode: input.mode,
    alphaCol: input.alphaCol,
    files: openedFileAccess(input.file, fd),
    // Compact JSON is written while the rows are read; other formats are made from the model.
    jsonRows: compactJson,
  });
  const output = extraction.serializeToChunks(input.format, input.serialize);
  const sheets = input.sheetFiles
    ? extraction.sheetPayloads().map((payload) => ({
        sheetName: payload.sheet_name,
        data: encode(renderDocument(payload, input.format, input.serialize)),
      }))
    : [];
  const printAreas = input.printAreaFiles
    ? extraction.printAreaPayloads().map(({ sheet, index, payload }) => ({
        sheet,
        index,
        area: payload.area,
        data: encode(renderDocument(payload, input.format, input.serialize)),
      }))
    : [];
  return {
    output,
    sheetNames: extraction.sheetNames,
    warnings: [...extraction.warnings],
    sheets,
    printAreas,
  };
}

async function readJob(input: ReadJobInput, fd: number): Promise<ReadAnswer> {
  return readOutput(input.file, openedFileAccess(input.file, fd), input.request);
}

/** Draws sheets to PNG (sheet images): rasterising takes seconds of CPU, so it runs off the event loop. */
async function captureJob(input: CaptureJobInput, fd: number): Promise<CaptureJobOutput> {
  // Loaded on first use: the renderer (numfmt, resvg's glue, the fonts) is no part of the server's start.
  const { captureWorkbook } = await import('../render/capture.js');
  return captureWorkbook(input.file, openedFileAccess(input.file, fd), input.request);
}

export const JOBS: {
  [K in JobName]: (input: Jobs[K]['input'], fd: number) => Promise<Jobs[K]['output']>;
} = { extract: extractJob, read: readJob, capture: captureJob };

/** The buffers of a job's result, handed over to the other thread instead of copied. */
export function transferables(name: JobName, output: unknown): ArrayBuffer[] {
  if (name === 'capture') return []; // PNG Buffers share Node's pool: copied, not transferred
  if (name !== 'extract') return [];
  const result = output as ExtractJobOutput;
  // Chunks may share memory: each buffer is handed over once.
  const buffers = new Set<ArrayBuffer>();
  for (const bytes of [
    ...result.output,
    ...result.sheets.map((s) => s.data),
    ...result.printAreas.map((a) => a.data),
  ])
    buffers.add(bytes.buffer as ArrayBuffer);
  return [...buffers];
}
