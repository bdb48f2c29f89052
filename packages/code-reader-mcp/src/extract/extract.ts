import { ToolError, toToolError, utf8ByteLength, type FileAccess } from '@mcp-workbench/core/engine';
import { EXTRACT_LIMITS, type ExtractLimitName, type ExtractLimits } from './limits.js';
import { loadFile, type LoadedFile } from './read-lines.js';
import type { LineRange } from './read-range.js';

export interface SectionSpec {
  start_line: number;
  end_line?: number | undefined;
  label?: string | undefined;
  /** 1-based first character on start_line. */
  start_column?: number | undefined;
  /** 1-based last character (inclusive) on end_line. */
  end_column?: number | undefined;
}

/** A requested file after path resolution: either a real path or the reason it cannot be read. */
export interface ResolvedRequest {
  /** The path as requested. */
  file_path: string;
  /** The real path as answers show it (root/project-relative); absent when it did not resolve. */
  resolved_path?: string;
  realPath?: string;
  error?: ToolError;
  sections: SectionSpec[];
}

export interface ExtractedSection {
  label?: string;
  start_line: number;
  end_line: number;
  content: string;
  /** The column (1-based) the content's first line starts at, when the request gave start_column. */
  start_column?: number;
  /** The request cut the section by columns (start_column or end_column). */
  columns?: true;
  /** Cut to stay within max_total_bytes / max_total_lines (allow_truncate). */
  truncated?: boolean;
}

/** A section (or the whole file) that could not be served; the original error keeps hint/details. */
export interface SectionError {
  /** 1-based position of the section in the file's request (absent for whole-file failures). */
  section?: number;
  label?: string;
  error: ToolError;
}

export interface ExtractError extends SectionError {
  file_path: string;
}

/** One per served request, in request order (a file named twice is read once but answered twice). */
export interface FileExtraction {
  file_path: string;
  resolved_path?: string;
  sections: ExtractedSection[];
  errors: SectionError[];
}

export interface ExtractOptions {
  /** How files are read (the server's PathPolicy; a CLI's localFiles). */
  files: FileAccess;
  allowTruncate: boolean;
  failFast: boolean;
  limits?: ExtractLimits;
}

export interface ExtractResult {
  files: FileExtraction[];
  /** Every file's errors, in order. */
  errors: ExtractError[];
  truncated: boolean;
  /** Why the result was truncated (limit names), for the answer's notes. */
  truncatedBy: ExtractLimitName[];
  totalBytes: number;
  totalLines: number;
}

/** How messages name a requested file. */
function shown(request: ResolvedRequest): string {
  return request.resolved_path ?? request.file_path;
}

function limitError(limit: ExtractLimitName, value: number, max: number, what: string): ToolError {
  return new ToolError('LIMIT_EXCEEDED', `The request exceeds ${limit} (${max}): ${what} ${value}.`, {
    hint: 'Ask for fewer files/sections or narrower line ranges, or pass allow_truncate: true to get what fits (marked truncated).',
    details: { limit, value, max },
  });
}

/** Applies the request-shape limits (files, sections per file, sections in total). */
function trimRequests(
  requests: ResolvedRequest[],
  options: ExtractOptions,
  limits: ExtractLimits,
  truncatedBy: Set<ExtractLimitName>,
) {
  let kept = requests;
  if (kept.length > limits.max_files) {
    if (!options.allowTruncate)
      throw limitError('max_files', kept.length, limits.max_files, 'files requested');
    kept = kept.slice(0, limits.max_files);
    truncatedBy.add('max_files');
  }
  let total = 0;
  return kept.map((request) => {
    let sections = request.sections;
    if (sections.length > limits.max_sections_per_file) {
      if (!options.allowTruncate) {
        throw limitError(
          'max_sections_per_file',
          sections.length,
          limits.max_sections_per_file,
          `sections for ${shown(request)}`,
        );
      }
      sections = sections.slice(0, limits.max_sections_per_file);
      truncatedBy.add('max_sections_per_file');
    }
    const room = limits.max_sections_total - total;
    if (sections.length > room) {
      if (!options.allowTruncate) {
        const requested = kept.reduce(
          (sum, r) => sum + Math.min(r.sections.length, limits.max_sections_per_file),
          0,
        );
        throw limitError('max_sections_total', requested, limits.max_sections_total, 'sections requested');
      }
      sections = sections.slice(0, Math.max(0, room));
      truncatedBy.add('max_sections_total');
    }
    total += sections.length;
    return { ...request, sections };
  });
}

/**
 * The UTF-16 offset where the 1-based `column` starts in `text`, counting Unicode code points (so a
 * surrogate pair is one character and never split); text.length when the column is past the end.
 */
function offsetOfColumn(text: string, column: number): number {
  let offset = 0;
  for (let seen = 1; seen < column && offset < text.length; seen++) {
    const code = text.codePointAt(offset) as number;
    offset += code > 0xffff ? 2 : 1;
  }
  return offset;
}

/** The number of characters (Unicode code points) in a line, without its line ending. */
function characterCount(line: string): number {
  const body = line.replace(/\r?\n$/, '');
  let count = 0;
  for (let offset = 0; offset < body.length; count++) {
    offset += (body.codePointAt(offset) as number) > 0xffff ? 2 : 1;
  }
  return count;
}

/** Why the columns of a section cannot be served (past the line's end, or reversed on one line). */
function columnError(lines: string[], spec: SectionSpec, file: string): ToolError | undefined {
  const first = lines[0] ?? '';
  const length = characterCount(first);
  if (spec.start_column !== undefined && spec.start_column > Math.max(1, length)) {
    return new ToolError(
      'INVALID_ARGUMENT',
      `start_column ${spec.start_column} is past the end of line ${spec.start_line} of ${file} (${length} characters).`,
      {
        hint: `Use a start_column from 1 to ${Math.max(1, length)} (columns count characters, 1-based).`,
        details: { line: spec.start_line, line_length: length },
      },
    );
  }
  if (
    lines.length === 1 &&
    spec.start_column !== undefined &&
    spec.end_column !== undefined &&
    spec.end_column < spec.start_column
  ) {
    return new ToolError(
      'INVALID_ARGUMENT',
      `end_column ${spec.end_column} is before start_column ${spec.start_column} on line ${spec.start_line} of ${file}.`,
      {
        hint: `On a single line give end_column ≥ start_column (the line has ${length} characters).`,
        details: { line: spec.start_line, line_length: length },
      },
    );
  }
  return undefined;
}

/**
 * Cuts a section's text to its columns (1-based, end inclusive, in characters: Unicode code points,
 * as search_content reports them) on the first and last line.
 */
function applyColumns(lines: string[], spec: SectionSpec): string[] {
  if (spec.start_column === undefined && spec.end_column === undefined) return lines;
  const out = [...lines];
  const lastIndex = out.length - 1;
  if (spec.end_column !== undefined && lastIndex >= 0) {
    const last = out[lastIndex] as string;
    const body = last.replace(/\r?\n$/, '');
    out[lastIndex] = body.slice(0, offsetOfColumn(body, spec.end_column + 1));
  }
  if (spec.start_column !== undefined && out.length > 0) {
    const first = out[0] as string;
    out[0] = first.slice(offsetOfColumn(first, spec.start_column));
  }
  return out;
}

/**
 * Extracts line ranges from files, reading each file once. Request-shape and size limits fail the
 * request unless allowTruncate; a section or file that cannot be served goes to `errors` and the rest
 * continue (unless failFast, which throws the first failure).
 */
export async function extractSections(
  requests: ResolvedRequest[],
  options: ExtractOptions,
): Promise<ExtractResult> {
  const limits = options.limits ?? EXTRACT_LIMITS;
  const truncatedBy = new Set<ExtractLimitName>();
  // A request whose sections were all cut away (max_sections_total) is not served at all.
  const kept = trimRequests(requests, options, limits, truncatedBy).filter((r) => r.sections.length > 0);
  const results: FileExtraction[] = [];
  const errors: ExtractError[] = [];
  let totalBytes = 0;
  let totalLines = 0;
  let full = false;

  // Each file is read once, even when several requests name it, for the lines all of them ask.
  const files = new Map<string, Promise<LoadedFile>>();
  const ranges = new Map<string, LineRange[]>();
  for (const request of kept) {
    if (request.realPath === undefined) continue;
    const list = ranges.get(request.realPath) ?? [];
    for (const spec of request.sections) list.push({ start: spec.start_line, end: spec.end_line });
    ranges.set(request.realPath, list);
  }
  for (const request of kept) {
    if (full) break;
    const extraction: FileExtraction = {
      file_path: request.file_path,
      ...(request.resolved_path === undefined ? {} : { resolved_path: request.resolved_path }),
      sections: [],
      errors: [],
    };
    results.push(extraction);
    const fail = (error: ToolError, where: Omit<SectionError, 'error'> = {}) => {
      if (options.failFast) throw error;
      extraction.errors.push({ ...where, error });
      errors.push({ file_path: request.file_path, ...where, error });
    };
    let loaded: LoadedFile;
    try {
      if (request.error) throw request.error;
      const realPath = request.realPath as string;
      let pending = files.get(realPath);
      if (!pending) {
        pending = loadFile(
          options.files,
          realPath,
          shown(request),
          limits.max_file_size,
          ranges.get(realPath),
        );
        files.set(realPath, pending);
      }
      loaded = await pending;
    } catch (error) {
      fail(toToolError(error));
      continue;
    }
    for (const [index, spec] of request.sections.entries()) {
      const where = { section: index + 1, ...(spec.label ? { label: spec.label } : {}) };
      const lineCount = loaded.lineCount;
      const end = Math.min(spec.end_line ?? lineCount, lineCount);
      // Line 1 of an empty file is an empty section (like `sed -n 1p`); past that is an error.
      const emptyFile = lineCount === 0 && spec.start_line === 1;
      if (spec.start_line > lineCount && !emptyFile) {
        const error =
          lineCount === 0
            ? new ToolError(
                'INVALID_ARGUMENT',
                `start_line ${spec.start_line} is past the end of ${shown(request)}: the file is empty (0 lines).`,
                { hint: 'Use start_line 1: an empty file reads as one empty section.' },
              )
            : new ToolError(
                'INVALID_ARGUMENT',
                `start_line ${spec.start_line} is past the end of ${shown(request)} (${lineCount} lines).`,
                { hint: `Use a start_line from 1 to ${lineCount}.` },
              );
        fail(error, where);
        continue;
      }
      if (spec.end_line !== undefined && spec.end_line < spec.start_line) {
        const error = new ToolError(
          'INVALID_ARGUMENT',
          `end_line ${spec.end_line} is before start_line ${spec.start_line} in ${shown(request)}.`,
          {
            hint: 'Give end_line ≥ start_line, or omit end_line to read to the end of the file.',
          },
        );
        fail(error, where);
        continue;
      }
      const range = loaded.slice(spec.start_line - 1, end);
      const badColumns = columnError(range, spec, shown(request));
      if (badColumns) {
        fail(badColumns, where);
        continue;
      }
      let lines = applyColumns(range, spec);
      let content = lines.join('');
      let bytes = utf8ByteLength(content);
      let truncated = false;
      const overLines = totalLines + lines.length > limits.max_total_lines;
      const overBytes = totalBytes + bytes > limits.max_total_bytes;
      if (overLines || overBytes) {
        if (!options.allowTruncate) {
          throw overLines
            ? limitError(
                'max_total_lines',
                totalLines + lines.length,
                limits.max_total_lines,
                'lines to extract at least',
              )
            : limitError(
                'max_total_bytes',
                totalBytes + bytes,
                limits.max_total_bytes,
                'bytes to extract at least',
              );
        }
        const fit = fitLines(lines, limits.max_total_lines - totalLines, limits.max_total_bytes - totalBytes);
        for (const limit of fit.cutBy) truncatedBy.add(limit);
        lines = fit.kept;
        content = lines.join('');
        bytes = utf8ByteLength(content);
        truncated = true;
        full = true;
      }
      if (emptyFile) {
        extraction.sections.push({
          ...(spec.label ? { label: spec.label } : {}),
          start_line: 1,
          end_line: 0,
          content: '',
        });
      } else if (lines.length > 0) {
        extraction.sections.push({
          ...(spec.label ? { label: spec.label } : {}),
          start_line: spec.start_line,
          end_line: spec.start_line + lines.length - 1,
          content,
          ...(spec.start_column !== undefined && spec.start_column > 1
            ? { start_column: spec.start_column }
            : {}),
          ...(spec.start_column !== undefined || spec.end_column !== undefined
            ? { columns: true as const }
            : {}),
          ...(truncated ? { truncated: true } : {}),
        });
      }
      totalBytes += bytes;
      totalLines += lines.length;
      if (full) break;
    }
  }
  return {
    // A request cut to nothing by the total limits has nothing to show.
    files: results.filter((file) => file.sections.length > 0 || file.errors.length > 0),
    errors,
    truncated: truncatedBy.size > 0,
    truncatedBy: [...truncatedBy],
    totalBytes,
    totalLines,
  };
}

/**
 * The leading lines that fit the room left under both total limits, and the limit(s) that stopped
 * them: the one that actually cut, which need not be the one the whole section exceeded.
 */
function fitLines(
  lines: string[],
  maxLines: number,
  maxBytes: number,
): { kept: string[]; cutBy: ExtractLimitName[] } {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = utf8ByteLength(line);
    const cutBy: ExtractLimitName[] = [];
    if (kept.length >= maxLines) cutBy.push('max_total_lines');
    if (bytes + size > maxBytes) cutBy.push('max_total_bytes');
    if (cutBy.length > 0) return { kept, cutBy };
    kept.push(line);
    bytes += size;
  }
  return { kept, cutBy: [] };
}
