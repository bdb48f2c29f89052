// The extraction job (jobs.ts): runs on the extraction thread, loaded there before its first job.
import { extractWorkbook } from '../extract/extract-workbook.js';
import { renderDocument } from '../output/render.js';
import type { ExtractJobInput, ExtractJobOutput } from './jobs.js';
import { openedFileAccess } from './opened-file-access.js';

const encoder = new TextEncoder();

/** Text as UTF-8 in memory of its own, which can be handed to the other thread (not Node's pool). */
const encode = (text: string) => encoder.encode(text);

/** Extracts a workbook and serialises the output and the per-sheet / per-print-area files. */
export async function extractJob(input: ExtractJobInput, fd: number): Promise<ExtractJobOutput> {
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
