// The line-oriented text answers (issue 13, tokens): for search rows, file lists and source sections the
// cheapest faithful form is the shell's own (rg -n, rg --files, sed -n), not a TOON table. Each tool
// documents its rows; these are the two rules they share. The tests decode them (test/answer-text.ts).

/**
 * A path as a row shows it: bare, unless it could be misread — then as a JSON string. Misread means: it
 * is empty, holds a control character or a double quote, starts with `#` or a space (a note line, a
 * hidden edge), starts like a row (`12:` / `12-` / `12|`) or is a number (its `7:1:` row reads as one),
 * or holds a `:12:`-like run, which would end the path early in a `path:line:text` row. Real paths are
 * nearly always bare.
 */
export function rowPath(path: string): string {
  return path === '' ||
    hasControlOrQuote(path) ||
    /^[#\s]|\s$/.test(path) ||
    /^\d+([:\-|]|$)/.test(path) ||
    /[:\-|]\d+[:\-|]/.test(path)
    ? JSON.stringify(path)
    : path;
}

/** A control character (tab, newline, …) or a double quote: the text is shown JSON-quoted. */
export function hasControlOrQuote(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22) return true;
  }
  return false;
}

/** A note line: totals, truncation, the cursor, warnings. Rows never start with "# ". */
export function note(text: string): string {
  return `# ${text.replace(/\r?\n/g, ' ')}`;
}

/** Joins rows and notes into the answer's text. */
export function joinLines(lines: readonly string[]): string {
  return lines.join('\n');
}
