import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  localFiles,
  parseToon,
  parseYaml,
  readOpened,
  ToolError,
  type FileAccess,
} from '@mcp-workbench/core/engine';
import type { CellValue } from '../extract/cell-value.js';
import { columnIndex } from '../extract/extraction.js';
import type { CellRow, SheetData } from '../extract/model.js';
import { fromToonLayout, ToonLayoutError } from '../output/toon-layout.js';

/** An extraction output file as the read tools see it. */
export interface OutputFile {
  file: string;
  /** Identifies this exact version of the file (path + size + mtime); cursors carry it. */
  fingerprint: string;
  pathHash: string;
  /** The file's text when it is JSON (returned whole when it fits a chunk). */
  jsonText: string | undefined;
  /** The format chunks of this file are answered in: TOON for a .toon output, JSON otherwise. */
  chunkFormat: 'json' | 'toon';
  bytes: number;
  bookName: string | undefined;
  sheets: Map<string, SheetView>;
}

/** One sheet with indexes for direct reads; built lazily per sheet. */
export class SheetView {
  private byRow: Map<number, CellRow> | undefined;
  private formulaByCell: Map<string, string> | undefined;
  private sortedRows: CellRow[] | undefined;

  constructor(
    readonly name: string,
    readonly data: SheetData,
  ) {}

  /** Rows sorted by row number (the extractor writes them sorted; other writers may not). */
  get rows(): CellRow[] {
    if (!this.sortedRows) {
      const rows = Array.isArray(this.data.rows) ? this.data.rows : [];
      let sorted = true;
      for (let i = 1; i < rows.length; i++) if (rows[i - 1]!.r > rows[i]!.r) sorted = false;
      this.sortedRows = sorted ? rows : [...rows].sort((a, b) => a.r - b.r);
    }
    return this.sortedRows;
  }

  /** Value at a 1-based row and 0-based column, whatever the file's key style ("12" or "M"). */
  valueAt(row: number, col: number): CellValue | undefined {
    if (!this.byRow) {
      this.byRow = new Map();
      for (const r of this.rows) this.byRow.set(r.r, r);
    }
    const found = this.byRow.get(row);
    if (!found) return undefined;
    for (const [key, value] of Object.entries(found.c)) if (columnIndex(key) === col) return value;
    return undefined;
  }

  get hasFormulas(): boolean {
    return this.data.formulas_map !== undefined;
  }

  formulaAt(row: number, col: number): string | undefined {
    return this.formulas().get(`${row}:${col}`);
  }

  /** Every formula cell, in row-major order. */
  formulaCells(): Array<{ row: number; col: number; formula: string }> {
    return [...this.formulas()]
      .map(([key, formula]) => {
        const [row, col] = key.split(':').map(Number) as [number, number];
        return { row, col, formula };
      })
      .sort((a, b) => a.row - b.row || a.col - b.col);
  }

  private formulas(): Map<string, string> {
    if (!this.formulaByCell) {
      this.formulaByCell = new Map();
      for (const [formula, cells] of Object.entries(this.data.formulas_map ?? {})) {
        for (const cell of cells) {
          if (Array.isArray(cell) && cell.length === 2)
            this.formulaByCell.set(`${cell[0]}:${cell[1]}`, formula);
        }
      }
    }
    return this.formulaByCell;
  }
}

function notAnOutput(file: string, why: string): ToolError {
  return new ToolError(
    'INVALID_OUTPUT_FILE',
    `"${path.basename(file)}" is not an ExStruct extraction output: ${why}.`,
    {
      hint: 'Pass the out_path returned by exstruct_extract (a .json, .yaml or .toon file), not the workbook itself.',
    },
  );
}

function parseByExtension(file: string, text: string): unknown {
  const ext = path.extname(file).toLowerCase();
  try {
    // TOON is written in the table layout (docs/toon.md): read back into the JSON model.
    if (ext === '.toon')
      return fromToonLayout(parseToon(text), { maxMapCells: Math.max(1_000_000, text.length) });
    if (ext === '.yaml' || ext === '.yml') return parseYaml(text, { maxAliasCount: 100 });
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof ToonLayoutError)
      throw notAnOutput(file, `its TOON tables do not follow ExStruct's layout (${error.message})`);
    throw notAnOutput(
      file,
      `it does not parse as ${ext === '.toon' ? 'TOON' : ext.startsWith('.y') ? 'YAML' : 'JSON'} (${(error as Error).message})`,
    );
  }
}

/** Accepts a workbook output `{book_name, sheets}` or a sheets_dir file `{book_name, sheet_name, sheet}`. */
function toSheets(
  file: string,
  parsed: unknown,
): { bookName: string | undefined; sheets: Map<string, SheetView> } {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw notAnOutput(file, 'the root is not an object');
  const root = parsed as Record<string, unknown>;
  const bookName = typeof root.book_name === 'string' ? root.book_name : undefined;
  const sheets = new Map<string, SheetView>();
  if (root.sheets && typeof root.sheets === 'object' && !Array.isArray(root.sheets)) {
    for (const [name, data] of Object.entries(root.sheets as Record<string, unknown>)) {
      if (data && typeof data === 'object') sheets.set(name, new SheetView(name, data));
    }
    return { bookName, sheets };
  }
  if (typeof root.sheet_name === 'string' && root.sheet && typeof root.sheet === 'object') {
    sheets.set(root.sheet_name, new SheetView(root.sheet_name, root.sheet));
    return { bookName, sheets };
  }
  throw notAnOutput(file, 'it has no "sheets" object');
}

const cache = new Map<string, OutputFile>();
const CACHE_SIZE = 4;

/** Largest output file read (a JavaScript string holds at most ~512 MiB of text). */
export const MAX_OUTPUT_FILE_BYTES = 512 * 1024 * 1024;

/**
 * Loads an extraction output, parsed once and cached while the file is unchanged, so paging through a
 * big output costs only the rows each page returns. The file is opened through `files` (a server's
 * PathPolicy: as checked, regular files only) even when the cache has it.
 */
export async function loadOutputFile(file: string, files: FileAccess = localFiles): Promise<OutputFile> {
  const opened = await files.openFile(file);
  let text: string;
  let fingerprint: string;
  const pathHash = createHash('sha256').update(file).digest('base64url').slice(0, 12);
  const info = opened.stats;
  try {
    fingerprint = `${pathHash}:${info.size}:${Math.trunc(info.mtimeMs)}:${info.ino}`;
    const cached = cache.get(file);
    if (cached && cached.fingerprint === fingerprint) {
      cache.delete(file);
      cache.set(file, cached);
      return cached;
    }
    if (info.size > MAX_OUTPUT_FILE_BYTES) {
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `"${path.basename(file)}" is ${info.size} bytes; outputs up to ${MAX_OUTPUT_FILE_BYTES} bytes can be read.`,
        {
          hint: 'Extract again with options.sheets_dir to get one file per sheet, and read those.',
          details: { limit: 'max_output_file_bytes', value: info.size, max: MAX_OUTPUT_FILE_BYTES },
        },
      );
    }
    text = (await readOpened(opened, { maxBytes: MAX_OUTPUT_FILE_BYTES })).toString('utf8');
  } finally {
    await opened.handle.close();
  }
  const { bookName, sheets } = toSheets(file, parseByExtension(file, text));
  const isJson = !/\.(toon|ya?ml)$/i.test(file);
  const loaded: OutputFile = {
    file,
    fingerprint,
    pathHash,
    jsonText: isJson ? text : undefined,
    chunkFormat: /\.toon$/i.test(file) ? 'toon' : 'json',
    bytes: info.size,
    bookName,
    sheets,
  };
  cache.set(file, loaded);
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return loaded;
}

/** The named sheet, or the only one; SHEET_REQUIRED / SHEET_NOT_FOUND list the names there are. */
export function selectSheet(output: OutputFile, sheet: string | undefined): SheetView {
  const names = [...output.sheets.keys()];
  const list = names.map((n) => JSON.stringify(n)).join(', ');
  if (sheet !== undefined) {
    // Excel's sheet names are unique whatever their case, and its references ignore case too.
    const found =
      output.sheets.get(sheet) ??
      output.sheets.get(names.find((name) => name.toLowerCase() === sheet.toLowerCase()) ?? '');
    if (!found) {
      throw new ToolError('SHEET_NOT_FOUND', `Sheet not found: "${sheet}". Available sheets: ${list}.`, {
        hint: 'Sheet names are space-sensitive; copy one from workbook_meta.sheet_names.',
        details: { sheet_names: names },
      });
    }
    return found;
  }
  if (names.length === 1) return output.sheets.get(names[0]!)!;
  if (names.length === 0) throw notAnOutput(output.file, 'it holds no sheets');
  throw new ToolError(
    'SHEET_REQUIRED',
    `Sheet is required when multiple sheets exist. Available sheets: ${list}. Retry with sheet="${names[0]}".`,
    {
      hint: 'Pick one value from workbook_meta.sheet_names and pass it as `sheet`.',
      details: { sheet_names: names },
    },
  );
}
