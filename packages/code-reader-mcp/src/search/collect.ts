import type { ClippedInfo } from '../rg/run.js';
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
  return [...lineBytes.subarray(0, byteOffset).toString('utf8')].length + 1;
}

/** Cuts a long line to MAX_LINE_CHARS characters around the match, never inside a character. */
function clip(text: string, column: number): string {
  if (text.length <= MAX_LINE_CHARS) return text; // UTF-16 length ≥ characters: nothing to cut
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
  readonly matches: SearchMatch[] = [];
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

  /** Feeds one line; returns false once more than maxMatches matches were seen (stop ripgrep). */
  push(line: string, clipped?: ClippedInfo): boolean {
    if (!line.startsWith('{')) return true;
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
      this.pendingBefore = [];
      this.last = undefined;
      return true;
    }
    if (this.skipping) return true;
    if (event.type === 'context') {
      this.context(event, clipped);
      return true;
    }
    if (event.type !== 'match') return true;
    if (this.matches.length >= this.maxMatches) return false;
    this.match(event, clipped);
    return true;
  }

  private match(event: RgLineEvent, clipped: ClippedInfo | undefined): void {
    const lineNumber = event.data.line_number ?? 0;
    const first = event.data.submatches?.[0];
    const shown = clipped ? this.clippedMatch(event, clipped) : undefined;
    const raw = shown?.text ?? stripNewline(textOf(event.data.lines));
    const column = shown?.column ?? (first ? charColumn(bytesOf(event.data.lines), first.start) : 1);
    const submatches = Math.max(1, (event.data.submatches?.length ?? 1) + (clipped?.droppedItems ?? 0));
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
