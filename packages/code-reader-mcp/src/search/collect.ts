import { isAscii } from 'node:buffer';
import type { ClippedInfo } from '../rg/run.js';
import { comparePaths } from '../util/path-order.js';
import type { FileCount, SearchMatch } from './types.js';

/** Long lines (minified code) are cut around the first match so one line cannot flood an answer. */
export const MAX_LINE_CHARS = 400;

interface RgText {
  text?: string;
  bytes?: string;
}

interface RgLineEvent {
  type: 'begin' | 'match' | 'context' | 'end' | 'summary';
  data: {
    path?: RgText;
    lines?: RgText;
    line_number?: number | null;
    submatches?: { match?: RgText; start: number; end: number }[];
  };
}

function textOf(value: RgText | undefined): string {
  if (!value) return '';
  if (value.text !== undefined) return value.text;
  return value.bytes === undefined ? '' : Buffer.from(value.bytes, 'base64').toString('utf8');
}

/** The line as ripgrep read it: its byte offsets point into these bytes (not UTF-8 for Latin-1 files). */
function bytesOf(value: RgText | undefined): Buffer {
  if (value?.bytes !== undefined) return Buffer.from(value.bytes, 'base64');
  return Buffer.from(value?.text ?? '', 'utf8');
}

export function stripNewline(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * ripgrep reports byte offsets into the line's bytes; answers give 1-based character columns (Unicode
 * code points, as extract_code_section counts them), of the text as shown (invalid UTF-8 → U+FFFD).
 */
export function charColumn(lineBytes: Buffer, byteOffset: number): number {
  return codePoints(lineBytes.subarray(0, byteOffset).toString('utf8')) + 1;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Characters (code points) in `text`, without building an array of them (lines may be 64 KiB). */
export function codePoints(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The 1-based character column of a match at `byteOffset` of the line as ripgrep sent it. */
function matchColumn(value: RgText | undefined, byteOffset: number): number {
  const text = value?.bytes === undefined ? value?.text : undefined;
  // ASCII text (nearly every line of code): bytes are characters, so the offset is the column.
  if (text !== undefined && Buffer.byteLength(text) === text.length) return byteOffset + 1;
  return charColumn(bytesOf(value), byteOffset);
}

/** Cuts a long line to MAX_LINE_CHARS characters around the match, never inside a character. */
export function clip(text: string, column: number): string {
  if (text.length <= MAX_LINE_CHARS) return text; // UTF-16 length ≥ characters: nothing to cut
  // One UTF-16 unit per character: cut by index, without an array of every character of the line.
  if (!SURROGATE.test(text)) return clipWindow(text.length, column, (from, to) => text.slice(from, to));
  const chars = [...text];
  if (chars.length <= MAX_LINE_CHARS) return text;
  const start = Math.max(0, Math.min(column - 1 - 80, chars.length - MAX_LINE_CHARS));
  const head = start > 0 ? '…' : '';
  const rest = chars.length - start - MAX_LINE_CHARS;
  const tail = rest > 0 ? `…[+${rest} chars]` : '';
  return head + chars.slice(start, start + MAX_LINE_CHARS).join('') + tail;
}

/**
 * `clip` of a line of `length` characters, one UTF-16 unit each, longer than MAX_LINE_CHARS: the
 * window around the match at `column`, read with `slice`.
 */
export function clipWindow(
  length: number,
  column: number,
  slice: (from: number, to: number) => string,
): string {
  const start = Math.max(0, Math.min(column - 1 - 80, length - MAX_LINE_CHARS));
  const rest = length - start - MAX_LINE_CHARS;
  return (
    (start > 0 ? '…' : '') + slice(start, start + MAX_LINE_CHARS) + (rest > 0 ? `…[+${rest} chars]` : '')
  );
}

const LONG_MATCH_HEAD = Buffer.from('{"type":"match","data":{"path":{');
const LINES_TEXT = Buffer.from('"lines":{"text":"');
const AFTER_LINES = Buffer.from('"},"line_number":');
const BACKSLASH = 0x5c;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_U = 0x75;

/** A long match line as a JSON string's bytes (escapes and all), shown without decoding all of it. */
interface JsonLine {
  bytes: Buffer;
  /** Where the line's text ends, before its final line break. */
  end: number;
}

/**
 * A long `match` record split from its bytes: the record with an empty line text (small, parsed as
 * usual) and the line's JSON bytes, of which only the window shown is decoded. Undefined for any other
 * record (decoded and parsed whole): not a match, a line given as base64 (not UTF-8), or a line break
 * inside (multiline).
 */
function splitLongMatch(record: Buffer): { small: string; line: JsonLine } | undefined {
  if (record.compare(LONG_MATCH_HEAD, 0, LONG_MATCH_HEAD.length, 0, LONG_MATCH_HEAD.length) !== 0)
    return undefined;
  // Inside a JSON string every quote is escaped: the first bare `"lines":{"text":"` is the field, and
  // the first `"},"line_number":` after it ends the line's text.
  const at = record.indexOf(LINES_TEXT);
  if (at < 0) return undefined;
  const start = at + LINES_TEXT.length;
  const stop = record.indexOf(AFTER_LINES, start);
  if (stop < 0) return undefined;
  const bytes = record.subarray(start, stop);
  // Escapes (`\"`, `\\`, `\t`, `\u0001`…) each stand for one ASCII character of the line. Only the
  // last two (a final line break) and the "\n"s (a line break inside) matter here.
  let breaks = 0;
  let last = { kind: -1, at: -1 };
  let before = last;
  for (let next = bytes.indexOf(BACKSLASH); next >= 0;) {
    const kind = bytes[next + 1] ?? 0;
    before = last;
    last = { kind, at: next };
    if (kind === LOWER_N) breaks++;
    next = bytes.indexOf(BACKSLASH, next + (kind === LOWER_U ? 6 : 2));
  }
  // The final line break is not shown (as stripNewline): "\n", or "\r\n".
  let end = bytes.length;
  if (last.kind === LOWER_N && last.at === end - 2) {
    end -= 2;
    breaks--;
    if (before.kind === LOWER_R && before.at === end - 2) end -= 2;
  }
  if (breaks > 0) return undefined; // a line break inside: multiline
  return { small: record.toString('utf8', 0, start) + record.toString('utf8', stop), line: { bytes, end } };
}

/**
 * A long line as `match` shows it (see matchColumn and clip), from its JSON bytes: characters (code
 * points) are counted on the bytes, and only the window shown is decoded.
 */
function longMatch(
  { bytes, end }: JsonLine,
  firstStart: number | undefined,
): { text: string; column: number } {
  const decode = (from: number, to: number) => JSON.parse(`"${bytes.toString('utf8', from, to)}"`) as string;
  if (isAscii(bytes.subarray(0, end))) return asciiLongMatch(bytes, end, firstStart, decode);
  // Characters of the line, and before the match (its offset is in the line's own bytes, where an
  // escape is one byte).
  let chars = 0;
  let lineBytes = 0;
  let column = firstStart === undefined ? 1 : 0;
  for (let i = 0; i < end;) {
    if (lineBytes === firstStart) column = chars + 1;
    const byte = bytes[i]!;
    if (byte === BACKSLASH) {
      i += bytes[i + 1] === LOWER_U ? 6 : 2;
      chars++;
    } else {
      if ((byte & 0xc0) !== 0x80) chars++;
      i++;
    }
    lineBytes++;
  }
  if (column === 0) column = chars + 1;
  if (chars <= MAX_LINE_CHARS) return { text: decode(0, end), column };
  const text = clipWindow(chars, column, (from, to) => {
    // The bytes of characters [from, to).
    let first = end;
    let last = end;
    let index = 0;
    for (let i = 0; i < end;) {
      const byte = bytes[i]!;
      if ((byte & 0xc0) === 0x80) {
        i++;
        continue;
      }
      if (index === from) first = i;
      if (index === to) {
        last = i;
        break;
      }
      index++;
      i += byte === BACKSLASH ? (bytes[i + 1] === LOWER_U ? 6 : 2) : 1;
    }
    return decode(first, last);
  });
  return { text, column };
}

/**
 * longMatch of a line of ASCII only (nearly every minified line): a character is a byte of the line,
 * and of its JSON too except escapes (`\"` or `\u0001`, one character each), so characters are found
 * by jumping from backslash to backslash instead of looking at every byte, twice.
 */
function asciiLongMatch(
  bytes: Buffer,
  end: number,
  firstStart: number | undefined,
  decode: (from: number, to: number) => string,
): { text: string; column: number } {
  // Where each escape starts in the JSON, and how many bytes it takes there.
  const escapes: number[] = [];
  const sizes: number[] = [];
  let extra = 0;
  for (let at = bytes.indexOf(BACKSLASH); at >= 0 && at < end;) {
    const size = bytes[at + 1] === LOWER_U ? 6 : 2;
    escapes.push(at);
    sizes.push(size);
    extra += size - 1;
    at = bytes.indexOf(BACKSLASH, at + size);
  }
  const chars = end - extra;
  const column = firstStart === undefined ? 1 : Math.min(firstStart, chars) + 1;
  if (chars <= MAX_LINE_CHARS) return { text: decode(0, end), column };
  /** The JSON offset of character `index` (the end past the last one). */
  const offsetOf = (index: number): number => {
    if (index >= chars) return end;
    let skipped = 0;
    for (let i = 0; i < escapes.length && escapes[i]! - skipped < index; i++) skipped += sizes[i]! - 1;
    return index + skipped;
  };
  return { text: clipWindow(chars, column, (from, to) => decode(offsetOf(from), offsetOf(to))), column };
}

/** One `rg --json` line; undefined for a line that is not whole JSON (e.g. cut short by a kill). */
function parseEvent(line: string): RgLineEvent | undefined {
  try {
    return JSON.parse(line) as RgLineEvent;
  } catch {
    return undefined;
  }
}

/**
 * Turns `rg --json` lines into matches with their context lines. ripgrep prints each line once, even
 * where the context of two matches overlaps, so a context line goes to the `after` of the previous
 * match when it directly follows it (within context_after lines), else to the `before` of the next:
 * overlapping context is merged and never repeated.
 */
export class JsonMatchCollector {
  /** The matches kept, in the order found; past maxMatches, cut now and then to the first in path order. */
  readonly matches: SearchMatch[] = [];
  /** Matching lines seen, kept or not. */
  matchedLines = 0;
  /**
   * Once the kept matches were cut: the file of the last one kept. Matches in files after it (path
   * order) can never be among the first maxMatches, so they are counted without being parsed.
   */
  private cutoff: string | undefined;
  private beyondCutoff = false;
  private pendingBefore: string[] = [];
  private pendingBeforeStart = 0;
  private last: { match: SearchMatch; endLine: number } | undefined;
  private currentFile = '';
  /** Files already seen: overlapping roots make ripgrep search a file twice; its second block is skipped. */
  private readonly seenFiles = new Set<string>();
  private skipping = false;
  /** Matches (submatches) counted per file, for summaries. */
  readonly counts = new Map<string, number>();
  totalSubmatches = 0;
  /** Files ripgrep searched, from its closing `summary` events (one per batch). */
  searchedFiles = 0;

  constructor(
    private readonly contextAfter: number,
    /** A safety cap on the matches kept (memory), not max_count (which ripgrep applies per file). */
    private readonly maxMatches: number,
  ) {}

  /** Lines too long to keep whole (clipped while streaming in), reported once each in warnings. */
  readonly clippedLines: { file: string; line: number; bytes: number }[] = [];

  /** More lines matched than maxMatches: only the first maxMatches in path order are kept. */
  get overflowed(): boolean {
    return this.matchedLines > this.maxMatches;
  }

  /**
   * The first maxMatches matches in path order (then line order). The whole output is read (the
   * totals count every match), but only matches that can still be among the first are parsed and kept:
   * the same result on every run of a parallel walk, from one ripgrep run.
   */
  matchesInOrder(): SearchMatch[] {
    this.cut();
    return this.matches;
  }

  private cut(): void {
    this.matches.sort((a, b) => comparePaths(a.file, b.file) || a.line - b.line);
    if (this.matches.length <= this.maxMatches) return;
    this.matches.length = this.maxMatches;
    this.cutoff = this.matches[this.maxMatches - 1]!.file;
    this.beyondCutoff = comparePaths(this.currentFile, this.cutoff) > 0;
  }

  /** A long match line being read from its bytes (see pushLong). */
  private longLine: JsonLine | undefined;

  /**
   * Feeds one long record as bytes: a match whose line is plain ASCII is read without decoding the
   * line (the same answer as push, at a fraction of the cost); undefined for any other record, to be
   * decoded and fed to push.
   */
  pushLong(record: Buffer): boolean | undefined {
    const split = splitLongMatch(record);
    if (!split) return undefined;
    this.longLine = split.line;
    try {
      return this.push(split.small);
    } finally {
      this.longLine = undefined;
    }
  }

  /** Feeds one line (always returns true: every match is counted; see matchesInOrder). */
  push(line: string, clipped?: ClippedInfo): boolean {
    if (!line.startsWith('{')) return true;
    if (this.beyondCutoff && !this.skipping) {
      if (line.startsWith('{"type":"match"')) this.countOnly(line, clipped);
      if (line.startsWith('{"type":"match"') || line.startsWith('{"type":"context"')) return true;
    }
    // A file's `end` and the final `summary` (a third of the lines, with bulky stats) carry nothing
    // the answer uses; parsing them was most of the garbage of a search with many files.
    if (line.startsWith('{"type":"end"')) return true;
    // The summary puts "data" first: only its file count is read, without parsing the stats.
    if (line.endsWith('"type":"summary"}')) {
      this.searchedFiles += Number(/"searches":(\d+)/.exec(line)?.[1] ?? 0);
      return true;
    }
    const event = parseEvent(line);
    if (!event) return true;
    if (event.type === 'begin') {
      this.currentFile = textOf(event.data.path);
      this.skipping = this.seenFiles.has(this.currentFile);
      this.seenFiles.add(this.currentFile);
      this.beyondCutoff = this.cutoff !== undefined && comparePaths(this.currentFile, this.cutoff) > 0;
      this.pendingBefore = [];
      this.last = undefined;
      return true;
    }
    if (this.skipping || this.beyondCutoff) return true;
    if (event.type === 'context') {
      this.context(event, clipped);
      return true;
    }
    if (event.type !== 'match') return true;
    this.match(event, clipped);
    // Room for as many again before sorting and cutting: each cut costs one sort of the kept matches.
    if (this.matches.length >= 2 * this.maxMatches) this.cut();
    return true;
  }

  /** A match line of a file past the cutoff: its submatches are counted from the raw JSON. */
  private countOnly(line: string, clipped: ClippedInfo | undefined): void {
    // Inside JSON strings a quote is escaped, so `"start":` is the key of exactly one submatch.
    let items = 0;
    for (let at = line.indexOf('"start":'); at >= 0; at = line.indexOf('"start":', at + 8)) items++;
    const submatches = Math.max(1, items + (clipped?.droppedItems ?? 0));
    this.matchedLines++;
    this.totalSubmatches += submatches;
    this.counts.set(this.currentFile, (this.counts.get(this.currentFile) ?? 0) + submatches);
  }

  private match(event: RgLineEvent, clipped: ClippedInfo | undefined): void {
    const lineNumber = event.data.line_number ?? 0;
    const first = event.data.submatches?.[0];
    const shown = clipped
      ? this.clippedMatch(event, clipped)
      : this.longLine
        ? longMatch(this.longLine, first?.start)
        : undefined;
    const raw = shown?.text ?? stripNewline(textOf(event.data.lines));
    const column = shown?.column ?? (first ? matchColumn(event.data.lines, first.start) : 1);
    const submatches = Math.max(1, (event.data.submatches?.length ?? 1) + (clipped?.droppedItems ?? 0));
    this.matchedLines++;
    this.totalSubmatches += submatches;
    this.counts.set(this.currentFile, (this.counts.get(this.currentFile) ?? 0) + submatches);
    const text = shown ? raw : clip(raw, column);
    const match: SearchMatch = { file: this.currentFile, line: lineNumber, column, text };
    // Only keep before-lines that end right above this match (a gap means they belonged elsewhere).
    if (this.pendingBefore.length > 0 && this.pendingBeforeStart + this.pendingBefore.length === lineNumber) {
      match.before = this.pendingBefore;
    }
    this.pendingBefore = [];
    this.matches.push(match);
    const spanned = raw.split('\n').length; // multiline matches span several lines
    this.last = { match, endLine: lineNumber + spanned - 1 };
  }

  /**
   * A match line that was clipped while streaming in (only its first 64 KiB are here). When the match
   * starts in the kept part, it is shown as usual; beyond it, the matched text stands in for the line,
   * and the column counts the characters kept plus one per byte after them (exact for ASCII, which
   * such lines, minified code and data, nearly always are).
   */
  private clippedMatch(event: RgLineEvent, clipped: ClippedInfo): { text: string; column: number } {
    const lineNumber = event.data.line_number ?? 0;
    this.clippedLines.push({ file: this.currentFile, line: lineNumber, bytes: clipped.longestString });
    const head = bytesOf(event.data.lines);
    const first = event.data.submatches?.[0];
    const marker = `…[line of ${clipped.longestString} bytes, clipped]`;
    if (!first || first.start < head.length) {
      const column = first ? charColumn(head, first.start) : 1;
      return { text: clip(stripNewline(head.toString('utf8')), column) + marker, column };
    }
    const keptChars = codePoints(head.toString('utf8'));
    const column = keptChars + (first.start - head.length) + 1;
    const matched = clip(textOf(first.match), 1);
    return { text: `…${matched}${marker}`, column };
  }

  private context(event: RgLineEvent, clipped?: ClippedInfo): void {
    const body = clip(stripNewline(textOf(event.data.lines)), 1);
    const text = clipped ? `${body}…[line of ${clipped.longestString} bytes, clipped]` : body;
    const lineNumber = event.data.line_number ?? 0;
    const last = this.last;
    if (last) {
      const shownAfter = last.match.after?.length ?? 0;
      const next = last.endLine + shownAfter + 1;
      if (lineNumber === next && lineNumber - last.endLine <= this.contextAfter) {
        (last.match.after ??= []).push(text);
        return;
      }
    }
    if (
      this.pendingBefore.length === 0 ||
      this.pendingBeforeStart + this.pendingBefore.length !== lineNumber
    ) {
      this.pendingBefore = [];
      this.pendingBeforeStart = lineNumber;
    }
    this.pendingBefore.push(text);
  }

  fileCounts(): FileCount[] {
    return [...this.counts].map(([file, count]) => ({ file, count }));
  }
}

/**
 * Reads `rg --count-matches --null` output split on NUL: "<path>\0<count>\n<path>\0<count>\n…", so the
 * records are a path, then "<count>\n<next path>" …, then "<count>\n". File names may hold newlines.
 * A file named twice (overlapping roots) is counted once. With `--stats`, the run's statistics follow
 * its last count after an empty line, with no NUL after them: `endRun` reads the files searched there.
 */
export class CountCollector {
  readonly counts: FileCount[] = [];
  /** Files counted so far, when a file may be named twice. */
  private readonly seen: Set<string> | undefined;
  private file: string | undefined;
  /** Files ripgrep searched, from the `--stats` of each run; undefined when a run did not say. */
  searchedFiles: number | undefined = 0;
  /** Lines with a match, all files together, from the same statistics (undefined likewise). */
  matchedLines: number | undefined = 0;

  /** `namedOnce`: ripgrep names each file at most once (one root), so no set of every path is kept. */
  constructor(namedOnce = false) {
    this.seen = namedOnce ? undefined : new Set<string>();
  }

  push(record: string): void {
    if (this.file === undefined) {
      this.file = record;
      return;
    }
    const newline = record.indexOf('\n');
    const count = Number(newline < 0 ? record : record.slice(0, newline));
    if (Number.isFinite(count) && !this.seen?.has(this.file)) {
      this.seen?.add(this.file);
      this.counts.push({ file: this.file, count });
    }
    this.file = newline < 0 || newline === record.length - 1 ? undefined : record.slice(newline + 1);
  }

  /**
   * The end of one ripgrep run: what is left without a NUL after it is not a file name but the run's
   * statistics (or, without a match, the whole output was them). No statistics: the run was cut short.
   */
  endRun(): void {
    const stats = this.file;
    this.file = undefined;
    const searched = stats === undefined ? undefined : /^(\d+) files searched$/m.exec(stats)?.[1];
    if (searched === undefined || this.searchedFiles === undefined) this.searchedFiles = undefined;
    else this.searchedFiles += Number(searched);
    const lines = stats === undefined ? undefined : /^(\d+) matched lines$/m.exec(stats)?.[1];
    if (lines === undefined || this.matchedLines === undefined) this.matchedLines = undefined;
    else this.matchedLines += Number(lines);
  }
}

/** Parses one `rg --count-matches --null` line: "<path>\0<count>". */
export function parseCountLine(line: string): FileCount | undefined {
  const nul = line.lastIndexOf('\0');
  if (nul < 0) return undefined;
  const count = Number(line.slice(nul + 1));
  return Number.isFinite(count) ? { file: line.slice(0, nul), count } : undefined;
}
