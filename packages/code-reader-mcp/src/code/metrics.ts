import { createHash } from 'node:crypto';
import type { Language, Node, Query, Tree, TreeCursor } from 'web-tree-sitter';
import { Yielder } from '../util/yield.js';
import type { LanguageId } from './languages.js';
import { COMMENT_QUERY_MAX_CHARS, queriedCommentRanges } from './comment-query.js';

export interface LineMetrics {
  total_lines: number;
  code_lines: number;
  comment_lines: number;
  blank_lines: number;
}

export interface FileMetrics extends LineMetrics {
  bytes: number;
  /** First 16 hex digits of the SHA-256 of the content. */
  content_hash: string;
  /** o200k_base tokens of the whole file. */
  tokens: number;
}

/** Comment nodes as the grammar names them ("comment", "line_comment", "block_comment", …). */
export function isCommentNode(node: Node): boolean {
  return node.type.includes('comment');
}

/**
 * A Python string that is a statement of its own (a docstring, or a string used as a block comment) is
 * documentation, not code: counted as comment lines, as cloc and most metrics tools count it.
 */
function isDocString(cursor: TreeCursor): boolean {
  if (cursor.nodeType !== 'expression_statement') return false;
  const node = cursor.currentNode;
  return node.namedChildCount === 1 && node.firstNamedChild?.type === 'string';
}

/**
 * [start, end) character ranges of every comment node in the tree (and, in Python, of docstrings).
 * The walk gives the event loop a turn now and then (a big file has millions of nodes).
 */
export async function commentRanges(
  tree: Tree,
  language?: LanguageId,
  yielder: Yielder = new Yielder(),
): Promise<[number, number][]> {
  const ranges: [number, number][] = [];
  const cursor = tree.walk();
  const python = language === 'python';
  try {
    // Depth-first walk with a cursor: far cheaper than materialising children arrays.
    let descend = true;
    for (;;) {
      if (descend && (cursor.nodeType.includes('comment') || (python && isDocString(cursor)))) {
        ranges.push([cursor.startIndex, cursor.endIndex]);
        descend = false;
      }
      if (yielder.due()) await yielder.pause();
      if (descend && cursor.gotoFirstChild()) continue;
      if (cursor.gotoNextSibling()) {
        descend = true;
        continue;
      }
      let climbed = false;
      while (cursor.gotoParent()) {
        if (cursor.gotoNextSibling()) {
          climbed = true;
          break;
        }
      }
      if (!climbed) break;
      descend = true;
    }
  } finally {
    cursor.delete();
  }
  return ranges;
}

/**
 * Counts lines: blank (only whitespace), comment (every non-blank character inside a comment node),
 * code (anything else). Without comment ranges (no grammar) every non-blank line is code. A `#!` first
 * line is code, as cloc counts it: it tells the system how to run the file (grammars read it as a comment).
 */
export function lineMetrics(text: string, comments: [number, number][] = []): LineMetrics {
  const inComment = new Uint8Array(text.length);
  for (const [start, end] of comments) inComment.fill(1, start, end);
  const shebang = text.startsWith('#!') ? 0 : text.startsWith('\uFEFF#!') ? 1 : -1;
  if (shebang >= 0) {
    const end = text.indexOf('\n');
    inComment.fill(0, shebang, end < 0 ? text.length : end);
  }
  let total = 0;
  let blank = 0;
  let comment = 0;
  let code = 0;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    total++;
    let hasCode = false;
    let hasComment = false;
    for (let i = lineStart; i < lineEnd; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 32 || ch === 9 || ch === 13 || ch === 12 || ch === 11 || ch === 0xfeff) continue;
      if (inComment[i]) hasComment = true;
      else {
        hasCode = true;
        break;
      }
    }
    if (hasCode) code++;
    else if (hasComment) comment++;
    else blank++;
    lineStart = lineEnd + 1;
  }
  return { total_lines: total, code_lines: code, comment_lines: comment, blank_lines: blank };
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

/**
 * Line counts of a source, with comment lines taken from its tree (every non-blank line is code without
 * one). `parsed` (the tree's grammar and its query compiler) lets a small file use one query for its
 * comments instead of the walk.
 */
export async function lineMetricsOf(
  text: string,
  tree: Tree | undefined,
  language?: LanguageId,
  yielder: Yielder = new Yielder(),
  parsed?: { language: Language; query: (source: string) => Query },
): Promise<LineMetrics> {
  let comments: [number, number][] = [];
  if (tree && parsed && text.length <= COMMENT_QUERY_MAX_CHARS)
    comments = queriedCommentRanges(tree, parsed.language, language, parsed.query);
  else if (tree) comments = await commentRanges(tree, language, yielder);
  return lineMetrics(text, comments);
}

export function unsupportedWarning(language: LanguageId | undefined, file: string): string | undefined {
  if (language) return undefined;
  return `No grammar for ${file}: line metrics only (comment lines are counted as code; no structure). Supported: TypeScript, TSX, JavaScript, Python, Java, Go, Rust, C, C++, C#, Ruby, PHP, Bash.`;
}
