import type { ExtractResult } from './extract.js';
import { splitLinesKeepEnds } from './read-lines.js';

/** One piece of an answer: a section, or a slice of a section too big for one page. */
export interface SectionPart {
  file_path: string;
  label?: string;
  start_line: number;
  end_line: number;
  content: string;
  truncated?: boolean;
  /** "2/3" when a section is split over several parts. */
  part?: string;
}

/**
 * Flattens the extraction into parts of at most `maxTokens` tokens each (cut at line boundaries, a
 * single longer line stays whole), so any part fits a page.
 */
export function toParts(
  result: ExtractResult,
  maxTokens: number,
  tokens: (text: string) => number,
): SectionPart[] {
  const parts: SectionPart[] = [];
  for (const file of result.files) {
    for (const section of file.sections) {
      const base = {
        file_path: file.file_path,
        ...(section.label ? { label: section.label } : {}),
        ...(section.truncated ? { truncated: true } : {}),
      };
      if (section.content.length <= maxTokens || tokens(section.content) <= maxTokens) {
        parts.push({
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
      for (const text of splitLinesKeepEnds(section.content)) {
        const size = tokens(text);
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
        parts.push({
          ...base,
          start_line: chunk.start,
          end_line: chunk.start + chunk.lines.length - 1,
          content: chunk.lines.join(''),
          part: `${index + 1}/${chunks.length}`,
        });
      });
    }
  }
  return parts;
}
