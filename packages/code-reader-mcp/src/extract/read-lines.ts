import { readFile, stat } from 'node:fs/promises';
import { ToolError } from '@mcp-workbench/core/engine';
import { EXTRACT_LIMITS } from './limits.js';

/** A file read once, split into lines (line endings kept so content comes back byte-exact). */
export interface LoadedFile {
  lines: string[];
  bytes: number;
}

export async function loadFile(
  realPath: string,
  shownPath: string,
  maxFileSize: number = EXTRACT_LIMITS.max_file_size,
): Promise<LoadedFile> {
  const info = await stat(realPath);
  if (info.size > maxFileSize) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `${shownPath} is ${info.size} bytes, above max_file_size (${maxFileSize} bytes).`,
      {
        hint: 'Use search_content or get_code_outline to find the lines you need in this file, or read a smaller file.',
        details: { limit: 'max_file_size', value: info.size, max: maxFileSize },
      },
    );
  }
  const text = await readFile(realPath, 'utf8');
  return { lines: splitLinesKeepEnds(text), bytes: info.size };
}

/** Splits after each "\n" (so "\r\n" stays whole); a final line without newline is kept. */
export function splitLinesKeepEnds(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}
