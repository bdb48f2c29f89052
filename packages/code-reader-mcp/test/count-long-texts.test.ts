// Long texts counted on the event loop (a search with a large budget, before the tokenizer's thread
// runs) are counted in pieces between turns of the loop: the pieces' sum must be the whole text's count.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countEach, prepareLoopCounting } from '../src/tokens/counter.js';

/** `head` + lines of code whose line break falls on the 64 K-character piece's end, then `next`. */
function atPieceEnd(next: string): string {
  const line = 'foo();\n';
  const pad = 'x'.repeat((64 * 1024) % line.length);
  return `${pad}${line.repeat(Math.floor((64 * 1024) / line.length))}${next}\n${line.repeat(100)}`;
}

describe('counting a text longer than one piece on the event loop', () => {
  it('counts exactly as gpt-tokenizer where a piece would start with a comment (a line break then "/")', async () => {
    prepareLoopCounting();
    // o200k joins a line break with the `/` that follows punctuation (`();\n//`): a cut there adds a token.
    const texts = [
      atPieceEnd('//bar'),
      atPieceEnd('/* note */'),
      atPieceEnd('  indented'),
      atPieceEnd('plain'),
    ];
    expect(texts[0]!.charAt(64 * 1024 - 1)).toBe('\n');
    expect(texts[0]!.charAt(64 * 1024)).toBe('/');
    expect(await countEach(texts)).toEqual(texts.map((text) => countTokens(text)));
  });
});
