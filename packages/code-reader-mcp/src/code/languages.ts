import path from 'node:path';

export const LANGUAGES = [
  'typescript',
  'tsx',
  'javascript',
  'python',
  'java',
  'go',
  'rust',
  'c',
  'cpp',
  'csharp',
  'ruby',
  'php',
  'bash',
] as const;

export type LanguageId = (typeof LANGUAGES)[number];

const BY_EXTENSION: Record<string, LanguageId> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  pyw: 'python',
  java: 'java',
  go: 'go',
  rs: 'rust',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  'c++': 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  'h++': 'cpp',
  ipp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  php: 'php',
  phtml: 'php',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  ksh: 'bash',
};

const BY_NAME: Record<string, LanguageId> = {
  Rakefile: 'ruby',
  Gemfile: 'ruby',
  '.bashrc': 'bash',
  '.bash_profile': 'bash',
  '.profile': 'bash',
  PKGBUILD: 'bash',
};

const BY_INTERPRETER: [RegExp, LanguageId][] = [
  [/^python[0-9.]*$/, 'python'],
  [/^(node|nodejs|bun)$/, 'javascript'],
  [/^(deno|ts-node|tsx)$/, 'typescript'],
  [/^ruby[0-9.]*$/, 'ruby'],
  [/^php[0-9.]*$/, 'php'],
  [/^(ba|da|z|k)?sh$/, 'bash'],
];

/** The interpreter named by a "#!" line ("#!/usr/bin/env -S python3 -u" → python3). */
function interpreterOf(firstLine: string): string | undefined {
  // A byte order mark before "#!" (a file read without stripping it) still names the interpreter.
  const line = firstLine.startsWith('\uFEFF') ? firstLine.slice(1) : firstLine;
  if (!line.startsWith('#!')) return undefined;
  const words = line.slice(2).trim().split(/\s+/);
  let program = path.posix.basename(words[0] ?? '');
  let rest = words.slice(1);
  if (program === 'env') {
    rest = rest.filter((word) => !word.startsWith('-'));
    program = rest[0] ?? '';
  }
  return program;
}

/**
 * What only C++ writes, at the start of a line (comments and strings rarely start lines with them):
 * a namespace, a template, an access label, a class with a base or body, `using namespace`.
 */
const CPP_MARKERS =
  /^[ \t]*(?:namespace\s+\w+(?:\s*::\s*\w+)*\s*(?:\{|$|_)|template\s*<|(?:public|private|protected)\s*:(?!:)|class\s+\w+\s*(?:final\s*)?[:{]|using\s+namespace\s)/m;
/** How much of a `.h` file is looked at to tell C++ from C. */
const SNIFF_CHARS = 64 * 1024;

/** A `.h` file written in C++ (libstdc++'s bits/, Qt, Boost): parsed with the C++ grammar, as ctags does. */
export function looksLikeCpp(text: string): boolean {
  return CPP_MARKERS.test(text.length > SNIFF_CHARS ? text.slice(0, SNIFF_CHARS) : text);
}

/**
 * Detects the language by extension or well-known name, then by the shebang line. `text` is the file's
 * text, or its start: `.h` files are C unless they read as C++, and the first line may name the
 * interpreter.
 */
export function detectLanguage(filePath: string, text?: string): LanguageId | undefined {
  const base = path.basename(filePath);
  const byName = BY_NAME[base];
  if (byName) return byName;
  const ext = path.extname(base).slice(1).toLowerCase();
  const byExt = ext ? BY_EXTENSION[ext] : undefined;
  if (byExt === 'c' && ext === 'h' && text !== undefined && looksLikeCpp(text)) return 'cpp';
  if (byExt) return byExt;
  const head = text?.slice(0, 256);
  const interpreter = head === undefined ? undefined : interpreterOf(head.split('\n', 1)[0] ?? '');
  if (!interpreter) return undefined;
  return BY_INTERPRETER.find(([pattern]) => pattern.test(interpreter))?.[1];
}
