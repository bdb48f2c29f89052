import { utf8ByteLength } from '@mcp-workbench/core';
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

/** Flattens the extraction into parts of at most `maxBytes` each (cut at line boundaries). */
export function toParts(result: ExtractResult, maxBytes: number): SectionPart[] {
  const parts: SectionPart[] = [];
  for (const file of result.files) {
    for (const section of file.sections) {
      const base = {
        file_path: file.file_path,
        ...(section.label ? { label: section.label } : {}),
        ...(section.truncated ? { truncated: true } : {}),
      };
      if (utf8ByteLength(section.content) <= maxBytes) {
        parts.push({ ...base, start_line: section.start_line, end_line: section.end_line, content: section.content });
        continue;
      }
      const chunks: { start: number; lines: string[] }[] = [];
      let current: string[] = [];
      let bytes = 0;
      let start = section.start_line;
      let line = section.start_line;
      for (const text of splitLinesKeepEnds(section.content)) {
        const size = utf8ByteLength(text);
        if (current.length > 0 && bytes + size > maxBytes) {
          chunks.push({ start, lines: current });
          current = [];
          bytes = 0;
          start = line;
        }
        current.push(text);
        bytes += size;
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
