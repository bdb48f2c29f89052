import { createHash } from 'node:crypto';

/** sha256 of bytes or a string (UTF-8), in hex: the hashes the result's anchors carry. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A Markdown file as the review sees it: its bytes' hash and its lines. */
export interface FileText {
  hash: string;
  /** The text, UTF-8 decoded, BOM dropped, line ends kept as in the file. */
  text: string;
  /** Lines without their line ends; a final newline does not start another line. */
  lines: string[];
}

export function fileText(bytes: Uint8Array): FileText {
  let text = Buffer.from(bytes).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { hash: sha256(bytes), text, lines: splitLines(text) };
}

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text of lines start..end (1-based, inclusive), joined with "\n". */
export function rangeText(lines: readonly string[], startLine: number, endLine: number): string {
  return lines.slice(startLine - 1, endLine).join('\n');
}

export const PREVIEW_CHARS = 200;

/** The start of a text, cut at a code point boundary, with "…" when cut. */
export function preview(text: string, max = PREVIEW_CHARS): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max).join('')}…`;
}
