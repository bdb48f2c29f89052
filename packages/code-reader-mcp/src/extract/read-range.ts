// Line ranges of a file too big to read whole (spec 001: refuse huge reads, urge narrower ranges). The
// file is streamed once: every line is counted, only the lines of the requested ranges are kept, so
// memory is bounded by what was asked for (and refused past `maxKeptBytes`), not by the file's size.
import { ToolError, type OpenedFile } from '@mcp-workbench/core/engine';

/** A requested range: 1-based lines, `end` inclusive, undefined to the end of the file. */
export interface LineRange {
  start: number;
  end?: number | undefined;
}

export interface StreamedLines {
  /** The file's number of lines (a final line without newline counts). */
  lineCount: number;
  /** The kept lines (line endings kept), by 0-based index. */
  kept: Map<number, string>;
}

const CHUNK = 1024 * 1024;

function wanted(ranges: readonly LineRange[], line: number): boolean {
  return ranges.some((r) => line >= r.start && (r.end === undefined || line <= r.end));
}

function rangeTooBig(shownPath: string, size: number, maxKeptBytes: number): ToolError {
  return new ToolError(
    'LIMIT_EXCEEDED',
    `${shownPath} is ${size} bytes, above max_file_size (${maxKeptBytes} bytes): it is read only in line ranges, and the lines asked for hold more than ${maxKeptBytes} bytes.`,
    {
      hint: 'Give start_line and end_line a few hundred lines apart (search_content finds the line numbers); a single line this long cannot be read.',
      details: { limit: 'max_file_size', value: size, max: maxKeptBytes },
    },
  );
}

/**
 * Streams an opened UTF-8 file (a UTF-8 BOM dropped) and keeps the lines of `ranges`, reading no
 * further than their last line when all have an end. A NUL byte in the first 8 KiB is
 * UNSUPPORTED_FORMAT (binary), as decodeText judges; a UTF-16 file (BOM) cannot be split by bytes
 * and is refused with `refuseWhole`, the error of a whole-file read. The caller closes the file.
 */
export async function streamLines(
  opened: OpenedFile,
  shownPath: string,
  ranges: readonly LineRange[],
  maxKeptBytes: number,
  refuseWhole: () => ToolError,
): Promise<StreamedLines> {
  const last = ranges.every((r) => r.end !== undefined)
    ? Math.max(...ranges.map((r) => r.end ?? 0))
    : Infinity;
  const kept = new Map<number, string>();
  let keptBytes = 0;
  let line = 1; // the line being read
  let pieces: Buffer[] = []; // the kept line's bytes read so far
  let position = 0;
  let lastByte = -1;
  let text = false; // any byte after the BOM
  const keep = (piece: Buffer) => {
    keptBytes += piece.length;
    if (keptBytes > maxKeptBytes) throw rangeTooBig(shownPath, opened.stats.size, maxKeptBytes);
    pieces.push(piece);
  };
  const buffer = Buffer.allocUnsafe(CHUNK);
  while (line <= last) {
    const { bytesRead } = await opened.handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) break;
    let chunk = buffer.subarray(0, bytesRead);
    if (position === 0) {
      if ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))
        throw refuseWhole();
      if (chunk.subarray(0, 8192).includes(0)) {
        throw new ToolError('UNSUPPORTED_FORMAT', `${shownPath} looks like a binary file.`, {
          hint: 'Only text files can be read (UTF-8, or UTF-16 with a byte order mark); use search_content to find text in it.',
        });
      }
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    position += bytesRead;
    if (chunk.length > 0) {
      text = true;
      lastByte = chunk[chunk.length - 1] as number;
    }
    let from = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, from)) {
      if (wanted(ranges, line)) {
        keep(chunk.subarray(from, newline + 1));
        kept.set(line - 1, Buffer.concat(pieces).toString('utf8'));
      }
      pieces = [];
      line++;
      from = newline + 1;
    }
    // Copied: the buffer is reused for the next chunk.
    if (from < chunk.length && wanted(ranges, line)) keep(Buffer.from(chunk.subarray(from)));
  }
  // Stopped after the last range: the file has at least the lines read, all the answer needs.
  if (line > last) return { lineCount: line - 1, kept };
  const open = text && lastByte !== 10; // a final line without newline
  if (open && pieces.length > 0) kept.set(line - 1, Buffer.concat(pieces).toString('utf8'));
  return { lineCount: open ? line : line - 1, kept };
}
