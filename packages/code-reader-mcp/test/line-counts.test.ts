import { describe, expect, it } from 'vitest';
import { LineCounts, piecesOf } from '../src/paging/line-counts.js';
import { countTokens } from '../src/tokens/counter.js';

describe('token counts of candidate pages, line by line (issue 25)', () => {
  it('are the counts of the whole texts, lines starting with "/" or whitespace included', async () => {
    const rows = [
      'npm/a/index.js:12:  return value.toLowerCase();',
      '40:}\n/* a comment line */',
      'src/x.ts:3:foo();\n//bar',
      '7-\tindented',
      'docs/日本語.md:1:# 見出し 😀',
      '',
      '# next_cursor: abc',
    ];
    const counts = new LineCounts();
    for (let size = rows.length; size > 0; size--) {
      const text = rows.slice(0, size).join('\n') + '\n';
      expect(piecesOf(text).join('')).toBe(text);
      expect(await counts.count(text)).toBe(await countTokens(text));
    }
    // A break before "/" is not one to cut at: "foo();\n" and "//bar" count one token more apart.
    expect(piecesOf('foo();\n//bar')).toEqual(['foo();\n//bar']);
    expect(piecesOf('a\nb\n c\n')).toEqual(['a\n', 'b\n c\n']);
  });
});
