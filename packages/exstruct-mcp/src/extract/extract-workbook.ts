import path from 'node:path';
import type { FileAccess } from '@mcp-workbench/core/engine';
import { WorkbookReader } from '../ooxml/workbook-reader.js';
import type { ZipLimits } from '../ooxml/zip-archive.js';
import { convertSheetKeysToAlpha } from './alpha-col.js';
import { ByteSink } from './byte-sink.js';
import { extractSheet, type ExtractedSheet } from './extract-sheet.js';
import { Extraction, JsonDocument } from './extraction.js';
import { releaseRows } from './row-store.js';
import { releaseRowsKernel } from './rows-kernel.js';
import { modeFeatures, type ExtractionMode } from './modes.js';
import type { BatchOptions } from './batch-scan.js';
import { markSpareCores } from './spare-cores.js';

export interface ExtractOptions {
  mode?: ExtractionMode;
  /** Column letters as keys of `c`/`links`, merged_ranges instead of merged_cells (spec 13). */
  alphaCol?: boolean;
  /** Keep merged ranges' values in `rows` (default true, the original's default). */
  mergedValuesInRows?: boolean;
  /** Only these sheets (default: all). Unknown names fail with SHEET_NOT_FOUND. */
  sheets?: string[];
  zipLimits?: Partial<ZipLimits>;
  /** Row-batch parsing (and worker threads) for big sheets; false to always parse in one pass. */
  batches?: BatchOptions | false;
  /** How the workbook is opened: a server's PathPolicy (default: the user's own paths). */
  files?: FileAccess;
  /** Read rows with the fast byte parser where it can (default true; see fast-rows.ts). */
  fastRows?: boolean;
  /**
   * Write the rows' compact JSON while reading them (default true), which makes `serialize('json')`
   * cheap; a caller that wants another format saves the work with false.
   */
  jsonRows?: boolean;
  /**
   * Write the workbook's compact JSON into this sink while the sheets are read, front to back (a sink
   * that flushes to the output file streams it there): the bytes `serialize('json')` gives.
   */
  document?: ByteSink;
  /**
   * With `document`: false lets each sheet's rows go once they are written there, so the extraction
   * holds one sheet's rows at a time instead of the workbook's (default true). The extraction returned
   * then has no rows: for a caller that takes the output from the document alone.
   */
  keepRows?: boolean;
}

/**
 * Reads an .xlsx/.xlsm workbook into the ExStruct model without Excel: the package is opened once,
 * sheets are streamed one after the other (big ones on several cores), and rows are kept in a compact
 * columnar store until they are serialised.
 */
export async function extractWorkbook(file: string, options: ExtractOptions = {}): Promise<Extraction> {
  const features = modeFeatures(options.mode ?? 'standard');
  // Whether the machine has cores to spare for a big sheet is measured from here (parallel-rows.ts).
  markSpareCores();
  // What the extraction keeps is copied out of the package (strings, typed arrays), so its memory can
  // serve the next workbook read on this thread.
  const reader = await WorkbookReader.open(file, options.zipLimits, options.files, { reuseMemory: true });
  const warnings: string[] = reader.decryptionNote ? [reader.decryptionNote] : [];
  try {
    const wanted = options.sheets
      ? new Set(options.sheets.map((name) => reader.sheet(name).name))
      : undefined;
    const sheets: ExtractedSheet[] = [];
    const entries = reader.workbook.sheets;
    const alphaCol = options.alphaCol === true;
    const document = options.document
      ? new JsonDocument(options.document, path.basename(file), alphaCol)
      : undefined;
    const json = document
      ? { sink: document.sink, alpha: alphaCol }
      : options.jsonRows === false
        ? undefined
        : { sink: new ByteSink(), alpha: alphaCol };
    // Each sheet's rows go once written to the document (see keepRows).
    const letRowsGo = document !== undefined && options.keepRows === false;
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      if (wanted && !wanted.has(entry.name)) continue;
      document?.startSheet(entry.name);
      const sheet = await extractSheet(reader, entry, index, {
        features,
        mergedValuesInRows: options.mergedValuesInRows ?? true,
        batches: options.batches ?? {},
        fastRows: options.fastRows !== false,
        json,
        // Rows let go once written are read in the thread's spare columns, given back below.
        lendRows: letRowsGo,
        warn: (message) => warnings.push(message),
      });
      // Spec 13.5: letter keys are applied after extraction, right before serialisation.
      if (options.alphaCol) sheet.data = convertSheetKeysToAlpha(sheet.data);
      document?.endSheet(sheet);
      if (letRowsGo) {
        releaseRows(sheet.rows?.segments);
        sheet.rows = undefined;
      }
      sheets.push(sheet);
    }
    document?.end();
    return new Extraction(path.basename(file), sheets, {
      alphaCol,
      sheetNames: reader.sheetNames,
      warnings,
      // The document's sink streams on: its bytes are not there to be viewed again.
      rowsJson: document ? undefined : json?.sink,
    });
  } finally {
    reader.close();
    releaseRowsKernel();
  }
}
