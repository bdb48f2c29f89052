import { countEach } from '../tokens/counter.js';
import { startsPiece } from '../tokens/piece-start.js';

/**
 * Token counts of the candidate pages of one answer. Each candidate is mostly the lines of the one
 * before it (a page shrinks by rows), so texts are counted by lines, each line once: a first page of
 * a common word counted ~60 K characters, then ~26 K and ~24 K of the same rows again.
 *
 * A text's count is the sum of its pieces' where each piece ends with a line break at which the text
 * may be cut (piece-start.ts), and the tokenizer's long-run splits (count.ts) fall within lines.
 */
export class LineCounts {
  private readonly counts = new Map<string, number>();

  async count(text: string): Promise<number> {
    const pieces = piecesOf(text);
    const missing = [...new Set(pieces.filter((piece) => !this.counts.has(piece)))];
    const counted = await countEach(missing);
    missing.forEach((piece, i) => this.counts.set(piece, counted[i]!));
    let total = 0;
    for (const piece of pieces) total += this.counts.get(piece)!;
    return total;
  }
}

/** The text cut after each line break that is followed by neither whitespace nor `/`. */
export function piecesOf(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) {
    if (!startsPiece(text, at + 1)) continue;
    pieces.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}
