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

/**
 * Attribute macros between a prototype's parameter list and its `;` or body: glibc's
 * `int remove (const char *__filename) __THROW;`, `__wur`, `__nonnull ((1))`, `WINAPI_INLINE`. Only
 * `__`-prefixed and upper-case names, with an optional argument list, are taken to be macros.
 */
const TRAILING_MACROS = /\)((?:\s+(?:__\w+|[A-Z][A-Z0-9_]*)(?:\s*\((?:[^()]|\([^()]*\))*\))?)+)(?=\s*[;{])/g;

/** Blanks attribute macros after a prototype's parameters (`f (void) __THROW;` reads as an error). */
export function maskTrailingMacros(text: string): string {
  return text.replace(TRAILING_MACROS, (_whole: string, macros: string) => `)${blank(macros)}`);
}

const DIRECTIVE = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$/;

/**
 * Keeps one branch of every conditional: the first one, or the `#else` of an `#if 0`, as ctags reads
 * C. Directive lines and the other branches are blanked, so braces and parentheses that the branches
 * repeat (`#ifdef X\n if (a) {\n#else\n if (b) {\n#endif`) balance again.
 */
export function maskConditionalBranches(text: string): string {
  const lines = text.split('\n');
  // Per open conditional: is the branch being read kept, and has a kept branch been seen.
  const stack: { keep: boolean; taken: boolean }[] = [];
  const active = () => stack.every((frame) => frame.keep);
  let continued = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (continued) {
      continued = line.endsWith('\\');
      lines[i] = blank(line);
      continue;
    }
    const directive = DIRECTIVE.exec(line);
    if (directive) {
      const [, word, rest = ''] = directive;
      if (word === 'if' || word === 'ifdef' || word === 'ifndef') {
        const never = word === 'if' && /^\s*0\s*(?:\/[/*].*)?$/.test(rest);
        stack.push({ keep: !never, taken: !never });
      } else if (word === 'endif') {
        stack.pop();
      } else {
        const frame = stack[stack.length - 1];
        if (frame) {
          frame.keep = !frame.taken;
          frame.taken = true;
        }
      }
      continued = line.endsWith('\\');
      lines[i] = blank(line);
      continue;
    }
    if (!active()) lines[i] = blank(line);
  }
  return lines.join('\n');
}
