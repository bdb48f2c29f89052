import type { OutputMode } from './options.js';

export type CaseMode = 'smart' | 'sensitive' | 'insensitive';

/** Everything that changes what ripgrep finds. Every field is part of the cache key. */
export interface SearchQuery {
  /** Absolute real paths: directories (roots mode) or files (files mode). */
  targets: string[];
  targetKind: 'roots' | 'files';
  query: string;
  caseMode: CaseMode;
  fixedStrings: boolean;
  word: boolean;
  multiline: boolean;
  includeGlobs: string[];
  excludeGlobs: string[];
  hidden: boolean;
  noIgnore: boolean;
  maxFilesize?: string;
  contextBefore: number;
  contextAfter: number;
  maxCount: number;
  mode: OutputMode;
  /** The server's deny globs, excluded from every search. */
  denyGlobs: string[];
}

export interface SearchMatch {
  /** Absolute path (shown root-relative by the tool). */
  file: string;
  line: number;
  /** 1-based column (in characters) of the first match on the line. */
  column: number;
  text: string;
  /** Context lines just before the match that no earlier match of the file already showed. */
  before?: string[];
  /** Context lines just after the match (stops at the next match). */
  after?: string[];
}

export interface FileCount {
  file: string;
  count: number;
}

/**
 * What a search found, before it is shaped for an output mode and paged: every file's match count from
 * one counting run, and the match rows of the first files in path order, read as pages need them.
 */
export interface SearchOutcome {
  /** The rows of the first `rowFiles` files of fileCounts, in path order (then line order). */
  matches: SearchMatch[];
  /** How many files of fileCounts the rows cover (their rows are all in matches). */
  rowFiles: number;
  /** Per-file match counts, in path order: every file with a match. */
  fileCounts: FileCount[];
  /** Every match of the search; absent when the search stopped at its time limit (not all files seen). */
  totalMatches?: number;
  /** The rows stopped at the memory cap (more exist; the totals count them all). */
  limitHit: boolean;
  timedOut: boolean;
  /** Non-fatal ripgrep messages (unreadable files and the like). */
  warnings: string[];
  /** No file was searched, and ignore files above these roots (absolute) hid every file there. */
  ignoredAbove?: string[];
  /** When the counting run started (ms since the epoch): a file changed later no longer matches it. */
  countedAt?: number;
  /**
   * Match lines too long to keep whole: read only in part while streaming (the first MAX_LONG_LINES of
   * the rows read; an answer warns of those its page shows).
   */
  longLines?: { file: string; line: number; bytes: number }[];
}
