import type { ExtractError, FileExtraction, SectionError } from './extract.js';
import { isErrorRow, type AnswerRow, type SectionPart } from './pages.js';
import { splitLinesKeepEnds } from './read-lines.js';

export type SectionFormat = 'text' | 'json' | 'raw';

/** How many errors the top-level summary lists; the full list is paged in results[].errors. */
export const ERROR_SAMPLE = 5;

/** The section as the chosen `format` shows it: text (content + lines), json (numbered lines), raw (content). */
function showPart(part: SectionPart, format: SectionFormat) {
  const head = part.label === undefined ? {} : { label: part.label };
  if (format === 'raw') return { ...head, content: part.content };
  const tail = {
    ...(part.start_column === undefined
      ? {}
      : { start_column: part.start_column, end_column: part.end_column }),
    ...(part.truncated ? { truncated: true } : {}),
    ...(part.part === undefined ? {} : { part: part.part }),
  };
  if (format === 'json') {
    const lines = splitLinesKeepEnds(part.content).map((text, i) => ({
      line: part.start_line + i,
      text: text.replace(/\r?\n$/, ''),
    }));
    return { ...head, start_line: part.start_line, end_line: part.end_line, lines, ...tail };
  }
  return { ...head, start_line: part.start_line, end_line: part.end_line, content: part.content, ...tail };
}

/** An error as answers show it: where (section, label), code and message. */
export function showError(failure: SectionError) {
  return {
    ...(failure.section === undefined ? {} : { section: failure.section }),
    ...(failure.label === undefined ? {} : { label: failure.label }),
    code: failure.error.code,
    message: failure.error.message,
  };
}

/**
 * The rows of a page as results[]: one entry per request (file) with rows on the page, in request
 * order, holding its sections and (when any) its errors.
 */
export function groupRows(
  rows: readonly AnswerRow[],
  files: readonly FileExtraction[],
  format: SectionFormat,
) {
  const entries: {
    file_path: string;
    resolved_path?: string;
    sections: ReturnType<typeof showPart>[];
    errors?: ReturnType<typeof showError>[];
  }[] = [];
  let current = -1;
  for (const row of rows) {
    if (row.file !== current) {
      const file = files[row.file] as FileExtraction;
      entries.push({
        file_path: file.file_path,
        ...(file.resolved_path === undefined ? {} : { resolved_path: file.resolved_path }),
        sections: [],
      });
      current = row.file;
    }
    const entry = entries[entries.length - 1] as (typeof entries)[number];
    if (isErrorRow(row)) (entry.errors ??= []).push(showError(row.failure));
    else entry.sections.push(showPart(row, format));
  }
  return entries;
}

/**
 * The fixed-size error summary every page carries: the total, counts per code and the first few
 * errors. Listing all of them here would outgrow the answer budget (200 failing sections).
 */
export function errorSummary(errors: readonly ExtractError[]) {
  if (errors.length === 0) return { error_count: 0 };
  const codes: Record<string, number> = {};
  for (const { error } of errors) codes[error.code] = (codes[error.code] ?? 0) + 1;
  return {
    error_count: errors.length,
    error_codes: codes,
    errors: errors.slice(0, ERROR_SAMPLE).map((e) => ({ file_path: e.file_path, ...showError(e) })),
    ...(errors.length > ERROR_SAMPLE ? { errors_truncated: true } : {}),
  };
}
