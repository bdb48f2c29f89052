import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { readCapped } from '../util/read-capped.js';
import { EXTRACT_LIMITS } from './limits.js';

/** A file read once, split into lines (line endings kept so content comes back byte-exact). */
export interface LoadedFile {
  lines: string[];
  bytes: number;
}

/** Reads a file inside the roots (see readCapped) and splits it into lines. */
export async function loadFile(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  maxFileSize: number = EXTRACT_LIMITS.max_file_size,
): Promise<LoadedFile> {
  const buffer = await readCapped(
    files,
    realPath,
    shownPath,
    maxFileSize,
    (size) =>
      new ToolError(
        'LIMIT_EXCEEDED',
        `${shownPath} is ${size} bytes, above max_file_size (${maxFileSize} bytes).`,
        {
          hint: 'Use search_content or get_code_outline to find the lines you need in this file, or read a smaller file.',
          details: { limit: 'max_file_size', value: size, max: maxFileSize },
        },
      ),
  );
  return { lines: splitLinesKeepEnds(decodeText(buffer, shownPath)), bytes: buffer.length };
}

/**
 * A text file's content as a string, the way ripgrep reads it: a UTF-8 BOM is dropped, a file starting
 * with a UTF-16 LE/BE BOM is decoded as UTF-16, anything else is UTF-8. A file with a NUL byte in its
 * first 8 KiB (and no UTF-16 BOM) is refused as binary (UNSUPPORTED_FORMAT), like check_code_scale.
 */
export function decodeText(buffer: Buffer, shownPath: string): string {
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return buffer.subarray(2).toString('utf16le');
  if (buffer[0] === 0xfe && buffer[1] === 0xff) {
    const body = Buffer.from(buffer.subarray(2, buffer.length - (buffer.length % 2)));
    return body.swap16().toString('utf16le');
  }
  if (buffer.subarray(0, 8192).includes(0)) {
    throw new ToolError('UNSUPPORTED_FORMAT', `${shownPath} looks like a binary file.`, {
      hint: 'Only text files can be read (UTF-8, or UTF-16 with a byte order mark); use search_content to find text in it.',
    });
  }
  const start = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.subarray(start).toString('utf8');
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
