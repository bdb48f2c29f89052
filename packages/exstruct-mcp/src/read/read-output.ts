import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { splitQualifiedRange } from '../ooxml/qualified-range.js';
import { readCells, readFormulas, readRange } from './direct-reads.js';
import { readJsonChunk, type ChunkRequest, type ChunkResult } from './json-chunk.js';
import { loadOutputFile, selectSheet } from './output-file.js';

/** One read of an extraction output, as the read tools ask for it. */
export type ReadRequest =
  | ({ op: 'chunk' } & ChunkRequest)
  | {
      op: 'range';
      sheet?: string | undefined;
      range: string;
      includeFormulas: boolean;
      includeEmpty: boolean;
      maxCells: number;
    }
  | { op: 'cells'; sheet?: string | undefined; addresses: string[]; includeFormulas: boolean }
  | { op: 'formulas'; sheet?: string | undefined; range?: string | undefined; includeValues: boolean };

type SheetAnswer<T> = { book_name?: string; sheet_name: string } & T;

export type ReadAnswer =
  | ({ op: 'chunk' } & ChunkResult)
  | ({ op: 'range' } & SheetAnswer<ReturnType<typeof readRange>>)
  | ({ op: 'cells' } & SheetAnswer<ReturnType<typeof readCells>>)
  | ({ op: 'formulas' } & SheetAnswer<ReturnType<typeof readFormulas>>);

/**
 * A range that names its sheet (`'Sheet 1'!A1:B2`, as Excel and the capture tool write it): that sheet and
 * the bare range; undefined for a bare range. A `sheet` given too must be the same sheet.
 */
function rangeOnSheet(
  range: string | undefined,
  sheet: string | undefined,
): { sheet: string; range: string } | undefined {
  if (range === undefined) return undefined;
  const split = splitQualifiedRange(range);
  if (split.sheet === undefined) return undefined;
  if (sheet !== undefined && sheet.toLowerCase() !== split.sheet.toLowerCase()) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `The range names the sheet "${split.sheet}", but sheet is "${sheet}".`,
      {
        hint: "Pass the sheet once: in sheet, or in the range as 'Sheet name'!A1:B2.",
      },
    );
  }
  return { sheet: split.sheet, range: split.range };
}

/** Loads the output (cached while unchanged) and answers one read of it. */
export async function readOutput(file: string, files: FileAccess, request: ReadRequest): Promise<ReadAnswer> {
  const output = await loadOutputFile(file, files);
  if (request.op === 'chunk') return { op: 'chunk', ...readJsonChunk(output, request) };
  const named = request.op === 'cells' ? undefined : rangeOnSheet(request.range, request.sheet);
  const sheet = selectSheet(output, named ? named.sheet : request.sheet);
  if (named && request.op !== 'cells') request = { ...request, range: named.range };
  const head = { ...(output.bookName ? { book_name: output.bookName } : {}), sheet_name: sheet.name };
  switch (request.op) {
    case 'range':
      return { op: 'range', ...head, ...readRange(sheet, request.range, request) };
    case 'cells':
      return { op: 'cells', ...head, ...readCells(sheet, request.addresses, request) };
    case 'formulas':
      return { op: 'formulas', ...head, ...readFormulas(sheet, request.range, request) };
  }
}
