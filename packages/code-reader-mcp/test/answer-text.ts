// Decoders of the line-oriented text answers (search_content rows, list_files paths, extract_code_section
// sections), written from the formats the tool descriptions document — not from the server's code — so
// the tests check that an agent reading the documented rows gets the same information as the JSON answer.

/** Splits a row prefix that may be a JSON-quoted path; returns the path and the rest of the line. */
function quotedPath(line: string): { path: string; rest: string } | undefined {
  if (!line.startsWith('"')) return undefined;
  for (let end = line.indexOf('"', 1); end !== -1; end = line.indexOf('"', end + 1)) {
    try {
      return { path: JSON.parse(line.slice(0, end + 1)) as string, rest: line.slice(end + 1) };
    } catch {
      // an escaped quote: look further
    }
  }
  throw new Error(`unterminated quoted path: ${line}`);
}

/** Reads a note line ("# …") into `notes`; returns false for any other line. */
function readNote(line: string, notes: string[]): boolean {
  if (!line.startsWith('# ')) return false;
  notes.push(line.slice(2));
  return true;
}

interface DecodedMatch {
  file?: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

export interface DecodedSearch {
  total_matches?: number;
  files_with_matches?: number;
  matches?: DecodedMatch[];
  files?: { file: string; count?: number; matches: Omit<DecodedMatch, 'file'>[] }[];
  base_dir?: string;
  file_counts?: { file: string; count: number }[];
  truncated: boolean;
  timed_out?: true;
  next_cursor?: string;
  warnings?: string[];
}

/**
 * Decodes search_content's rows. A context row between two matches belongs to the `after` of the match
 * above while it directly follows it within `contextAfter` lines, else to the `before` of the next
 * (how the server merges overlapping context; the rows themselves are the same either way).
 */
export function decodeSearchText(
  text: string,
  options: { grouped?: boolean; counts?: boolean; contextAfter?: number } = {},
): DecodedSearch {
  if (options.counts) return decodeCountRows(text);
  const contextAfter = options.contextAfter ?? 0;
  const notes: string[] = [];
  const groups: { file: string; count?: number; matches: DecodedMatch[] }[] = [];
  let pending: string[] = []; // context rows waiting for their match
  let pendingStart = 0;
  let last: { match: DecodedMatch; end: number } | undefined;
  const row = (sep: string, line: number, body: string) => {
    const group = groups[groups.length - 1];
    if (!group) throw new Error(`a row before any file: ${line}${sep}${body}`);
    if (sep === '|') {
      if (!last || line !== last.end + 1) throw new Error(`a continuation without its match at ${line}`);
      last.match.text += `\n${body}`;
      last.end = line;
      return;
    }
    if (sep === '-') {
      const after = last?.match.after?.length ?? 0;
      if (pending.length === 0 && last && line === last.end + after + 1 && after < contextAfter) {
        (last.match.after ??= []).push(body);
        return;
      }
      if (pending.length === 0 || pendingStart + pending.length !== line) {
        pending = [];
        pendingStart = line;
      }
      pending.push(body);
      return;
    }
    const match: DecodedMatch = { line, text: body };
    if (pending.length > 0 && pendingStart + pending.length === line) match.before = pending;
    pending = [];
    group.matches.push(match);
    last = { match, end: line };
  };
  const startFile = (file: string, count?: number) => {
    groups.push({ file, ...(count === undefined ? {} : { count }), matches: [] });
    last = undefined;
    pending = [];
  };
  for (const line of text === '' ? [] : text.split('\n')) {
    if (readNote(line, notes)) continue;
    const bare = /^(\d+)([:\-|])(.*)$/s.exec(line);
    if (bare) {
      row(bare[2] as string, Number(bare[1]), bare[3] as string);
      continue;
    }
    const quoted = quotedPath(line);
    const head = quoted ?? /^(?<path>.*?)(?<rest>(?:([:\-|])\d+\3.*)?)$/s.exec(line)?.groups;
    const path = (quoted?.path ?? head?.path) as string;
    const rest = (quoted?.rest ?? head?.rest) as string;
    const inline = /^([:\-|])(\d+)\1(.*)$/s.exec(rest);
    if (inline) {
      startFile(path);
      row(inline[1] as string, Number(inline[2]), inline[3] as string);
      continue;
    }
    // A file line of group_by_file: the path, and a tab and the file's match count when the answer is cut.
    const counted = quoted ? /^\t(\d+)$/.exec(rest) : /^(.*)\t(\d+)$/s.exec(path);
    if (quoted && rest !== '' && !counted) throw new Error(`not a row: ${line}`);
    if (counted) startFile(quoted ? path : (counted[1] as string), Number(counted[quoted ? 1 : 2]));
    else startFile(path);
  }
  const decoded: DecodedSearch = { truncated: false };
  for (const n of notes) {
    const totals = /^(\d+) matches in (\d+) files$/.exec(n);
    if (totals) {
      decoded.total_matches = Number(totals[1]);
      decoded.files_with_matches = Number(totals[2]);
    } else if (n === 'timed out') decoded.timed_out = true;
    else if (n === 'truncated') decoded.truncated = true;
    else if (n.startsWith('next_cursor: ')) decoded.next_cursor = n.slice('next_cursor: '.length);
    else if (n.startsWith('warning: ')) (decoded.warnings ??= []).push(n.slice('warning: '.length));
    else if (n.startsWith('base_dir: ')) decoded.base_dir = n.slice('base_dir: '.length);
    else throw new Error(`unknown note: ${n}`);
  }
  finishNotes(decoded);
  if (options.grouped) decoded.files = groups;
  else decoded.matches = groups.flatMap((g) => g.matches.map((m) => ({ file: g.file, ...m })));
  return decoded;
}

export interface DecodedList {
  count: number;
  files: string[];
  truncated: boolean;
  next_cursor?: string;
}

/** Decodes list_files' default text: a path per line, then notes. */
export function decodeListText(text: string): DecodedList {
  const files: string[] = [];
  const notes: string[] = [];
  for (const line of text === '' ? [] : text.split('\n')) {
    if (readNote(line, notes)) continue;
    files.push(quotedPath(line)?.path ?? line);
  }
  const decoded: DecodedList = { count: files.length, files, truncated: false };
  for (const n of notes) {
    const count = /^(\d+) files$/.exec(n);
    if (count) decoded.count = Number(count[1]);
    else if (n.startsWith('next_cursor: ')) {
      decoded.next_cursor = n.slice('next_cursor: '.length);
      decoded.truncated = true;
    } else if (/^truncated: more files than limit \d+$/.test(n)) decoded.truncated = true;
    else throw new Error(`unknown note: ${n}`);
  }
  return decoded;
}

export interface DecodedSection {
  path: string;
  start_line: number;
  end_line: number;
  /** A piece of a long line (or a section asked by columns): the columns it holds. */
  start_column?: number;
  end_column?: number;
  content: string;
  label?: string;
  part?: string;
  truncated?: true;
  /** format "json": the numbered lines. */
  lines?: { line: number; text: string }[];
}

export interface DecodedExtract {
  sections: DecodedSection[];
  errors: { path: string; section?: number; label?: string; code: string; message: string }[];
  error_count: number;
  error_codes?: Record<string, number>;
  truncated_by?: string[];
  next_cursor?: string;
}

const HEADER =
  /^==> ("(?:[^"\\]|\\.)*"|[^\s"]+):(\d+)-(\d+)( columns=\d+-\d+)?( part=\d+\/\d+)?( truncated)?( noeol)?( label="(?:[^"\\]|\\.)*")? <==$/;

/**
 * Decodes extract_code_section's default text: a header, then exactly end-start+1 source lines; after
 * the sections, notes. `numbered`: the request used format "json" ("line:text" rows).
 */
export function decodeExtractText(text: string, options: { numbered?: boolean } = {}): DecodedExtract {
  const lines = text.split('\n');
  const decoded: DecodedExtract = { sections: [], errors: [], error_count: 0 };
  let i = 0;
  while (i < lines.length) {
    const header = HEADER.exec(lines[i] as string);
    if (!header) break;
    const [, rawPath, start, end, columns, part, truncated, noEol, label] = header;
    const path = rawPath!.startsWith('"') ? (JSON.parse(rawPath!) as string) : (rawPath as string);
    const count = Math.max(0, Number(end) - Number(start) + 1); // 1-0: an empty file, no line
    const body = lines.slice(i + 1, i + 1 + count);
    if (body.length !== count) throw new Error(`section ${lines[i]} has ${body.length} lines`);
    const section: DecodedSection = {
      path,
      start_line: Number(start),
      end_line: Number(end),
      content: count === 0 ? '' : body.join('\n') + (noEol ? '' : '\n'),
      ...(label ? { label: JSON.parse(label.slice(' label='.length)) as string } : {}),
      ...(columns
        ? {
            start_column: Number(columns.slice(' columns='.length).split('-')[0]),
            end_column: Number(columns.split('-')[1]),
          }
        : {}),
      ...(part ? { part: part.slice(' part='.length) } : {}),
      ...(truncated ? { truncated: true as const } : {}),
    };
    if (options.numbered) {
      section.lines = body.map((row, k) => {
        const m = /^(\d+):(.*)$/s.exec(row);
        if (!m || Number(m[1]) !== section.start_line + k) throw new Error(`not a numbered line: ${row}`);
        return { line: Number(m[1]), text: m[2] as string };
      });
    }
    decoded.sections.push(section);
    i += 1 + count;
  }
  for (const line of lines.slice(i)) {
    if (!line.startsWith('# ')) throw new Error(`neither a section nor a note: ${line}`);
    const n = line.slice(2);
    const error =
      /^error: ("(?:[^"\\]|\\.)*"|\S+)(?: section (\d+))?(?: label=("(?:[^"\\]|\\.)*"))? ([A-Z_]+): (.*)$/.exec(
        n,
      );
    const summary = /^(\d+) errors: (.*)$/.exec(n);
    if (error) {
      const [, p, section, label, code, message] = error;
      decoded.errors.push({
        path: p!.startsWith('"') ? (JSON.parse(p!) as string) : (p as string),
        ...(section ? { section: Number(section) } : {}),
        ...(label ? { label: JSON.parse(label) as string } : {}),
        code: code as string,
        message: message as string,
      });
    } else if (summary) {
      decoded.error_count = Number(summary[1]);
      decoded.error_codes = Object.fromEntries(
        (summary[2] as string).split(', ').map((pair) => {
          const [code, k] = pair.split(' ');
          return [code, Number(k)];
        }),
      );
    } else if (n.startsWith('truncated by '))
      decoded.truncated_by = n.slice('truncated by '.length).split(', ');
    else if (n.startsWith('next_cursor: ')) decoded.next_cursor = n.slice('next_cursor: '.length);
    else throw new Error(`unknown note: ${n}`);
  }
  return decoded;
}

function finishNotes(decoded: DecodedSearch): void {
  if (decoded.timed_out || decoded.next_cursor) decoded.truncated = true;
}

/** count_only_matches: "path:count" rows (the count after the last colon), then the usual notes. */
function decodeCountRows(text: string): DecodedSearch {
  const rows: { file: string; count: number }[] = [];
  const noteLines: string[] = [];
  for (const line of text === '' ? [] : text.split('\n')) {
    if (line.startsWith('# ')) {
      noteLines.push(line);
      continue;
    }
    const quoted = quotedPath(line);
    const m = quoted ? /^:(\d+)$/.exec(quoted.rest) : /^(.*):(\d+)$/s.exec(line);
    if (!m) throw new Error(`not a count row: ${line}`);
    rows.push({ file: quoted ? quoted.path : (m[1] as string), count: Number(m[quoted ? 1 : 2]) });
  }
  const { matches: _none, ...decoded } = decodeSearchText(noteLines.join('\n'));
  return { ...decoded, file_counts: rows };
}
