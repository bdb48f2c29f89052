// The extraction job (jobs.ts): runs on the extraction thread, loaded there before its first job.
import { ftruncateSync, writeSync } from 'node:fs';
import type { FileAccess } from '@mcp-workbench/core/engine';
import { ByteSink, CHUNK_BYTES } from '../extract/byte-sink.js';
import { extractWorkbook } from '../extract/extract-workbook.js';
import type { Extraction } from '../extract/extraction.js';
import type { ExtractionMode } from '../extract/modes.js';
import { renderDocument } from '../output/render.js';
import type { ExtractJobInput, ExtractJobOutput } from './jobs.js';
import { openedFileAccess } from './opened-file-access.js';

const encoder = new TextEncoder();

/** Text as UTF-8 in memory of its own, which can be handed to the other thread (not Node's pool). */
const encode = (text: string) => encoder.encode(text);

/** Writes all of `bytes` to the file `fd` at `offset` (the thread's own writes, in order). */
function writeAt(fd: number, bytes: Uint8Array, offset: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, offset + done);
}

/** How a job has extractWorkbook read a workbook (see extractAsJob). */
export interface JobExtraction {
  mode: ExtractionMode;
  alphaCol: boolean;
  files: FileAccess;
  jsonRows: boolean;
  document: ByteSink | undefined;
  keepRows: boolean;
  /** Only these sheets: the warm-up's; a job reads them all. */
  sheets?: string[] | undefined;
}

/**
 * extractWorkbook as a job calls it, its options always one object of the same keys in the same order:
 * the warm-up (warm-up.ts) calls it too, and V8 optimises the extraction for the options' shape. When
 * the warm-up passed other keys, the first job threw that code away and compiled it again (bench/HISTORY.md,
 * 2026-11-29).
 */
export function extractAsJob(file: string, how: JobExtraction): Promise<Extraction> {
  return extractWorkbook(file, {
    mode: how.mode,
    alphaCol: how.alphaCol,
    files: how.files,
    jsonRows: how.jsonRows,
    document: how.document,
    keepRows: how.keepRows,
    sheets: how.sheets,
  });
}

/**
 * Extracts a workbook into the output file `input.outputFd` (a temp file the server opened, and puts in
 * place once the job has succeeded) and serialises the per-sheet / per-print-area files. Compact JSON
 * goes to the file while the sheets are read, through one reused chunk: neither the output nor a copy
 * of it is held in memory or handed between threads.
 */
export async function extractJob(input: ExtractJobInput, fd: number): Promise<ExtractJobOutput> {
  const out = input.outputFd;
  const compactJson = input.format === 'json' && input.serialize.pretty !== true;
  const document = compactJson
    ? new ByteSink(CHUNK_BYTES, (bytes, offset) => writeAt(out, bytes, offset))
    : undefined;
  const extraction = await extractAsJob(input.file, {
    mode: input.mode,
    alphaCol: input.alphaCol,
    files: openedFileAccess(input.file, fd),
    // Compact JSON is written while the rows are read; other formats are made from the model.
    jsonRows: compactJson,
    document,
    // Per-sheet and print-area files are made from the rows after the document; without them each
    // sheet's rows can go once written, so a call holds one sheet's rows at a time.
    keepRows: Boolean(input.sheetFiles || input.printAreaFiles),
  });
  if (document) {
    const length = document.finish();
    // A sheet whose rows were written again may have left bytes past the end.
    ftruncateSync(out, length);
  } else {
    const bytes = encode(renderDocument(extraction.workbook, input.format, input.serialize));
    writeAt(out, bytes, 0);
    ftruncateSync(out, bytes.length);
  }
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
    sheetNames: extraction.sheetNames,
    warnings: [...extraction.warnings],
    sheets,
    printAreas,
  };
}
