import type { ExtractResult, SectionError } from './extract.js';
import { splitLinesKeepEnds } from './read-lines.js';

/** One piece of an answer: a section, or a slice of a section too big for one page. */
export interface SectionPart {
  /** Index of the file (request) in the extraction's `files`. */
  file: number;
  label?: string;
  start_line: number;
  end_line: number;
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
 * parts of at most `maxTokens` tokens each (at line boundaries, a single longer line stays whole), so
 * any row fits a page.
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
        rows.push({
          ...base,
          start_line: section.start_line,
          end_line: section.end_line,
          content: section.content,
        });
        continue;
      }
      const chunks: { start: number; lines: string[] }[] = [];
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
          content: chunk.lines.join(''),
          part: `${index + 1}/${chunks.length}`,
        });
      });
    }
    for (const failure of file.errors) rows.push({ file: fileIndex, failure });
  }
  return rows;
}
