// The rows of a search whose matches each lie on one line (no multiline, no context lines), without
// ripgrep printing the lines (issue 25): `--json` ships every matching line whole, megabytes of minified
// code and source maps for a page that shows 400 characters of each, and reading that JSON was most of
// a rare word's search after ripgrep's walk. Here ripgrep prints only where each match is
// (`--only-matching` with line, column and byte offset) and each matching line is read from its file.
// A row reads exactly as JsonMatchCollector reads the `--json` record of its line, a clipped record
// included (what the record would be is computed from the line and its matches). A file is left to
// `--json` when its printed matches do not add up to its counted ones (a binary file, where ripgrep
// prints a note instead; empty matches, which the two printers list differently), when it starts with
// a byte-order mark (ripgrep transcodes it), or when a line cannot be shown the same way from here.
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { DEFAULT_CLIP_LIMITS } from '../rg/json-clipper.js';
import { LONG_RECORD_BYTES, MAX_RECORD_BYTES } from '../rg/run.js';
import { MAX_LINE_CHARS, charColumn, clip, clipWindow, codePoints, stripNewline } from './collect.js';
import type { SearchMatch } from './types.js';

/** ripgrep's flags that print each match as `path NUL line:column:offset:match` (then its arguments). */
export const ONLY_MATCHING_FLAGS = [
  '--only-matching',
  '--null',
  '--with-filename',
  '--line-number',
  '--column',
  '--byte-offset',
] as const;

/** ripgrep's closing `summary` record of a `--json` run, as run.ts counts it (its timings vary). */
export const SUMMARY_RECORD_CHARS = 262;

/** A line longer than this is left to `--json` (which reads it in bounded memory). */
export const MAX_LINE_READ = 16 * 1024 * 1024;

/** The matches of one line, as ripgrep printed them. */
export interface LineHits {
  line: number;
  /** The line's byte offset in its file. */
  offset: number;
  /** Each match's byte offset in the line. */
  starts: number[];
  /** Each match's bytes (views into ripgrep's output). */
  texts: Buffer[];
}

export interface FileRows {
  rows: SearchMatch[];
  /** Lines whose `--json` record would have been clipped (as JsonMatchCollector.clippedLines). */
  clippedLines: { file: string; line: number; bytes: number }[];
  /**
   * What run.ts would have counted of the file's `--json` records (their bytes when long, else their
   * UTF-16 length): the search sizes its batches of rows by it, so that they stay what they were.
   */
  jsonBytes: number;
  /** Lines whose escapes jsonBytes leaves out (it counts each byte once): see escapedExtra. */
  unescaped: UnescapedLine[];
}

/** A line of a file by its byte offset and length. */
export interface UnescapedLine {
  offset: number;
  bytes: number;
}

/**
 * The bytes the escapes of these lines of `file` add to their `--json` records (FileRows.jsonBytes
 * leaves them out), read again from the file; what cannot be read adds nothing.
 */
export function escapedExtra(file: string, lines: readonly UnescapedLine[]): number {
  if (lines.length === 0) return 0;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return 0;
  }
  try {
    const reader = new LineReader(fd);
    let extra = 0;
    for (const { offset, bytes } of lines) {
      const line = reader.read(offset)?.subarray(0, bytes);
      if (line !== undefined) extra += escapedSize(line) - line.length;
    }
    return extra;
  } catch {
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Splits ripgrep's `--only-matching --null` output by file and line. A line that is not a match (the
 * note ripgrep prints for a binary file has no NUL) runs into the next record's path: that path is
 * found after the note's line break, and the binary file, short of matches, is left to `--json`.
 */
export function parseOnlyMatching(out: Buffer, wanted: ReadonlySet<string>): Map<string, LineHits[]> {
  const parser = new OnlyMatchingParser(wanted);
  parser.push(out);
  return parser.files;
}

/**
 * parseOnlyMatching as ripgrep's output comes, chunk by chunk, so that a file's rows can be read while
 * ripgrep still searches the others. ripgrep prints each file's records together, so a file is whole
 * once another file's record follows (a file named again after that is in `reopened`).
 */
export class OnlyMatchingParser {
  readonly files = new Map<string, LineHits[]>();
  /** Files whose records came again after another file's (so read too soon): none from ripgrep. */
  readonly reopened = new Set<string>();
  /** Bytes of a record not whole yet (kept as chunks until one holds a line break: long matches). */
  private pending: Buffer[] = [];
  private last: string | undefined;
  private readonly done = new Set<string>();

  constructor(private readonly wanted: ReadonlySet<string>) {}

  /** Reads a chunk; returns the files whose records have all come with it. */
  push(chunk: Buffer): string[] {
    if (chunk.indexOf(10) < 0) {
      this.pending.push(chunk); // no record ends in it
      return [];
    }
    const out = this.pending.length > 0 ? Buffer.concat([...this.pending, chunk]) : chunk;
    this.pending = [];
    const whole: string[] = [];
    let at = 0;
    while (at < out.length) {
      const nul = out.indexOf(0, at);
      if (nul < 0) break;
      const end = out.indexOf(10, nul);
      if (end < 0) break; // not whole yet (or cut short when ripgrep was stopped)
      const file = knownPath(out, at, nul, this.wanted);
      const numbers = readNumbers(out, nul + 1, end);
      at = end + 1;
      if (file === undefined || numbers === undefined) continue;
      if (file !== this.last) {
        if (this.last !== undefined) {
          whole.push(this.last);
          this.done.add(this.last);
        }
        if (this.done.has(file)) this.reopened.add(file);
        this.last = file;
      }
      const [line, column, offset, textStart] = numbers;
      let hits = this.files.get(file);
      if (!hits) this.files.set(file, (hits = []));
      let last = hits[hits.length - 1];
      if (last?.line !== line) {
        last = { line, offset: offset - (column - 1), starts: [], texts: [] };
        hits.push(last);
      }
      last.starts.push(column - 1);
      last.texts.push(out.subarray(textStart, end));
    }
    if (at < out.length) this.pending.push(out.subarray(at));
    return whole;
  }
}

/** The path of the record from `start` to the NUL, or after a line break in it; undefined if unknown. */
function knownPath(out: Buffer, start: number, nul: number, wanted: ReadonlySet<string>): string | undefined {
  const file = out.toString('utf8', start, nul);
  if (wanted.has(file)) return file;
  for (let cut = out.indexOf(10, start); cut >= 0 && cut < nul; cut = out.indexOf(10, cut + 1)) {
    const rest = out.toString('utf8', cut + 1, nul);
    if (wanted.has(rest)) return rest;
  }
  return undefined;
}

/** `line:column:offset:` from `at`: the three numbers and where the match's bytes start. */
function readNumbers(out: Buffer, at: number, end: number): [number, number, number, number] | undefined {
  const values: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = at; i < end; i++) {
    const byte = out[i]!;
    if (byte >= 0x30 && byte <= 0x39) {
      value = value * 10 + (byte - 0x30);
      digits++;
      continue;
    }
    if (byte !== 0x3a || digits === 0) return undefined;
    values.push(value);
    if (values.length === 3) return [values[0]!, values[1]!, values[2]!, i + 1];
    value = 0;
    digits = 0;
  }
  return undefined;
}

/**
 * The rows of one file from its matches, as `--json` would give them; undefined when the file is to be
 * read with `--json` instead (see the top of this file). `count` is the file's counted matches.
 */
export function rowsOfFile(file: string, hits: readonly LineHits[], count: number): FileRows | undefined {
  let printed = 0;
  let previous = 0;
  for (const hit of hits) {
    for (const text of hit.texts) if (text.length === 0) return undefined;
    if (hit.line <= previous) return undefined; // a file's lines come in order, once each
    previous = hit.line;
    printed += hit.texts.length;
  }
  if (printed !== count || hits.length === 0) return undefined;
  let fd: number;
  try {
    // Not through a link that replaced the file since it was counted (and checked against the roots).
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined; // gone, unreadable or a link now: `--json` says why
  }
  try {
    const head = Buffer.alloc(3);
    const got = readSync(fd, head, 0, 3, 0);
    if (hasByteOrderMark(head.subarray(0, got))) return undefined;
    const path = Buffer.from(file, 'utf8');
    const pathFacts = factsOf(path);
    const pathExtra = pathFacts.utf8 ? stringExtra(pathFacts) : 0;
    const result: FileRows = {
      rows: [],
      clippedLines: [],
      jsonBytes: otherRecords(path, pathFacts, printed),
      unescaped: [],
    };
    const reader = new LineReader(fd);
    for (const hit of hits) {
      const line = reader.read(hit.offset);
      if (line === undefined || line.includes(0)) return undefined;
      for (let i = 0; i < hit.starts.length; i++) {
        const start = hit.starts[i]!;
        const text = hit.texts[i]!;
        if (!line.subarray(start, start + text.length).equals(text)) return undefined;
      }
      // A line's escapes are counted byte by byte (~20 MB of minified lines and source maps on a
      // common word's first page) only where they decide what is shown: whether its record passes
      // MAX_RECORD_BYTES (each byte's escape takes at most five more), and a shown line's characters.
      // Elsewhere they only size the next batch, and are counted when one needs them (escapedExtra):
      // a clipped record counts as bytes, and one of an ASCII line and path the same either way.
      const ascii = isAscii(line);
      const utf8 = ascii || isUtf8(line);
      let facts: Facts = { ascii, utf8, escaped: line.length, continuation: 0, fourByte: 0 };
      let record = recordSize(path, pathFacts, line, facts, hit);
      let unescaped = utf8; // a line that is not UTF-8 is sent as base64, without escapes
      const clipped = record > MAX_RECORD_BYTES;
      if (!clipped && !(ascii && pathExtra === 0 && record + 5 * line.length <= MAX_RECORD_BYTES)) {
        unescaped = false;
        facts = factsOf(line);
        record = recordSize(path, pathFacts, line, facts, hit);
      }
      const row = showLine(file, path, line, facts, hit, record > MAX_RECORD_BYTES);
      if (row === undefined) return undefined;
      // Long records of a UTF-8 line are counted in bytes (read as bytes), the others as strings.
      const asBytes = record > MAX_RECORD_BYTES || (record > LONG_RECORD_BYTES && facts.utf8);
      result.jsonBytes += asBytes ? record : record - utf8Extra(pathFacts, facts, hit);
      if (unescaped) result.unescaped.push({ offset: hit.offset, bytes: line.length });
      result.rows.push(row.match);
      if (row.clipped !== undefined) result.clippedLines.push(row.clipped);
    }
    return result;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A UTF-8 or UTF-16 byte-order mark: ripgrep decodes such a file, so its offsets are not the file's. */
function hasByteOrderMark(head: Buffer): boolean {
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)))
    return true;
  return head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
}

/** Where lines are read (one at a time, each shown before the next is read): grown as needed, kept. */
let lineBuffer = Buffer.allocUnsafe(64 * 1024);

/** Reads lines of one file, with their line break as `--json` gives them. */
class LineReader {
  constructor(private readonly fd: number) {}

  /**
   * The line at `offset` through its '\n' (or the file's end), in a buffer the next read reuses;
   * undefined past MAX_LINE_READ. Reads grow with the line: a short line costs one small read.
   */
  read(offset: number): Buffer | undefined {
    let size = 0;
    for (;;) {
      if (size === lineBuffer.length) {
        if (size >= MAX_LINE_READ) return undefined;
        const grown = Buffer.allocUnsafe(Math.min(MAX_LINE_READ, size * 2));
        lineBuffer.copy(grown, 0, 0, size);
        lineBuffer = grown;
      }
      const want = Math.min(lineBuffer.length - size, Math.max(16 * 1024, size));
      const got = readSync(this.fd, lineBuffer, size, want, offset + size);
      const newline = lineBuffer.subarray(0, size + got).indexOf(10, size);
      if (newline >= 0) return lineBuffer.subarray(0, newline + 1);
      size += got;
      if (got === 0) return lineBuffer.subarray(0, size);
    }
  }
}

/** A line's row (and, when its `--json` record would have been clipped, its entry for the warnings). */
function showLine(
  file: string,
  path: Buffer,
  line: Buffer,
  facts: Facts,
  hit: LineHits,
  recordClipped: boolean,
): { match: SearchMatch; clipped?: { file: string; line: number; bytes: number } } | undefined {
  const start = hit.starts[0]!;
  if (!recordClipped) return { match: { file, line: hit.line, ...shownLine(line, facts, start) } };
  // As JsonClipper keeps a record over MAX_RECORD_BYTES: string by string, each cut after
  // stringBytes, all of them within totalStringBytes (from the type's "match" on); and as
  // JsonMatchCollector.clippedMatch shows what was kept.
  if (!facts.utf8 || !isUtf8(hit.texts[0]!)) return undefined;
  const limits = DEFAULT_CLIP_LIMITS;
  const pathKept = escapedSize(path);
  if (pathKept > limits.stringBytes) return undefined;
  let totalKept = 'match'.length + pathKept;
  const headEnd = cutAt(line, Math.min(limits.stringBytes, limits.totalStringBytes - totalKept));
  const head = line.subarray(0, headEnd);
  totalKept += escapedSize(head);
  let longest = Math.max('match'.length, path.length, line.length - (line[line.length - 1] === 10 ? 1 : 0));
  for (const text of hit.texts) longest = Math.max(longest, text.length);
  const marker = `…[line of ${longest} bytes, clipped]`;
  const clipped = { file, line: hit.line, bytes: longest };
  if (start < head.length) {
    const column = charColumn(head, start);
    return {
      match: {
        file,
        line: hit.line,
        column,
        text: clip(stripNewline(head.toString('utf8')), column) + marker,
      },
      clipped,
    };
  }
  const column = codePoints(head.toString('utf8')) + (start - head.length) + 1;
  const first = hit.texts[0]!;
  const kept = first.subarray(
    0,
    cutAt(first, Math.min(limits.stringBytes, limits.totalStringBytes - totalKept)),
  );
  return {
    match: { file, line: hit.line, column, text: `…${clip(kept.toString('utf8'), 1)}${marker}` },
    clipped,
  };
}

/**
 * The column and text JsonMatchCollector.match gives a line whose first match is at byte `start`
 * (matchColumn, then clip): characters are counted on the bytes, and only the window shown is decoded.
 */
function shownLine(line: Buffer, facts: Facts, start: number): { column: number; text: string } {
  let end = line.length;
  if (line[end - 1] === 10) end -= line[end - 2] === 13 ? 2 : 1; // as stripNewline
  if (facts.ascii) {
    // ASCII: a byte is a character.
    const column = start + 1;
    if (end <= MAX_LINE_CHARS) return { column, text: line.toString('latin1', 0, end) };
    return { column, text: clipWindow(end, column, (from, to) => line.toString('latin1', from, to)) };
  }
  // UTF-8 without surrogate pairs in UTF-16 (no four-byte characters), the match at a character's start:
  // a character is a byte that does not continue one, and one UTF-16 unit.
  if (!facts.utf8 || facts.fourByte > 0 || (line[start]! & 0xc0) === 0x80) {
    const column = charColumn(line, start);
    return { column, text: clip(stripNewline(line.toString('utf8')), column) };
  }
  let before = 0;
  for (let i = 0; i < start; i++) if ((line[i]! & 0xc0) === 0x80) before++;
  const column = start - before + 1;
  const chars = end - facts.continuation;
  if (chars <= MAX_LINE_CHARS) return { column, text: line.toString('utf8', 0, end) };
  /** The byte where character `index` starts, walking from the match's start (character column - 1). */
  const byteOf = (index: number): number => {
    let at = start;
    for (let char = column - 1; char < index && at < end; char++) {
      at++;
      while (at < end && (line[at]! & 0xc0) === 0x80) at++;
    }
    for (let char = column - 1; char > index; char--) {
      at--;
      while (at > 0 && (line[at]! & 0xc0) === 0x80) at--;
    }
    return at;
  };
  return {
    column,
    text: clipWindow(chars, column, (from, to) => line.toString('utf8', byteOf(from), byteOf(to))),
  };
}

/** What the record's size and a line's characters need of some bytes, found in one pass. */
interface Facts {
  /** Only bytes below 0x80. */
  ascii: boolean;
  utf8: boolean;
  /** Bytes as a JSON string's content (serde_json's escapes, as ripgrep writes them). */
  escaped: number;
  /** UTF-8 continuation bytes, and bytes that start a four-byte character. */
  continuation: number;
  fourByte: number;
}

function factsOf(bytes: Buffer): Facts {
  const escaped = escapedSize(bytes);
  if (isAscii(bytes)) return { ascii: true, utf8: true, escaped, continuation: 0, fourByte: 0 };
  let continuation = 0;
  let fourByte = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < 0x80) continue;
    if ((byte & 0xc0) === 0x80) continuation++;
    else if (byte >= 0xf0) fourByte++;
  }
  return { ascii: false, utf8: isUtf8(bytes), escaped, continuation, fourByte };
}

/** Each byte's size in a JSON string (serde_json's escapes, as ripgrep writes them); by table, for speed. */
const ESCAPED_SIZE = new Uint8Array(256).map((_, byte) => escapedByteSize(byte));

/**
 * Where JsonClipper cuts a string of these bytes with `budget` bytes of its JSON to keep: before the
 * first character (or escape) that starts once the budget is used up.
 */
function cutAt(bytes: Buffer, budget: number): number {
  let kept = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (kept >= budget && (byte & 0xc0) !== 0x80) return i;
    kept += ESCAPED_SIZE[byte]!;
  }
  return bytes.length;
}

const RECORD_START = '{"type":"match","data":{"path":'.length;
const LINES_KEY = ',"lines":'.length;
const LINE_NUMBER_KEY = ',"line_number":'.length;
const OFFSET_KEY = ',"absolute_offset":'.length;
const SUBMATCHES_KEY = ',"submatches":['.length;
const RECORD_END = ']}}'.length;
const MATCH_START = '{"match":'.length;
const START_KEY = ',"start":'.length;
const END_KEY = ',"end":'.length;
const MATCH_END = '}'.length;

/**
 * The bytes of ripgrep's `--json` record of this line (without its line break): each string as
 * `{"text":…}` when it is UTF-8, else `{"bytes":base64}`. A record over MAX_RECORD_BYTES is shown
 * clipped (run.ts clips one that passes it before its last piece arrives from the pipe, so one up to a
 * pipe read over it was clipped or not by chance; here every one over it is).
 */
function recordSize(path: Buffer, pathFacts: Facts, line: Buffer, lineFacts: Facts, hit: LineHits): number {
  let size =
    RECORD_START +
    fieldSize(path, pathFacts) +
    LINES_KEY +
    fieldSize(line, lineFacts) +
    LINE_NUMBER_KEY +
    digits(hit.line) +
    OFFSET_KEY +
    digits(hit.offset) +
    SUBMATCHES_KEY +
    RECORD_END +
    hit.texts.length -
    1;
  for (let i = 0; i < hit.texts.length; i++) {
    const start = hit.starts[i]!;
    const text = hit.texts[i]!;
    size +=
      MATCH_START +
      fieldSize(text, factsOf(text)) +
      START_KEY +
      digits(start) +
      END_KEY +
      digits(start + text.length) +
      MATCH_END;
  }
  return size;
}

/** Bytes of the record's UTF-8 beyond its UTF-16 length (run.ts counts a short record as a string). */
function utf8Extra(pathFacts: Facts, lineFacts: Facts, hit: LineHits): number {
  let extra = pathFacts.utf8 ? stringExtra(pathFacts) : 0;
  if (lineFacts.utf8) extra += stringExtra(lineFacts);
  for (const text of hit.texts) {
    const facts = factsOf(text);
    if (facts.utf8) extra += stringExtra(facts);
  }
  return extra;
}

/** UTF-8 bytes beyond the UTF-16 length: continuation bytes, less one per four-byte character. */
function stringExtra(facts: Facts): number {
  return facts.continuation - facts.fourByte;
}

/**
 * The file's other `--json` records as run.ts counts them: its `begin` and `end` (whose timings vary
 * from run to run by a few characters: typical ones are counted).
 */
function otherRecords(path: Buffer, pathFacts: Facts, matches: number): number {
  const named = fieldSize(path, pathFacts) - (pathFacts.utf8 ? stringExtra(pathFacts) : 0);
  const begin = '{"type":"begin","data":{"path":}}'.length + named;
  const end =
    '{"type":"end","data":{"path":,"binary_offset":null,"stats":{"elapsed":{"secs":0,"nanos":123456,"human":"0.000123s"},"searches":1,"searches_with_match":1,"bytes_searched":12345,"bytes_printed":1234,"matched_lines":,"matches":}}}'
      .length +
    named +
    2 * digits(matches);
  return begin + end;
}

/** `{"text":"…"}` or `{"bytes":"…"}`, as ripgrep writes the string of these bytes. */
function fieldSize(bytes: Buffer, facts: Facts): number {
  if (facts.utf8) return '{"text":""}'.length + facts.escaped;
  return '{"bytes":""}'.length + 4 * Math.ceil(bytes.length / 3);
}

function digits(value: number): number {
  let count = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) count++;
  return count;
}

/** Bytes of these bytes as a JSON string's content. */
function escapedSize(bytes: Buffer): number {
  let size = 0;
  for (let i = 0; i < bytes.length; i++) size += ESCAPED_SIZE[bytes[i]!]!;
  return size;
}

function escapedByteSize(byte: number): number {
  if (byte >= 0x20) return byte === 0x22 || byte === 0x5c ? 2 : 1;
  // \b \t \n \f \r have two-character escapes; other control characters are written \u00XX.
  return byte === 8 || byte === 9 || byte === 10 || byte === 12 || byte === 13 ? 2 : 6;
}
