// The default text of extract_code_section: the source lines as they are (sed -n), each section after
// one short header line, then notes. The header's line range says how many lines follow, so a source
// line that looks like a header or a note is never misread.
import type { FileExtraction } from '../extract/extract.js';
import { isErrorRow, type AnswerRow } from '../extract/pages.js';
import { splitLinesKeepEnds } from '../extract/read-lines.js';
import type { SectionFormat } from '../extract/answer.js';
import { hasControlOrQuote, joinLines, note } from './text-rows.js';

/** A path in a header: bare unless it has a space, a quote or a control character. */
function headerPath(path: string): string {
  return path === '' || /\s/.test(path) || hasControlOrQuote(path) ? JSON.stringify(path) : path;
}

export interface ExtractTextMeta {
  errorCount: number;
  errorCodes: Record<string, number> | undefined;
  truncatedBy: readonly string[];
  nextCursor: string | undefined;
}

export function extractText(
  rows: readonly AnswerRow[],
  files: readonly FileExtraction[],
  format: SectionFormat,
  meta: ExtractTextMeta,
): string {
  const lines: string[] = [];
  const errors: string[] = [];
  for (const row of rows) {
    const file = files[row.file] as FileExtraction;
    const path = file.resolved_path ?? file.file_path;
    if (isErrorRow(row)) {
      const { section, label, error } = row.failure;
      const where = `${headerPath(path)}${section === undefined ? '' : ` section ${section}`}${label === undefined ? '' : ` label=${JSON.stringify(label)}`}`;
      errors.push(note(`error: ${where} ${error.code}: ${error.message}`));
      continue;
    }
    const noEol = row.content !== '' && !row.content.endsWith('\n');
    const attrs = [
      row.part === undefined ? '' : ` part=${row.part}`,
      row.truncated ? ' truncated' : '',
      noEol && format !== 'json' ? ' noeol' : '',
      row.label === undefined ? '' : ` label=${JSON.stringify(row.label)}`,
    ].join('');
    const columns = row.start_column === undefined ? '' : ` columns=${row.start_column}-${row.end_column}`;
    lines.push(`==> ${headerPath(path)}:${row.start_line}-${row.end_line}${columns}${attrs} <==`);
    if (row.content === '') {
      // An empty file's line 1 (range 1-0): no line follows the header.
    } else if (format === 'json') {
      splitLinesKeepEnds(row.content).forEach((text, i) =>
        lines.push(`${row.start_line + i}:${text.replace(/\r?\n$/, '')}`),
      );
    } else {
      // The content ends with its own line end; join() adds the one between it and the next line.
      lines.push(noEol ? row.content : row.content.slice(0, -1));
    }
  }
  lines.push(...errors);
  if (meta.errorCount > 0 && meta.errorCodes) {
    const codes = Object.entries(meta.errorCodes).map(([code, n]) => `${code} ${n}`);
    lines.push(note(`${meta.errorCount} errors: ${codes.join(', ')}`));
  }
  if (meta.truncatedBy.length > 0) lines.push(note(`truncated by ${meta.truncatedBy.join(', ')}`));
  if (meta.nextCursor !== undefined) lines.push(note(`next_cursor: ${meta.nextCursor}`));
  return joinLines(lines);
}
