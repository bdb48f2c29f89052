// What the tool descriptions leave out (issue 22: every session pays for the tool list): how each
// default text answer is laid out, note by note. A model reads it on demand as the MCP resource
// HELP_URI; the server's instructions say where it is. Written for a model, in the tools' own words.

export const HELP_URI = 'code-reader://help/answers';

export const ANSWERS_HELP = `# code-reader-mcp: how answers read

Every tool takes output_format: "toon" (default) gives the compact text below, "json" the full answer with
every field (a match's column, cache_hit, limits, file sizes and times). Paths are relative to the project
directory (set_project_path; else the first root); with several roots they start with the root's name.
Lines and columns count from 1 (columns in characters). Lines of a text answer that start with "# " are
notes; a path that could be misread as a note or a row is written as a JSON string.

Long answers come in pages of at most max_answer_tokens (default 8000, max 20000) o200k tokens: pass the
"# next_cursor: …" value (json: next_cursor) back as cursor, with the same other arguments.

## search_content
One row per line as rg -n prints them: "path:line:text" for a match, "path-line-text" for a context line;
a row of the same file as the row above drops the path ("line:text", "line-text"); further lines of a
multiline match read "line|text". Notes: "# N matches in F files", "# next_cursor: …", "# truncated",
"# timed out", "# warning: …". Match lines over 400 characters are clipped around the match.
- group_by_file: as rg -n --heading: each file on a line of its own, then its rows. When the answer is cut
  (pages, time limit), each file line ends with a tab and the file's match count, and the totals follow.
- optimize_paths: the same rows, paths relative to the "# base_dir: …" note.
- count_only_matches: rg -c's "path:count" rows.
- total_only, summary_only: a TOON document (totals; top_files and a few sample lines).
The five are exclusive. max_count caps matching lines per file (rg -m N) in every mode. Identical searches
come from a cache until a searched file changes.

## list_files
One path per line as rg --files prints them. Notes: "# N files" when the page shows fewer than matched,
"# next_cursor: …", "# truncated: more files than limit N". fields ["size_bytes", "mtime", "ext"] gives a
tab-separated TOON table of the path and those columns (mtime in Unix seconds).

## extract_code_section
Each section: a header line "==> path:start-end <==", then exactly those source lines, unchanged
(format "json" numbers them "line:text"; "raw" gives the content only). The header may add "part=2/3" (a
long section split over pages), "truncated", "noeol" (the last line has no line end; one was added to end
the section) and label="…". The range says how many lines follow, so no source line is taken for a header.
A line longer than a page (minified code) comes in pieces, one part each, whose header names the columns
("==> app.min.js:1-1 columns=1-15429 part=1/63 noeol <=="); start_column/end_column ask for any piece,
in single mode or in a batch section.
Then notes: "# error: path section N CODE: message", "# N errors: CODE n, …", "# truncated by
max_total_lines", "# next_cursor: …". A line longer than the answer budget is read in pieces with
start_column/end_column.

## check_code_scale, analyze_code_structure, get_code_outline, query_code
TOON documents (get_code_outline: compact JSON of the same value when that costs fewer tokens).
Comment lines come from the grammar; Python docstrings count as comments, a #! line as code. Functions'
complexity is cyclomatic (&& and || count). get_code_outline's rows are kind, name, start_line, end_line,
class (the enclosing type, "" at the top level; a Go method's receiver type, a C++ member defined outside
its class); declarations without a body (TypeScript declaration files, overloads and interface members,
C/C++ prototypes and member declarations, Rust trait methods, Go interface methods) count.
query_code names things as get_code_outline does: a method or field by its own name, its class in the
class column ("name~=^ServeHTTP$,class=HandlerFunc"). filter: conditions joined by commas, all must hold:
name=exact, name~=regex, class=exact, class~=regex, type=node_type, text~=regex, lines>N, lines<N (regexes
are RE2: no look-around or backreferences; so are the patterns of #match? in a query_string).

## Errors
{"error": {code, message, hint}}: INVALID_ARGUMENT, PATH_OUTSIDE_ROOT, PATH_DENIED, NOT_FOUND,
LIMIT_EXCEEDED (details.limit names it), UNSUPPORTED_FORMAT, CONFLICT (a cursor of files that changed: call
again without cursor), BACKEND_UNAVAILABLE, PERMISSION_DENIED, CANCELLED, INTERNAL. The hint says what to do.
`;
