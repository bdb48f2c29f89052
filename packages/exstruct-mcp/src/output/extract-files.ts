import path from 'node:path';
import { ToolError, type OutputFormat } from '@mcp-workbench/core/engine';

/** `book.xlsx` → `book.json`; an out_name without extension gets the format's (as the original). */
export function extractOutputName(input: string, format: OutputFormat, outName: string | undefined): string {
  const suffix = `.${format}`;
  if (!outName) return `${path.basename(input, path.extname(input))}${suffix}`;
  if (outName.includes('/') || outName.includes('\\')) {
    throw new ToolError('INVALID_ARGUMENT', `out_name "${outName}" must be a file name, not a path.`, {
      hint: 'Put the folder in out_dir and only the file name in out_name.',
    });
  }
  const given = path.extname(outName).toLowerCase();
  if (!given) return `${outName}${suffix}`;
  // The read tools tell a file's format by its extension: YAML in a .json file could not be read back.
  const claimed = FORMAT_OF_EXTENSION[given];
  if (claimed !== undefined && claimed !== format) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `out_name "${outName}" has the extension of ${claimed.toUpperCase()}, but format "${format}" writes ${format.toUpperCase()}.`,
      {
        hint: `Name it ${path.basename(outName, path.extname(outName))}${suffix} (or leave the extension out), or pass format "${claimed}".`,
      },
    );
  }
  return outName;
}

/** Extensions the read tools parse by (output-file.ts); others are read as JSON. */
const FORMAT_OF_EXTENSION: Record<string, OutputFormat> = {
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toon': 'toon',
};

/** Windows device names: `CON.json` there is the console, whatever the extension, not a file. */
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * A sheet name made safe as a file name (`a/b:c` → `a_b_c`), as the original's save_sheets does, and
 * a Windows device name (a sheet named `CON`, `Nul`, `COM1`) given a `_` on every platform.
 */
export function sheetFileStem(sheetName: string): string {
  const safe = sheetName.replace(/[\\/:*?"<>|]/g, '_');
  if (safe === '') return 'sheet';
  return DEVICE_NAME.test(safe) ? `${safe}_` : safe;
}
