import type { SearchQuery } from './types.js';

const CASE_FLAG = {
  smart: '--smart-case',
  sensitive: '--case-sensitive',
  insensitive: '--ignore-case',
} as const;

/**
 * The server's deny globs as ripgrep excludes, in both Unicode forms: ripgrep compares bytes, and a
 * folder named on macOS is stored decomposed (NFD). Every result is checked against the policy again.
 * A `!glob` re-allows what an earlier glob denied; ripgrep globs cannot say that (a glob without `!`
 * would list only what it matches), so with one among them none go to ripgrep and that check decides.
 */
export function denyExcludeGlobs(denyGlobs: readonly string[]): string[] {
  if (denyGlobs.some((glob) => glob.startsWith('!'))) return [];
  return inBothForms(denyGlobs);
}

/**
 * Globs in both Unicode forms, each beside the other (ripgrep compares bytes: a name typed composed,
 * `がぎ*`, never matches one stored decomposed, as macOS stores the names its apps and downloads write).
 * Two include globs match what either matches, two excludes exclude what either does.
 */
export function inBothForms(globs: readonly string[]): string[] {
  return [...new Set(globs.flatMap((glob) => [glob.normalize('NFC'), glob.normalize('NFD')]))];
}

/** Filters that decide which files are searched (shared by the search and by the cache's file stamp). */
export function searchFileFilterArgs(query: SearchQuery): string[] {
  const args: string[] = [];
  if (query.hidden) args.push('--hidden');
  // Honour .gitignore outside a git repository too (ripgrep only reads it inside one by default).
  args.push(query.noIgnore ? '--no-ignore' : '--no-require-git');
  if (query.maxFilesize) args.push('--max-filesize', query.maxFilesize);
  for (const glob of inBothForms(query.includeGlobs)) args.push('--glob', glob);
  for (const glob of [...inBothForms(query.excludeGlobs), ...denyExcludeGlobs(query.denyGlobs)])
    args.push('--glob', `!${glob}`);
  return args;
}

/** The ripgrep command line for a query. Counting modes use --count-matches; the rest use --json. */
export function searchArgs(query: SearchQuery): string[] {
  const counting = query.mode === 'total_only' || query.mode === 'count_only_matches';
  // --with-filename: with one file named, rg would print its count alone.
  const args = counting ? ['--count-matches', '--null', '--with-filename'] : ['--json'];
  args.push(CASE_FLAG[query.caseMode]);
  if (query.fixedStrings) args.push('--fixed-strings');
  if (query.word) args.push('--word-regexp');
  if (query.multiline) args.push('--multiline');
  if (!counting) {
    if (query.contextBefore > 0) args.push('--before-context', String(query.contextBefore));
    if (query.contextAfter > 0) args.push('--after-context', String(query.contextAfter));
  }
  args.push('-m', String(query.maxCount));
  args.push(...searchFileFilterArgs(query));
  // -e keeps a query that starts with "-" from being read as a flag; "--" ends the options.
  args.push('-e', query.query, '--', ...query.targets);
  return args;
}
