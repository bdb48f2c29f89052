import { createHash } from 'node:crypto';
import type { Node, Tree } from 'web-tree-sitter';
import { loadTokenizer } from '../tokens/count.js';
import type { LanguageId } from './languages.js';

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

/** [start, end) character ranges of every comment node in the tree. */
export function commentRanges(tree: Tree): [number, number][] {
  const ranges: [number, number][] = [];
  const cursor = tree.walk();
  // Depth-first walk with a cursor: far cheaper than materialising children arrays.
  let descend = true;
  for (;;) {
    if (descend && cursor.nodeType.includes('comment')) {
      ranges.push([cursor.startIndex, cursor.endIndex]);
      descend = false;
    }
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
  cursor.delete();
  return ranges;
}

/**
 * Counts lines: blank (only whitespace), comment (every non-blank character inside a comment node),
 * code (anything else). Without comment ranges (no grammar) every non-blank line is code.
 */
export function lineMetrics(text: string, comments: [number, number][] = []): LineMetrics {
  const inComment = new Uint8Array(text.length);
  for (const [start, end] of comments) inComment.fill(1, start, end);
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

export async function fileMetrics(
  text: string,
  bytes: number,
  tree: Tree | undefined,
  hash = contentHash(text),
): Promise<FileMetrics> {
  const count = await loadTokenizer();
  return {
    ...lineMetrics(text, tree ? commentRanges(tree) : []),
    bytes,
    content_hash: hash,
    tokens: count(text),
  };
}

export function unsupportedWarning(language: LanguageId | undefined, file: string): string | undefined {
  if (language) return undefined;
  return `No grammar for ${file}: line metrics only (comment lines are counted as code; no structure). Supported: TypeScript, TSX, JavaScript, Python, Java, Go, Rust, C, C++, C#, Ruby, PHP, Bash.`;
}
