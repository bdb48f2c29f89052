import { ToolError, readOpened, type FileAccess } from '@mcp-workbench/core/engine';
import { EXTRACT_LIMITS } from './limits.js';
import { streamLines, type LineRange } from './read-range.js';

/** The lines of a file that extraction may look at (line endings kept, so content is byte-exact). */
export interface LoadedFile {
  lineCount: number;
  /** Lines `from` (0-based) up to `to` (exclusive), as Array.prototype.slice. */
  slice(from: number, to: number): string[];
}

/**
 * Reads a file inside the roots (opened without following links) for the line ranges asked. A file up
 * to `maxFileSize` is read whole; a bigger one is streamed and only the ranges' lines kept (up to
 * `maxFileSize` bytes of them), so a narrow range of a huge file can be read but never all of it.
 */
export async function loadFile(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  maxFileSize: number = EXTRACT_LIMITS.max_file_size,
  ranges: readonly LineRange[] = [{ start: 1 }],
): Promise<LoadedFile> {
  const opened = await files.openFile(realPath);
  try {
    const size = opened.stats.size;
    if (size > maxFileSize) {
      const refuse = () =>
        new ToolError(
          'LIMIT_EXCEEDED',
          `${shownPath} is ${size} bytes, above max_file_size (${maxFileSize} bytes), and UTF-16: it cannot be read in parts.`,
          {
            hint: 'Use search_content to find what you need in this file.',
            details: { limit: 'max_file_size', value: size, max: maxFileSize },
          },
        );
      const { lineCount, kept } = await streamLines(opened, shownPath, ranges, maxFileSize, refuse);
      return {
        lineCount,
        slice: (from, to) => {
          const lines: string[] = [];
          for (let i = from; i < Math.min(to, lineCount); i++) lines.push(kept.get(i) ?? '');
          return lines;
        },
      };
    }
    // A file that grows past the cap while it is read is refused too (core's LIMIT_EXCEEDED).
    const buffer = await readOpened(opened, { maxBytes: maxFileSize, shownAs: shownPath });
    const lines = splitLinesKeepEnds(decodeText(buffer, shownPath));
    return { lineCount: lines.length, slice: (from, to) => lines.slice(from, to) };
  } finally {
    await opened.handle.close();
  }
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
