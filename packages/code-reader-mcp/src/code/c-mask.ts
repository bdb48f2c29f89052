// Text masks that let tree-sitter see the structure of C and C++ sources that the preprocessor makes
// unparsable. Masked characters become spaces (line breaks stay), so every offset and line number of the
// masked text is that of the file.

/** Upper-case macros between `class`/`struct`/`union` and the type's name: `class QT_CORE_EXPORT QObject :`. */
const CLASS_HEAD_MACROS =
  /\b(?:class|struct|union)\s+((?:[A-Z_][A-Z0-9_]*(?:\s*\([^()\n]*\))?\s+)+)(?=[A-Za-z_]\w*\s*(?:final\b|:|\{|<))/g;

function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/** Blanks export and attribute macros in class heads (`class DLL_API Widget {` reads as a function). */
export function maskClassHeadMacros(text: string): string {
  return text.replace(CLASS_HEAD_MACROS, (whole: string, macros: string) => {
    const at = whole.length - macros.length;
    return whole.slice(0, at) + blank(macros);
  });
}

// The masks below scan the text themselves rather than use regular expressions: each looks at a few
// tokens after an anchor, so a file of any shape costs linear time (a regular expression with nested
// optional parts backtracks exponentially on a long run of upper-case words).

/**
 * What the masks take for a macro: an upper-case name with an underscore (`_GLIBCXX20_CONSTEXPR`,
 * `JSON_HEDLEY_RETURNS_NON_NULL`, `Q_OBJECT`, `__BEGIN_DECLS`). Upper-case names without an underscore
 * (`HANDLE`, `BOOL`) are too often types to be blanked, and lower-case `__` names are libstdc++'s own
 * functions (`__alloc_on_copy`) except after a parameter list (TRAILING_MACRO_NAME).
 */
const MACRO_NAME = /^(?:_[A-Z_][A-Z0-9_]*|[A-Z][A-Z0-9]*_[A-Z0-9_]*)$/;
/** After a parameter list also glibc's lower-case attributes (`__wur`, `__nonnull`) and `WINAPI`. */
const TRAILING_MACRO_NAME = /^(?:__\w+|[A-Z][A-Z0-9_]*)$/;
const IDENTIFIER = /[A-Za-z_]\w*/y;
const QUALIFIERS = new Set(['const', 'volatile', 'override', 'final']);
const SPECIFIERS = new Set([
  'static',
  'inline',
  'constexpr',
  'consteval',
  'constinit',
  'virtual',
  'explicit',
  'friend',
  'extern',
]);
/** Longest argument list of a macro that the masks look through. */
const MAX_ARGS = 512;

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

export function skipSpaces(text: string, at: number, newlines = true): number {
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (!isSpace(code) || (!newlines && code === 10)) break;
    at++;
  }
  return at;
}

function identifierAt(text: string, at: number): string | undefined {
  IDENTIFIER.lastIndex = at;
  return IDENTIFIER.exec(text)?.[0];
}

/** The end (after its `)`) of a balanced argument list starting at `at` (a `(`), or -1. */
export function argsEnd(text: string, at: number, newlines = true): number {
  let depth = 0;
  const stop = Math.min(text.length, at + MAX_ARGS);
  for (let i = at; i < stop; i++) {
    const char = text[i];
    if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i + 1;
    else if (char === '\n' && !newlines) return -1;
  }
  return -1;
}

/** A macro (name and optional argument list) at `at`: its end, or -1 when there is none. */
function macroEnd(text: string, at: number, newlines = true): number {
  const name = identifierAt(text, at);
  if (name === undefined || !MACRO_NAME.test(name)) return -1;
  const after = at + name.length;
  const open = skipSpaces(text, after, newlines);
  if (text[open] !== '(') return after;
  const end = argsEnd(text, open, newlines);
  return end < 0 ? after : end;
}

/** The `(` that the `)` at `close` closes (looking back at most MAX_ARGS characters), or -1. */
function openingParen(text: string, close: number): number {
  let depth = 0;
  const stop = Math.max(0, close - MAX_ARGS);
  for (let i = close; i >= stop; i--) {
    const char = text[i];
    if (char === ')') depth++;
    else if (char === '(' && --depth === 0) return i;
  }
  return -1;
}

export function blankRanges(text: string, ranges: readonly [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let done = 0;
  for (const [from, to] of ranges) {
    out += text.slice(done, from) + blank(text.slice(from, to));
    done = to;
  }
  return out + text.slice(done);
}

/**
 * Attribute macros between a function's parameter list and its `;`, body, initializer list or trailing
 * return type: glibc's `int remove (const char *__filename) __THROW;`, `__wur`, `__nonnull ((1))`,
 * libstdc++'s `size() const _GLIBCXX_NOEXCEPT {`, `WINAPI`-style upper-case words. Only the macros are
 * blanked; `const`, `&`, `noexcept(…)`, `override` and `final` stay.
 */
export function maskTrailingMacros(text: string): string {
  const ranges: [number, number][] = [];
  // The next `)` is looked for after the run just read: the `)`s of its macros' arguments start none.
  for (
    let close = text.indexOf(')'), at = 0;
    close >= 0;
    close = text.indexOf(')', Math.max(close + 1, at))
  ) {
    const found: [number, number][] = [];
    at = close + 1;
    for (;;) {
      at = skipSpaces(text, at);
      if (text.startsWith('&&', at)) at += 2;
      else if (text[at] === '&') at += 1;
      else {
        const word = identifierAt(text, at);
        if (word === undefined) break;
        if (QUALIFIERS.has(word)) at += word.length;
        else if (word === 'noexcept' || word === 'throw') {
          const open = skipSpaces(text, at + word.length);
          const end = text[open] === '(' ? argsEnd(text, open) : -1;
          at = end < 0 ? at + word.length : end;
        } else if (MACRO_NAME.test(word) || TRAILING_MACRO_NAME.test(word)) {
          const open = skipSpaces(text, at + word.length);
          const end = text[open] === '(' ? argsEnd(text, open) : -1;
          const to = end < 0 ? at + word.length : end;
          found.push([at, to]);
          at = to;
        } else break;
      }
    }
    if (found.length === 0) continue;
    const next = text[at];
    const ends =
      next === ';' ||
      next === '{' ||
      (next === ':' && text[at + 1] !== ':') ||
      text.startsWith('->', at) ||
      /^=\s*(?:0|default|delete)\b/.test(text.slice(at, at + 16));
    if (ends) for (const range of found) ranges.push(range);
  }
  return blankRanges(text, ranges);
}

/**
 * Macros the compiler expands to attributes, to namespace braces that come in pairs, or to nothing,
 * which tree-sitter (not expanding them) reads as a function named after the macro, as ctags would
 * not: a macro alone on its line (`_GLIBCXX_BEGIN_NAMESPACE_VERSION`, `NLOHMANN_JSON_NAMESPACE_BEGIN`,
 * `__BEGIN_DECLS`, `_GLIBCXX20_CONSTEXPR` above a function, `JSON_TRY`, `Q_OBJECT`), macros leading a
 * declaration on its line (`_GLIBCXX_NODISCARD constexpr const T& min(…)`), and one between a
 * namespace's name and its brace (`namespace std _GLIBCXX_VISIBILITY(default) {`).
 */
export function maskDeclarationMacros(text: string): string {
  const ranges: [number, number][] = [];
  const accessLabels: [number, number][] = [];
  for (let lineStart = 0; lineStart < text.length;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const found: [number, number][] = [];
    let at = skipSpaces(text, lineStart, false);
    // Declaration specifiers and macros, in any order (`static _GLIBCXX14_CONSTEXPR void`).
    for (;;) {
      const word = identifierAt(text, at);
      if (word !== undefined && SPECIFIERS.has(word)) {
        at = skipSpaces(text, at + word.length, false);
        continue;
      }
      const end = macroEnd(text, at, false);
      if (end < 0) break;
      found.push([at, end]);
      at = skipSpaces(text, end, false);
    }
    if (found.length > 0) {
      const next = text[at] ?? '';
      // Alone on the line, or followed on it by more of the declaration (a name or a keyword), or by
      // a block inside a function (`JSON_CATCH (...) {}`: indented, unlike a function-defining macro).
      const indented = found[0]![0] > lineStart;
      if (at >= lineEnd || /[A-Za-z_~]/.test(next) || (next === '{' && indented)) {
        for (const range of found) ranges.push(range);
      } else if (next === ':' && text[at + 1] !== ':' && found.length === 1) {
        // An access label made by a macro (`JSON_PRIVATE_UNLESS_TESTED:`, `Q_SIGNALS:`): read as public.
        accessLabels.push(found[0]!);
      }
    }
    lineStart = lineEnd + 1;
  }
  // GCC attributes and MSVC's __declspec, wherever they stand (`memory_order __b __attribute__
  // ((__unused__)) = …` reads as an error): they say nothing of the structure.
  for (const keyword of ['__attribute__', '__declspec']) {
    for (let at = text.indexOf(keyword); at >= 0; at = text.indexOf(keyword, at + keyword.length)) {
      if (at > 0 && /\w/.test(text[at - 1] ?? '')) continue;
      const open = skipSpaces(text, at + keyword.length);
      const end = text[open] === '(' ? argsEnd(text, open) : -1;
      if (end > 0) ranges.push([at, end]);
    }
  }
  // A macro between a declared name and its `;` (`_M_i _GLIBCXX20_INIT(false);`: an initializer).
  for (let at = text.indexOf(';'); at >= 0; at = text.indexOf(';', at + 1)) {
    let close = at - 1;
    while (close >= 0 && isSpace(text.charCodeAt(close))) close--;
    if (text[close] !== ')') continue;
    const open = openingParen(text, close);
    if (open < 0) continue;
    let nameEnd = open - 1;
    while (nameEnd >= 0 && isSpace(text.charCodeAt(nameEnd))) nameEnd--;
    let nameStart = nameEnd;
    while (nameStart > 0 && /\w/.test(text[nameStart - 1] ?? '')) nameStart--;
    const macro = text.slice(nameStart, nameEnd + 1);
    if (!MACRO_NAME.test(macro)) continue;
    let before = nameStart - 1;
    while (before >= 0 && isSpace(text.charCodeAt(before))) before--;
    if (/\w/.test(text[before] ?? '')) ranges.push([nameStart, close + 1]);
  }
  for (let at = text.indexOf('namespace'); at >= 0; at = text.indexOf('namespace', at + 9)) {
    if (at > 0 && /\w/.test(text[at - 1] ?? '')) continue;
    let next = skipSpaces(text, at + 9);
    const name = identifierAt(text, next);
    if (name === undefined) continue;
    next = skipSpaces(text, next + name.length);
    while (text.startsWith('::', next)) {
      const part = identifierAt(text, next + 2);
      if (part === undefined) break;
      next = skipSpaces(text, next + 2 + part.length);
    }
    const end = macroEnd(text, next);
    if (end > next && text[skipSpaces(text, end)] === '{') ranges.push([next, end]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return asPublic(blankRanges(text, merged), accessLabels);
}

/** Writes `public` over each range (padded with spaces; shorter ones are just blanked). */
function asPublic(text: string, ranges: readonly [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let done = 0;
  for (const [from, to] of ranges) {
    const label = to - from >= 6 ? 'public'.padEnd(to - from) : ' '.repeat(to - from);
    out += text.slice(done, from) + label;
    done = to;
  }
  return out + text.slice(done);
}

const DIRECTIVE = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$/;

interface Branch {
  /** Lines of the branch's body: [from, to). */
  from: number;
  to: number;
  /** `#if 0`: never compiled. */
  never: boolean;
}

interface Conditional {
  branches: Branch[];
  /** Its `#endif` (or the end of the file). */
  end: number;
}

/** Braces, parentheses and brackets a line opens (positive) or closes, outside comments and literals. */
function bracketBalance(line: string, state: { comment: boolean }): number[] {
  const balance = [0, 0, 0];
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (state.comment) {
      if (char === '*' && line[i + 1] === '/') {
        state.comment = false;
        i++;
      }
      continue;
    }
    if (char === '/' && line[i + 1] === '/') break;
    if (char === '/' && line[i + 1] === '*') {
      state.comment = true;
      i++;
    } else if (char === '"' || char === "'") {
      for (i++; i < line.length && line[i] !== char; i++) if (line[i] === '\\') i++;
    } else {
      const kind = '{([})]'.indexOf(char ?? '');
      if (kind >= 0) balance[kind % 3]! += kind < 3 ? 1 : -1;
    }
  }
  return balance;
}

/**
 * Chooses the branches of every conditional that tree-sitter sees. The branches of a conditional are
 * all kept when each is balanced on its own (braces, parentheses, brackets) and ends a declaration or
 * statement (not `#if A\n struct X<T>\n#else\n struct X<T, U>\n#endif`): ctags reads those too, and
 * the code a header defines only under `#else` (libstdc++'s basic_string.h after `#if !
 * _GLIBCXX_USE_CXX11_ABI`) is then outlined. When a branch is unbalanced (`#ifdef X\n if (a) {\n#else\n
 * if (b) {\n#endif`), only the first is kept, so the braces balance again. `#if 0` is never kept.
 * Inner conditionals are decided first. Directive lines and dropped branches are blanked.
 */
export function maskConditionalBranches(text: string): string {
  const lines = text.split('\n');
  const directive = new Array<boolean>(lines.length).fill(false);
  const groups: Conditional[] = [];
  const open: Conditional[] = [];
  let continued = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (continued) {
      continued = line.endsWith('\\');
      directive[i] = true;
      continue;
    }
    const match = DIRECTIVE.exec(line);
    if (!match) continue;
    directive[i] = true;
    continued = line.endsWith('\\');
    const [, word, rest = ''] = match;
    const current = open[open.length - 1];
    if (word === 'if' || word === 'ifdef' || word === 'ifndef') {
      const never = word === 'if' && /^\s*0\s*(?:\/[/*].*)?$/.test(rest);
      open.push({ branches: [{ from: i + 1, to: lines.length, never }], end: lines.length });
    } else if (current) {
      const last = current.branches[current.branches.length - 1]!;
      last.to = i;
      if (word === 'endif') {
        current.end = i;
        groups.push(current);
        open.pop();
      } else current.branches.push({ from: i + 1, to: lines.length, never: false });
    }
  }
  // Unterminated conditionals end with the file.
  while (open.length > 0) groups.push(open.pop()!);
  const kept = new Array<boolean>(lines.length).fill(true);
  // Every preprocessor line (`#include`, `#define X {`, a `\` continuation) is no code of a branch.
  const preprocessor = directive.slice();
  for (let i = 0, inDirective = false; i < lines.length; i++) {
    const line = lines[i] as string;
    if (inDirective || /^\s*#/.test(line)) preprocessor[i] = true;
    inDirective = preprocessor[i]! && line.endsWith('\\');
  }
  // Inner conditionals end first: deciding in order of their ends decides inner before outer.
  groups.sort((a, b) => a.end - b.end);
  for (const group of groups) {
    const candidates = group.branches.filter((branch) => !branch.never);
    const balanced = (branch: Branch) => {
      const state = { comment: false };
      const total = [0, 0, 0];
      for (let i = branch.from; i < branch.to; i++) {
        if (preprocessor[i] || !kept[i]) continue;
        const delta = bracketBalance(lines[i] as string, state);
        for (let k = 0; k < 3; k++) total[k]! += delta[k]!;
      }
      return total.every((n) => n === 0);
    };
    // The last code of a branch ends a declaration or statement (`;`, `}`), or there is none.
    const complete = (branch: Branch) => {
      for (let i = branch.to - 1; i >= branch.from; i--) {
        if (preprocessor[i] || !kept[i]) continue;
        const code = (lines[i] as string).replace(/\/\/.*$/, '').trim();
        if (code === '' || code.startsWith('*') || code.endsWith('*/')) continue;
        return code.endsWith(';') || code.endsWith('}');
      }
      return true;
    };
    const keep = candidates.every((branch) => balanced(branch) && complete(branch))
      ? candidates
      : candidates.slice(0, 1);
    for (const branch of group.branches) {
      if (keep.includes(branch)) continue;
      for (let i = branch.from; i < branch.to; i++) kept[i] = false;
    }
  }
  for (let i = 0; i < lines.length; i++) if (directive[i] || !kept[i]) lines[i] = blank(lines[i] as string);
  return lines.join('\n');
}
