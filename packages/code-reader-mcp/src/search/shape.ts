import type { OutputMode } from './options.js';
import type { FileCount, SearchMatch, SearchOutcome } from './types.js';

/** A match as answers show it: the same fields, with `file` root-relative. */
export type MatchRow = SearchMatch;

export interface FileGroup {
  file: string;
  /** Matches of this file in the whole result (the page may show fewer). */
  count: number;
  matches: Omit<MatchRow, 'file'>[];
}

/** How many files a summary lists, and how many sample lines it shows. */
export const SUMMARY_TOP_FILES = 20;
export const SUMMARY_SAMPLES = 10;

/** The rows a mode pages over: matches, or per-file counts. total_only and summary_only have none. */
export function pagedRowsOf(mode: OutputMode, outcome: SearchOutcome): readonly (SearchMatch | FileCount)[] {
  if (mode === 'count_only_matches') return outcome.fileCounts;
  if (mode === 'total_only' || mode === 'summary_only') return [];
  return outcome.matches;
}

export function toMatchRow(match: SearchMatch, display: (abs: string) => string): MatchRow {
  const row: MatchRow = {
    file: display(match.file),
    line: match.line,
    column: match.column,
    text: match.text,
  };
  if (match.before) row.before = match.before;
  if (match.after) row.after = match.after;
  return row;
}

/** Groups a page of matches by file, keeping ripgrep's order of files and lines. */
export function groupByFile(rows: readonly MatchRow[], countOf: (file: string) => number): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  for (const { file, ...rest } of rows) {
    let group = groups.get(file);
    if (!group) {
      group = { file, count: countOf(file), matches: [] };
      groups.set(file, group);
    }
    group.matches.push(rest);
  }
  return [...groups.values()];
}

/** The longest directory prefix shared by all paths ('' when none), for optimize_paths. */
export function commonDirectory(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  let parts = (paths[0] as string).split('/').slice(0, -1);
  for (const p of paths) {
    const other = p.split('/').slice(0, -1);
    let i = 0;
    while (i < parts.length && i < other.length && parts[i] === other[i]) i++;
    parts = parts.slice(0, i);
    if (parts.length === 0) break;
  }
  return parts.join('/');
}

/** Files with the most matches first (ties by path), for summaries. */
export function topFiles(counts: readonly FileCount[], display: (abs: string) => string, limit: number) {
  return [...counts]
    .map((c) => ({ file: display(c.file), count: c.count }))
    .sort((a, b) => b.count - a.count || (a.file < b.file ? -1 : 1))
    .slice(0, limit);
}
