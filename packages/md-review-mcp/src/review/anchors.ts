import type { Anchor, LineRange } from './types.js';
import { PREVIEW_CHARS, preview, rangeText, sha256 } from './text.js';

/** The anchor of a comment on lines `range` of a file whose bytes hash to `fileHash`. */
export function makeAnchor(lines: readonly string[], range: LineRange, fileHash: string): Anchor {
  const text = rangeText(lines, range.startLine, range.endLine);
  return { fileContentHash: fileHash, rangeTextHash: sha256(text), preview: preview(text) };
}

export type Placement =
  | { state: 'current'; range: LineRange }
  | { state: 'moved'; range: LineRange }
  | { state: 'lost'; range: LineRange };

/**
 * Where a comment's lines are in the file as it is now: still at its range, moved (the same text found
 * elsewhere — the nearest occurrence wins), or lost (the lines were edited or removed).
 */
export function placeComment(
  lines: readonly string[],
  range: LineRange,
  anchor: Pick<Anchor, 'rangeTextHash' | 'preview'>,
): Placement {
  const length = range.endLine - range.startLine + 1;
  if (
    range.endLine <= lines.length &&
    sha256(rangeText(lines, range.startLine, range.endLine)) === anchor.rangeTextHash
  ) {
    return { state: 'current', range };
  }
  // Only windows whose first line agrees with the preview are hashed, so a 5,000-line file stays cheap.
  const head = previewHead(anchor.preview);
  let best: LineRange | undefined;
  for (let start = 1; start + length - 1 <= lines.length; start++) {
    if (!head.matches(lines[start - 1]!)) continue;
    if (sha256(rangeText(lines, start, start + length - 1)) !== anchor.rangeTextHash) continue;
    if (!best || Math.abs(start - range.startLine) < Math.abs(best.startLine - range.startLine)) {
      best = { startLine: start, endLine: start + length - 1 };
    }
  }
  return best ? { state: 'moved', range: best } : { state: 'lost', range };
}

/** A test on a candidate first line derived from the preview (whole first line, or its cut start). */
function previewHead(text: string): { matches(line: string): boolean } {
  const newline = text.indexOf('\n');
  if (newline >= 0) {
    const first = text.slice(0, newline);
    return { matches: (line) => line === first };
  }
  const cut = Array.from(text).length > PREVIEW_CHARS && text.endsWith('…');
  const start = cut ? text.slice(0, -1) : text;
  return { matches: (line) => (cut ? line.startsWith(start) : line === start) };
}
