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

function stripNewline(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * ripgrep reports byte offsets into the line's bytes; answers give 1-based character columns (Unicode
 * code points, as extract_code_section counts them), of the text as shown (invalid UTF-8 → U+FFFD).
 */
function charColumn(lineBytes: Buffer, byteOffset: number): number {
  return codePoints(lineBytes.subarray(0, byteOffset).toString('utf8')) + 1;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Characters (code points) in `text`, without building an array of them (lines may be 64 KiB). */
function codePoints(text: string): number {
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
function clip(text: string, column: number): string {
  if (text.length <= MAX_LINE_CHARS) return text; // UTF-16 length ≥ characters: nothing to cut
  if (!SURROGATE.test(text)) {
    // One UTF-16 unit per character: cut by index, without an array of every character of the line.
    const start = Math.max(0, Math.min(column - 1 - 80, text.length - MAX_LINE_CHARS));
    const rest = text.length - start - MAX_LINE_CHARS;
    return (
      (start > 0 ? '…' : '') +
      text.slice(start, start + MAX_LINE_CHARS) +
      (rest > 0 ? `…[+${rest} chars]` : '')
    );
  }
  const chars = [...text];
  if (chars.length <= MAX_LINE_CHARS) return text;
  const start = Math.max(0, Math.min(column - 1 - 80, chars.length - MAX_LINE_CHARS));
  const head = start > 0 ? '…' : '';
  const rest = chars.length - start - MAX_LINE_CHARS;
  const tail = rest > 0 ? `…[+${rest} chars]` : '';
  return head + chars.slice(start, start + MAX_LINE_CHARS).join('') + tail;
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
    const shown = clipped ? this.clippedMatch(event, clipped) : undefined;
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
    const keptChars = [...head.toString('utf8')].length;
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
 * A file named twice (overlapping roots) is counted once.
 */
export class CountCollector {
  readonly counts: FileCount[] = [];
  private readonly seen = new Set<string>();
  private file: string | undefined;

  push(record: string): void {
    if (this.file === undefined) {
      this.file = record;
      return;
    }
    const newline = record.indexOf('\n');
    const count = Number(newline < 0 ? record : record.slice(0, newline));
    if (Number.isFinite(count) && !this.seen.has(this.file)) {
      this.seen.add(this.file);
      this.counts.push({ file: this.file, count });
    }
    this.file = newline < 0 || newline === record.length - 1 ? undefined : record.slice(newline + 1);
  }
}

/** Parses one `rg --count-matches --null` line: "<path>\0<count>". */
export function parseCountLine(line: string): FileCount | undefined {
  const nul = line.lastIndexOf('\0');
  if (nul < 0) return undefined;
  const count = Number(line.slice(nul + 1));
  return Number.isFinite(count) ? { file: line.slice(0, nul), count } : undefined;
}
