import type { LanguageFn } from 'highlight.js';

/**
 * The languages the page highlights (highlight.js's "common" set), each its own chunk loaded only when a
 * document has a code block in it; names and aliases as highlight.js registers them. `needs`: languages
 * whose blocks embed others (HTML's scripts and styles, PHP templates, shell sessions, Python sessions).
 */
interface CodeLanguage {
  load: () => Promise<{ default: LanguageFn }>;
  aliases?: readonly string[];
  needs?: readonly string[];
}

export const CODE_LANGUAGES: Readonly<Record<string, CodeLanguage>> = {
  bash: { load: () => import('highlight.js/lib/languages/bash'), aliases: ['sh', 'zsh'] },
  c: { load: () => import('highlight.js/lib/languages/c'), aliases: ['h'] },
  cpp: {
    load: () => import('highlight.js/lib/languages/cpp'),
    aliases: ['cc', 'c++', 'h++', 'hpp', 'hh', 'hxx', 'cxx'],
  },
  csharp: { load: () => import('highlight.js/lib/languages/csharp'), aliases: ['cs', 'c#'] },
  css: { load: () => import('highlight.js/lib/languages/css') },
  diff: { load: () => import('highlight.js/lib/languages/diff'), aliases: ['patch'] },
  go: { load: () => import('highlight.js/lib/languages/go'), aliases: ['golang'] },
  graphql: { load: () => import('highlight.js/lib/languages/graphql'), aliases: ['gql'] },
  ini: { load: () => import('highlight.js/lib/languages/ini'), aliases: ['toml'] },
  java: { load: () => import('highlight.js/lib/languages/java'), aliases: ['jsp'] },
  javascript: {
    load: () => import('highlight.js/lib/languages/javascript'),
    aliases: ['js', 'jsx', 'mjs', 'cjs'],
  },
  json: { load: () => import('highlight.js/lib/languages/json'), aliases: ['jsonc', 'json5'] },
  kotlin: { load: () => import('highlight.js/lib/languages/kotlin'), aliases: ['kt', 'kts', 'ktm', 'ktx'] },
  less: { load: () => import('highlight.js/lib/languages/less') },
  lua: { load: () => import('highlight.js/lib/languages/lua'), aliases: ['pluto'] },
  makefile: { load: () => import('highlight.js/lib/languages/makefile'), aliases: ['mk', 'mak', 'make'] },
  markdown: { load: () => import('highlight.js/lib/languages/markdown'), aliases: ['md', 'mkdown', 'mkd'] },
  objectivec: {
    load: () => import('highlight.js/lib/languages/objectivec'),
    aliases: ['mm', 'objc', 'obj-c', 'obj-c++', 'objective-c++'],
  },
  perl: { load: () => import('highlight.js/lib/languages/perl'), aliases: ['pl', 'pm'] },
  php: { load: () => import('highlight.js/lib/languages/php') },
  'php-template': {
    load: () => import('highlight.js/lib/languages/php-template'),
    needs: ['php', 'xml'],
  },
  plaintext: { load: () => import('highlight.js/lib/languages/plaintext'), aliases: ['text', 'txt'] },
  python: { load: () => import('highlight.js/lib/languages/python'), aliases: ['py', 'gyp', 'ipython'] },
  'python-repl': {
    load: () => import('highlight.js/lib/languages/python-repl'),
    aliases: ['pycon'],
    needs: ['python'],
  },
  r: { load: () => import('highlight.js/lib/languages/r') },
  ruby: {
    load: () => import('highlight.js/lib/languages/ruby'),
    aliases: ['rb', 'gemspec', 'podspec', 'thor', 'irb'],
  },
  rust: { load: () => import('highlight.js/lib/languages/rust'), aliases: ['rs'] },
  scss: { load: () => import('highlight.js/lib/languages/scss') },
  shell: {
    load: () => import('highlight.js/lib/languages/shell'),
    aliases: ['console', 'shellsession'],
    needs: ['bash'],
  },
  sql: { load: () => import('highlight.js/lib/languages/sql') },
  swift: { load: () => import('highlight.js/lib/languages/swift') },
  typescript: {
    load: () => import('highlight.js/lib/languages/typescript'),
    aliases: ['ts', 'tsx', 'mts', 'cts'],
  },
  vbnet: { load: () => import('highlight.js/lib/languages/vbnet'), aliases: ['vb'] },
  wasm: { load: () => import('highlight.js/lib/languages/wasm') },
  xml: {
    load: () => import('highlight.js/lib/languages/xml'),
    aliases: ['html', 'xhtml', 'rss', 'atom', 'xjb', 'xsd', 'xsl', 'plist', 'wsf', 'svg'],
    needs: ['css', 'javascript'],
  },
  yaml: { load: () => import('highlight.js/lib/languages/yaml'), aliases: ['yml'] },
};

const BY_ALIAS = new Map<string, string>(
  Object.entries(CODE_LANGUAGES).flatMap(([name, language]) => [
    [name, name] as [string, string],
    ...(language.aliases ?? []).map((alias) => [alias, name] as [string, string]),
  ]),
);

/** The registered name of a fence's language (`ts` → `typescript`), or undefined when not highlighted. */
export function codeLanguageOf(info: string): string | undefined {
  return BY_ALIAS.get(info.toLowerCase());
}

/** Every language a document's code fences name, with the languages they embed. */
export function codeLanguagesIn(source: string): Set<string> {
  const found = new Set<string>();
  const add = (name: string) => {
    if (found.has(name)) return;
    found.add(name);
    for (const needed of CODE_LANGUAGES[name]?.needs ?? []) add(needed);
  };
  for (const match of source.matchAll(/^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)/gm)) {
    const name = codeLanguageOf(match[1]!);
    if (name) add(name);
  }
  return found;
}
