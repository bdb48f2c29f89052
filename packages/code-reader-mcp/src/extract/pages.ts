import type { ExtractResult, SectionError } from './extract.js';
import { splitLinesKeepEnds } from './read-lines.js';

/** One piece of an answer: a section, or a slice of a section too big for one page. */
export interface SectionPart {
  /** Index of the file (request) in the extraction's `files`. */
  file: number;
  label?: string;
  start_line: number;
  end_line: number;
  /** A piece of one long line: its first and last column (1-based, characters). */
  start_column?: number;
  end_column?: number;
  content: string;
  truncated?: boolean;
  /** "2/3" when a section is split over several parts. */
  part?: string;
}

/** A failed section (or file), paged like a section so many failures never overflow an answer. */
export interface ErrorRow {
  file: number;
  failure: SectionError;
}

export type AnswerRow = SectionPart | ErrorRow;

export function isErrorRow(row: AnswerRow): row is ErrorRow {
  return 'failure' in row;
}

/**
 * Flattens the extraction into rows, per file its sections then its errors. Sections are cut into
 * parts of at most `maxTokens` tokens each: at line boundaries, and a line longer than that (minified
 * code) into pieces by columns, so any row fits a page and every line can be read.
 */
export async function toRows(
  result: ExtractResult,
  maxTokens: number,
  countEach: (texts: string[]) => Promise<number[]>,
  /** Tokens each line costs beyond its text in the answer (format "json": its {line, text} object). */
  lineOverhead = 0,
): Promise<AnswerRow[]> {
  const rows: AnswerRow[] = [];
  for (const [fileIndex, file] of result.files.entries()) {
    for (const section of file.sections) {
      const base = {
        file: fileIndex,
        ...(section.label ? { label: section.label } : {}),
        ...(section.truncated ? { truncated: true } : {}),
      };
      const lineCount = lineOverhead > 0 ? splitLinesKeepEnds(section.content).length : 0;
      const extra = lineCount * lineOverhead;
      const fits =
        section.content.length + extra <= maxTokens ||
        ((await countEach([section.content]))[0] as number) + extra <= maxTokens;
      if (fits) {
        // A part of one line asked by columns says which columns it holds.
        const first = section.start_column ?? 1;
        const columns =
          section.columns && section.start_line === section.end_line
            ? {
                start_column: first,
                end_column: first + codePoints(section.content.replace(/\r?\n$/, '')) - 1,
              }
            : {};
        rows.push({
          ...base,
          start_line: section.start_line,
          end_line: section.end_line,
          ...columns,
          content: section.content,
        });
        continue;
      }
      const chunks: { start: number; lines: string[]; columns?: [number, number] }[] = [];
      let current: string[] = [];
      let used = 0;
      let start = section.start_line;
      let line = section.start_line;
      const lines = splitLinesKeepEnds(section.content);
      const sizes = await countEach(lines); // one round trip to the tokenizer's thread per section
      for (const [index, text] of lines.entries()) {
        const size = (sizes[index] as number) + lineOverhead;
        if (current.length > 0 && used + size > maxTokens) {
          chunks.push({ start, lines: current });
          current = [];
          used = 0;
          start = line;
        }
        if (size > maxTokens) {
          // One line over a part (a minified bundle): its pieces by columns, each a part of its own.
          const firstColumn = index === 0 ? (section.start_column ?? 1) : 1;
          for (const piece of await linePieces(text, firstColumn, maxTokens - lineOverhead, size, countEach))
            chunks.push({ start: line, lines: [piece.text], columns: [piece.start, piece.end] });
          start = ++line;
          continue;
        }
        current.push(text);
        used += size;
        line++;
      }
      if (current.length > 0) chunks.push({ start, lines: current });
      chunks.forEach((chunk, index) => {
        rows.push({
          ...base,
          start_line: chunk.start,
          end_line: chunk.start + chunk.lines.length - 1,
          ...(chunk.columns ? { start_column: chunk.columns[0], end_column: chunk.columns[1] } : {}),
          content: chunk.lines.join(''),
          part: `${index + 1}/${chunks.length}`,
        });
      });
    }
    for (const failure of file.errors) rows.push({ file: fileIndex, failure });
  }
  return rows;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Characters (code points) of a text. */
function codePoints(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A line cut into pieces of at most `maxTokens` tokens (and at most 16 characters a token: a run of
 * one character is few tokens but many bytes), never inside a surrogate pair, with each piece's first
 * and last column. The line's end stays with its last piece.
 */
async function linePieces(
  text: string,
  firstColumn: number,
  maxTokens: number,
  lineTokens: number,
  countEach: (texts: string[]) => Promise<number[]>,
): Promise<{ text: string; start: number; end: number }[]> {
  const budget = Math.max(1, maxTokens);
  const perToken = text.length / Math.max(1, lineTokens);
  let size = Math.max(1, Math.min(budget * 16, Math.floor(budget * perToken * 0.9)));
  for (;;) {
    const pieces: string[] = [];
    for (let at = 0; at < text.length;) {
      let end = Math.min(text.length, at + size);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++; // keep a pair together
      // A line end alone would be a piece of its own: it stays with the text before it.
      if (text.length - end <= 2 && /^\r?\n$/.test(text.slice(end))) end = text.length;
      pieces.push(text.slice(at, end));
      at = end;
    }
    const counts = await countEach(pieces);
    if (counts.every((count) => count <= budget) || size === 1) {
      let column = firstColumn;
      return pieces.map((piece) => {
        const chars = codePoints(piece.replace(/\r?\n$/, ''));
        const start = column;
        column += chars;
        return { text: piece, start, end: Math.max(start, column - 1) };
      });
    }
    size = Math.max(1, Math.floor(size * 0.75)); // a piece of denser text: smaller pieces
  }
}
