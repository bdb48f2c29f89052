// The default text of search_content's match list and group_by_file answers: ripgrep's own rows.
import type { MatchRow } from '../search/shape.js';
import { joinLines, note, rowPath } from './text-rows.js';
import type { SearchAnswer } from './search-shared.js';

type Row = Omit<MatchRow, 'file'>;

/** The rows of one match: before-context, the match (and its further lines), after-context. */
function rowsOf(match: Row, prefix: string): string[] {
  const lines: string[] = [];
  let first = true;
  const push = (line: number, sep: string, text: string) => {
    lines.push(first && prefix !== '' ? `${prefix}${sep}${line}${sep}${text}` : `${line}${sep}${text}`);
    first = false;
  };
  const before = match.before ?? [];
  before.forEach((text, i) => push(match.line - before.length + i, '-', text));
  const matchLines = match.text.split('\n');
  matchLines.forEach((text, i) => push(match.line + i, i === 0 ? ':' : '|', text));
  const end = match.line + matchLines.length - 1;
  (match.after ?? []).forEach((text, i) => push(end + 1 + i, '-', text));
  return lines;
}

/** The notes every search answer ends with: totals, then how it continues, then warnings. */
function searchNotes(answer: SearchAnswer, totals: boolean): string[] {
  const notes: string[] = [];
  if (totals && answer.total_matches !== undefined)
    notes.push(note(`${answer.total_matches} matches in ${answer.files_with_matches ?? 0} files`));
  if (answer.timed_out) notes.push(note('timed out'));
  if (answer.next_cursor !== undefined) notes.push(note(`next_cursor: ${answer.next_cursor}`));
  else if (answer.truncated) notes.push(note('truncated'));
  for (const warning of answer.warnings ?? []) notes.push(note(`warning: ${warning}`));
  return notes;
}

/**
 * The text of a match list (also optimize_paths), group_by_file or count_only_matches answer; undefined
 * for total_only and summary_only (their TOON document is already short).
 */
export function searchText(answer: SearchAnswer): string | undefined {
  const lines: string[] = [];
  const notes: string[] = [];
  // A whole grouped answer says no more than rg -n --heading: its rows are every match line. When it is
  // cut, the counts say what the other pages (or max_count, or the time limit) hold.
  let totals = true;
  if (answer.matches) {
    let previous: string | undefined;
    for (const { file, ...match } of answer.matches) {
      lines.push(...rowsOf(match, file === previous ? '' : rowPath(file)));
      previous = file;
    }
    // optimize_paths: the rows' paths are relative to base_dir.
    if (answer.base_dir !== undefined) notes.unshift(`base_dir: ${answer.base_dir}`);
  } else if (answer.file_counts) {
    // count_only_matches: rg -c's rows, path:count.
    for (const { file, count } of answer.file_counts) lines.push(`${rowPath(file)}:${count}`);
  } else if (answer.files) {
    totals = answer.truncated;
    for (const group of answer.files) {
      const path = rowPath(group.file);
      lines.push(totals ? `${path}\t${group.count}` : path);
      for (const match of group.matches) lines.push(...rowsOf(match, ''));
    }
  } else {
    return undefined;
  }
  return joinLines([...lines, ...notes.map(note), ...searchNotes(answer, totals)]);
}
