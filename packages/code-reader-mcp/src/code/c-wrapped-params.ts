// K&R-compatible headers wrap each prototype's parameter list in a macro, so that old compilers see
// `()`: zlib's `ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));`, BSD's `__P((int))`,
// Tcl's `_ANSI_ARGS_((…))`. tree-sitter, not expanding it, reads a function named after the macro
// (`OF`, listed once per line it could parse) and loses the API's names. Unwrapping the list and
// blanking the export macros before the name lets it read `int deflate (z_streamp strm, int flush);`.
import { argsEnd, blankRanges, skipSpaces } from './c-mask.js';

/** `NAME MACRO((` or `(*name) MACRO((`: the macro and the start of its doubled parentheses. */
const WRAPPER = /\b([A-Za-z_]\w*)[ \t]*\([ \t\r\n]*\(/g;

/** Words after which `WORD((…))` is an expression, not a prototype (`return f((x));`). */
const EXPRESSION_WORDS = new Set([
  'return',
  'sizeof',
  'case',
  'else',
  'do',
  'goto',
  'typeof',
  'alignof',
  'defined',
  'if',
  'while',
  'for',
  'switch',
  'throw',
  'new',
  'delete',
  'co_return',
  'co_yield',
  'co_await',
  'operator',
]);

/** Words of declaration specifiers that are no macro and no type name. */
const SPECIFIER_WORDS = new Set([
  'extern',
  'static',
  'inline',
  'const',
  'volatile',
  'register',
  'signed',
  'unsigned',
  'short',
  'long',
]);
const TAG_WORDS = new Set(['struct', 'union', 'enum']);
const UPPER = /^[A-Z][A-Z0-9_]*$/;

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /\w/.test(char);
}

/** Whether the line holding `at` is a preprocessor line (`#define f(a) g((a))`). */
function onDirective(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return text[skipSpaces(text, lineStart, false)] === '#';
}

/**
 * The words (with their offsets) of the declaration specifiers before a prototype's name at `nameStart`,
 * back to the previous `;`, brace, comment or preprocessor line; `*` is passed over.
 */
function specifiersBefore(text: string, nameStart: number): { word: string; at: number }[] {
  const words: { word: string; at: number }[] = [];
  let at = nameStart;
  while (words.length < 16) {
    let before = at;
    while (before > 0 && /\s/.test(text[before - 1] ?? '')) before--;
    if (text.slice(before, at).includes('\n') && onDirective(text, before - 1)) break;
    if (text[before - 1] === '*') {
      at = before - 1;
      continue;
    }
    let start = before;
    while (start > 0 && isWordChar(text[start - 1])) start--;
    if (start === before) break;
    words.unshift({ word: text.slice(start, before), at: start });
    at = start;
  }
  return words;
}

/**
 * The upper-case macros among the specifiers of a prototype (`ZEXTERN`, `ZEXPORT`, `WINAPI`): all of
 * them when a type is written too (`int`, `gzFile`), else all but the first (taken for the type).
 */
function exportMacros(words: readonly { word: string; at: number }[]): [number, number][] {
  const macros: { word: string; at: number }[] = [];
  let typed = false;
  words.forEach(({ word }, index) => {
    const tag = index > 0 && TAG_WORDS.has(words[index - 1]!.word);
    if (TAG_WORDS.has(word) || SPECIFIER_WORDS.has(word)) return;
    if (!tag && UPPER.test(word)) macros.push(words[index]!);
    else typed = true;
  });
  const blanked = typed ? macros : macros.slice(1);
  return blanked.map(({ word, at }) => [at, at + word.length]);
}

/**
 * Unwraps macro-wrapped parameter lists of prototypes (`NAME MACRO((params))` → `NAME (params)`, and a
 * function-pointer typedef's `(*name) MACRO((params))`), blanking the export macros before the name.
 * Characters become spaces: offsets and lines stay those of the file.
 */
export function maskWrappedParameters(text: string): string {
  const ranges: [number, number][] = [];
  for (const match of text.matchAll(WRAPPER)) {
    const macroStart = match.index;
    const outerOpen = text.indexOf('(', macroStart + match[1]!.length);
    const innerOpen = skipSpaces(text, outerOpen + 1);
    const innerEnd = argsEnd(text, innerOpen);
    if (innerEnd < 0) continue;
    const outerClose = skipSpaces(text, innerEnd);
    if (text[outerClose] !== ')') continue;
    const after = text[skipSpaces(text, outerClose + 1)] ?? '';
    if (!/[;,{A-Za-z_]/.test(after) || onDirective(text, macroStart)) continue;
    let before = macroStart;
    while (before > 0 && /\s/.test(text[before - 1] ?? '')) before--;
    const previous = text[before - 1];
    const unwrap: [number, number][] = [
      [macroStart, innerOpen],
      [innerEnd, outerClose + 1],
    ];
    if (previous === ')') {
      // A function pointer's declarator: `(*alloc_func) OF((…))`, not a cast `(int) f((x))`.
      const open = text.lastIndexOf('(', before - 1);
      if (open < before - 256 || text[skipSpaces(text, open + 1)] !== '*') continue;
      ranges.push(...unwrap);
      continue;
    }
    if (!isWordChar(previous)) continue;
    let nameStart = before;
    while (nameStart > 0 && isWordChar(text[nameStart - 1])) nameStart--;
    if (EXPRESSION_WORDS.has(text.slice(nameStart, before))) continue;
    ranges.push(...exportMacros(specifiersBefore(text, nameStart)), ...unwrap);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = merged[merged.length - 1];
    if (last && from < last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return blankRanges(text, merged);
}
