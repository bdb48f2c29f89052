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
  // Only windows whose first line agrees with the preview are hashed, so a 5,000-line file stays cheap;
  // they are tried outwards from where the comment was, so the first found is the nearest (the earlier
  // of two as near). Lines that all agree with the preview (a run of blank lines) would make every window
  // a candidate: the text hashed is bounded, past which the comment counts as lost.
  const head = previewHead(anchor.preview);
  const last = lines.length - length + 1;
  // Outwards from the comment's old start, brought inside the file (same order, nearest first).
  const from = Math.min(Math.max(range.startLine, 1), Math.max(last, 1));
  let budget = MAX_CHARS_HASHED;
  for (let distance = 0; distance < Math.max(from, last - from + 1); distance++) {
    for (const start of distance === 0 ? [from] : [from - distance, from + distance]) {
      if (start < 1 || start > last || !head.matches(lines[start - 1]!)) continue;
      const text = rangeText(lines, start, start + length - 1);
      if (sha256(text) === anchor.rangeTextHash)
        return { state: 'moved', range: { startLine: start, endLine: start + length - 1 } };
      budget -= text.length + 1;
      if (budget < 0) return { state: 'lost', range };
    }
  }
  return { state: 'lost', range };
}

/** Characters hashed at most while looking for one comment's lines (a 4 MB file's worth). */
export const MAX_CHARS_HASHED = 4 * 1024 * 1024;

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
