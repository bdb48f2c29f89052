import path from 'node:path';

const SEP = path.sep === '\\' ? '\\\\' : '/';

/**
 * A run of NUL-ended names in one folder, as `rg --files --null` prints them (a folder's files mostly
 * come one after another): group 1 is the folder with its last separator ("./a/b/"), absent for a name
 * without one. Names are never empty. One match covers up to 256 names, so that a folder of a million
 * files cannot grow the regex engine's backtracking stack. Linear: the only backtracking is to a name's
 * last separator.
 */
const RUN = new RegExp(`([^\\0]*${SEP})?[^\\0${SEP}]+(?:\\0\\1[^\\0${SEP}]+(?=\\0)){0,255}\\0`, 'y');

/** One run: its folder (as printed, with its last separator; '' for none), where its first name is, how many names. */
export type OnRun = (folder: string, first: number, firstEnd: number, names: number) => void;

/**
 * Finds the runs of whole names in `text` (ripgrep's bytes read as latin1, one character a byte) from
 * `from` on, and returns where the unfinished last name begins (text.length when none). Empty names
 * are skipped. One regular expression match a run and one indexOf a name replace the per-name Buffer
 * calls of a JavaScript loop: a fresh process's first count spent ~25 ms more CPU in that loop, most of
 * it optimising it while ripgrep needed the cores (issue 25).
 */
export function scanRuns(text: string, onRun: OnRun, from = 0): number {
  const last = text.lastIndexOf('\0');
  let start = from;
  while (start <= last) {
    RUN.lastIndex = start;
    const match = RUN.exec(text);
    if (match === null) {
      start = text.indexOf('\0', start) + 1; // an empty name, not counted
      continue;
    }
    const end = RUN.lastIndex;
    const firstEnd = text.indexOf('\0', start);
    let names = 1;
    for (let at = text.indexOf('\0', firstEnd + 1); at >= 0 && at < end; at = text.indexOf('\0', at + 1))
      names++;
    onRun(match[1] ?? '', start, firstEnd, names);
    start = end;
  }
  return start;
}
