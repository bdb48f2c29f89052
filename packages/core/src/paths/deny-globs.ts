import picomatch from 'picomatch';
import { ToolError } from '../errors.js';

interface Rule {
  /** `!pattern`: re-allows what an earlier pattern denied. */
  negate: boolean;
  /** Had a `/` before its end: matched against the whole root-relative path, else against each name. */
  anchored: boolean;
  test: (path: string) => boolean;
}

/**
 * Puts a deny glob in the form the matcher and ripgrep expect. Backslashes become `/`: agents write
 * Windows-style globs on any OS (as they do paths), and on POSIX picomatch would read `secrets\**` as an
 * escaped `*` that matches nothing, silently protecting nothing. A literal metacharacter is written as a
 * class instead (`[*]`).
 */
export function normalizeDenyGlob(pattern: string): string {
  return pattern.trim().replace(/\\/g, '/');
}

/**
 * Why a glob is malformed (an unclosed `[` or `{`, a `}` without `{`, a range such as `[z-a]`), or
 * undefined. ripgrep refuses such a glob, and code-reader hands the deny globs to it: one malformed
 * deny glob would fail every listing and search, blaming the caller. picomatch would read it literally.
 */
export function globProblem(glob: string): string | undefined {
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === '[') {
      let j = i + 1;
      if (glob[j] === '!' || glob[j] === '^') j++;
      if (glob[j] === ']') j++; // first in a class, `]` is itself
      for (; j < glob.length && glob[j] !== ']'; j++) {
        const [from, to] = [glob[j - 1]!, glob[j + 1]];
        if (glob[j] === '-' && j > i + 1 && to !== undefined && to !== ']' && from > to)
          return `the range ${from}-${to} runs backwards`;
      }
      if (j >= glob.length) return 'a [ is never closed';
      i = j;
    } else if (char === '{') braces++;
    else if (char === '}' && --braces < 0) return 'a } has no {';
  }
  return braces > 0 ? 'a { is never closed' : undefined;
}

/**
 * Names compare in Unicode NFC: macOS (and files copied from it) store names decomposed (NFD), so a
 * folder `café` on disk may not be the bytes of the glob `café/` a user typed. Globs and paths are both
 * put in NFC before matching.
 */
function nfc(text: string): string {
  return text.normalize('NFC');
}

/**
 * Deny globs, matched on the root-relative path with `/` separators, with .gitignore semantics:
 * - a glob with no `/` except a trailing one matches a name at any depth (`.env`, `*.pem`, `secrets/`);
 * - any other `/` anchors it at the root (`src/gen/**`, `/secrets/`; the leading `/` is optional);
 * - a trailing `/` names a directory; it is also applied to a file of that name, since callers cannot
 *   always tell which one a path is, and refusing more is the safe side;
 * - denying a directory denies everything below it (every ancestor of the path is tested);
 * - `!glob` re-allows a path an earlier glob denied (the last matching glob wins), but, as in git, never
 *   below a denied directory.
 */
export class DenyGlobs {
  /** The normalised globs, in order (also handed to ripgrep as excludes by code-reader). */
  readonly patterns: readonly string[];
  private readonly rules: readonly Rule[];

  constructor(patterns: readonly string[], options: { caseInsensitive?: boolean } = {}) {
    const nocase = options.caseInsensitive ?? false;
    const compiled = patterns.map(normalizeDenyGlob).flatMap((pattern) => {
      const problem = globProblem(pattern);
      if (problem !== undefined)
        throw new ToolError('INVALID_ARGUMENT', `The deny glob "${pattern}" is malformed: ${problem}.`, {
          hint: 'Write a literal [, { or } as a class: [[], [{], [}].',
          details: { deny_glob: pattern },
        });
      const negate = pattern.startsWith('!');
      const body = (negate ? pattern.slice(1) : pattern).replace(/\/+$/, '');
      const glob = body.replace(/^\/+/, '');
      if (glob === '') return []; // '', '/', '!': nothing to match
      const rule = {
        negate,
        anchored: body.includes('/'),
        test: picomatch(nfc(glob), { dot: true, nocase }),
      };
      return [{ pattern, rule }];
    });
    this.patterns = compiled.map((c) => c.pattern);
    this.rules = compiled.map((c) => c.rule);
  }

  /** No glob to match (the usual case): nothing is denied. */
  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** The first denied prefix of `relativePath` (e.g. `secrets` for `secrets/a.txt`), or undefined. */
  match(relativePath: string): string | undefined {
    if (relativePath === '' || this.rules.length === 0) return undefined;
    const parts = nfc(relativePath)
      .split('/')
      .filter((part) => part !== '');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      let denied = false;
      for (const rule of this.rules) {
        if (rule.test(rule.anchored ? prefix : parts[i - 1]!)) denied = !rule.negate;
      }
      if (denied) return prefix;
    }
    return undefined;
  }
}
