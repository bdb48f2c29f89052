import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonClipper } from '../src/rg/json-clipper.js';
import { runRipgrep, type ClippedInfo } from '../src/rg/run.js';
import { JsonMatchCollector } from '../src/search/collect.js';
import { connect, emptyDir, removeDir } from './helpers.js';

function clipped(value: unknown, limits: ConstructorParameters<typeof JsonClipper>[0], piece = 7) {
  const bytes = Buffer.from(JSON.stringify(value));
  const clipper = new JsonClipper(limits);
  for (let i = 0; i < bytes.length; i += piece) clipper.feed(bytes.subarray(i, i + piece));
  const { text, droppedItems, longestString } = clipper.finish();
  return { value: JSON.parse(text) as unknown, droppedItems, longestString };
}

describe('JsonClipper', () => {
  const limits = { stringBytes: 8, arrayItems: 2, totalStringBytes: 1000 };

  it('keeps short records as they are', () => {
    const record = { type: 'match', data: { lines: { text: 'short' }, n: [1, 2], ok: true, x: null } };
    for (const piece of [1, 3, 1000])
      expect(clipped(record, limits, piece)).toEqual({ value: record, droppedItems: 0, longestString: 5 });
  });

  it('cuts long strings at a character boundary, never inside UTF-8 or an escape', () => {
    expect(clipped({ s: 'ééééééé' }, limits).value).toEqual({ s: 'éééé' });
    expect(clipped({ s: 'ab\u0001cdefgh' }, limits).value).toEqual({ s: 'ab\u0001' }); // \u0001 is 6 bytes
    expect(clipped({ s: 'a"b\\c"defghij' }, limits).value).toEqual({ s: 'a"b\\c"' });
    // A character is never split: the cut may come up to three bytes after the limit.
    expect(clipped({ s: '日本語のテキスト' }, limits).value).toEqual({ s: '日本語' });
    // An escaped quote in the part that is cut away does not end the string early.
    expect(clipped({ s: 'abcdefghij"klm', t: 'ok' }, limits).value).toEqual({ s: 'abcdefgh', t: 'ok' });
  });

  it('drops array items beyond the limit (counting them), nested values and all', () => {
    const record = { subs: [{ a: 1 }, { a: [2, 3, 4] }, { a: ']' }, { a: [[5]] }], after: 'kept' };
    expect(clipped(record, limits)).toMatchObject({
      value: { subs: [{ a: 1 }, { a: [2, 3] }], after: 'kept' },
      droppedItems: 3, // two of subs, one of the inner [2, 3, 4]
    });
  });

  it('measures the longest string before clipping, without its line break, and never cuts keys', () => {
    const { value, longestString } = clipped({ a_long_key: `${'x'.repeat(30)}\u0001\n`, b: 'yy' }, limits);
    expect(value).toEqual({ a_long_key: 'xxxxxxxx', b: 'yy' });
    expect(longestString).toBe(31);
  });

  it('stops keeping string bytes once the record budget is spent', () => {
    const { value } = clipped(
      { a: 'x'.repeat(20), b: 'y'.repeat(20), c: 'z' },
      { ...limits, totalStringBytes: 10 },
    );
    expect(value).toEqual({ a: 'xxxxxxxx', b: 'yy', c: '' });
  });
});

describe('JsonMatchCollector with clipped records', () => {
  const line = (data: Record<string, unknown>, type = 'match') => JSON.stringify({ type, data });
  const info: ClippedInfo = { bytes: 5_000_100, droppedItems: 10, longestString: 5_000_000 };

  it('shows a match in the kept start as usual, one past it by its text, and counts every submatch', () => {
    const collector = new JsonMatchCollector(1, 100);
    collector.push(line({ path: { text: '/r/a.js' } }, 'begin'));
    collector.push(
      line({
        path: { text: '/r/a.js' },
        lines: { text: `${'é'.repeat(10)}needle${'x'.repeat(100)}` },
        line_number: 1,
        submatches: [{ match: { text: 'needle' }, start: 20, end: 26 }],
      }),
      info,
    );
    collector.push(
      line({
        path: { text: '/r/a.js' },
        lines: { text: 'y'.repeat(50) },
        line_number: 2,
        submatches: [{ match: { text: 'needle' }, start: 4_000_000, end: 4_000_006 }],
      }),
      info,
    );
    collector.push(
      line({ path: { text: '/r/a.js' }, lines: { text: 'z'.repeat(10) }, line_number: 3 }, 'context'),
      info,
    );
    const [first, second] = collector.matches;
    expect(first).toMatchObject({ line: 1, column: 11 });
    expect(first!.text).toMatch(/^éééééééééé needle|^ééééééééééneedle/);
    expect(first!.text).toContain('[line of 5000000 bytes, clipped]');
    expect(second).toMatchObject({
      line: 2,
      column: 4_000_001,
      text: '…needle…[line of 5000000 bytes, clipped]',
    });
    expect(second!.after).toEqual(['zzzzzzzzzz…[line of 5000000 bytes, clipped]']);
    expect(collector.fileCounts()).toEqual([{ file: '/r/a.js', count: 22 }]);
    expect(collector.clippedLines.map((l) => l.line)).toEqual([1, 2]);
  });
});

describe('runRipgrep', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await emptyDir();
    await writeFile(
      path.join(dir, 'long.txt'),
      `${'a'.repeat(50_000)}needle${'b'.repeat(50_000)}\nshort needle\n`,
    );
  });
  afterAll(async () => removeDir(dir));

  it('hands over records longer than maxRecordBytes clipped, with their size', async () => {
    const seen: { length: number; clipped?: ClippedInfo }[] = [];
    await runRipgrep(['--json', '-e', 'needle', '--', '.'], {
      cwd: dir,
      maxRecordBytes: 4096,
      onLine: (text, clip) => {
        if (text.includes('"type":"match"'))
          seen.push({ length: text.length, ...(clip ? { clipped: clip } : {}) });
      },
    });
    expect(seen).toHaveLength(2);
    const long = seen.find((s) => s.clipped);
    expect(long?.clipped?.bytes).toBeGreaterThan(100_000);
    expect(long?.length).toBeLessThan(70_000);
    expect(seen.filter((s) => !s.clipped)).toHaveLength(1);
  });

  it('ends with the error of a consumer that throws (never a crash of the server)', async () => {
    await expect(
      runRipgrep(['--json', '-e', 'needle', '--', '.'], {
        cwd: dir,
        onLine: () => {
          throw new Error('consumer failed');
        },
      }),
    ).rejects.toThrow('consumer failed');
  });

  it('search_content shows long lines (64 KiB to 1 MiB) cut around the match, as when decoded whole', async () => {
    const japaneseWithEscapes = '日"\u0001'.repeat(25_000);
    const lines = [
      `${'a'.repeat(100_000)}needle${'b'.repeat(100_000)}\n`, // ASCII: read from the bytes
      `${'\u00e9'.repeat(70_000)}needle${'x'.repeat(1000)}\n`, // not ASCII
      `\t${'c'.repeat(80_000)}needle\n`, // escapes in the JSON text…
      `${'"\\'.repeat(30_000)}needle${'\u0001'.repeat(500)}\n`,
      'needle '.repeat(15_000) + '\n', // 15,000 matches on one line
      `${'e'.repeat(70_000)}needle\r\n`,
      `${'\u{1F600}'.repeat(40_000)}needle${'z'.repeat(500)}\n`, // beyond the BMP: 2 UTF-16 units each
      `${japaneseWithEscapes}needle${'本'.repeat(500)}\n`, // not ASCII, with escapes (\" and \u0001)
      `${'d'.repeat(70_000)}needle\\n`, // a backslash and an n, no line break at the end
    ];
    await writeFile(path.join(dir, 'long.min.js'), lines.join(''));
    const server = await connect([dir]);
    // Read from the files (ripgrep printing only the matches) and, with multiline, from ripgrep's JSON.
    try {
      for (const multiline of [false, true]) {
        const answer = await server.json('search_content', {
          query: 'needle',
          files: ['long.min.js'],
          multiline,
        });
        expect(answer.matches).toEqual([
          {
            file: 'long.min.js',
            line: 1,
            column: 100_001,
            text: `…${'a'.repeat(80)}needle${'b'.repeat(314)}…[+99686 chars]`,
          },
          {
            file: 'long.min.js',
            line: 2,
            column: 70_001,
            text: `…${'\u00e9'.repeat(80)}needle${'x'.repeat(314)}…[+686 chars]`,
          },
          { file: 'long.min.js', line: 3, column: 80_002, text: `…${'c'.repeat(394)}needle` },
          {
            file: 'long.min.js',
            line: 4,
            column: 60_001,
            text: `…${'"\\'.repeat(40)}needle${'\u0001'.repeat(314)}…[+186 chars]`,
          },
          {
            file: 'long.min.js',
            line: 5,
            column: 1,
            text: `${'needle '.repeat(15_000).slice(0, 400)}…[+104600 chars]`,
          },
          { file: 'long.min.js', line: 6, column: 70_001, text: `…${'e'.repeat(394)}needle` },
          {
            file: 'long.min.js',
            line: 7,
            column: 40_001,
            text: `…${'\u{1F600}'.repeat(80)}needle${'z'.repeat(314)}…[+186 chars]`,
          },
          {
            file: 'long.min.js',
            line: 8,
            column: 75_001,
            text: `…${japaneseWithEscapes.slice(-80)}needle${'本'.repeat(314)}…[+186 chars]`,
          },
          { file: 'long.min.js', line: 9, column: 70_001, text: `…${'d'.repeat(392)}needle\\n` },
        ]);
        expect(answer.total_matches).toBe(8 + 15_000);
        expect(answer.warnings).toBeUndefined();
      }
    } finally {
      await server.close();
    }
  });

  it('search_content over a line longer than the record limit answers with a warning', async () => {
    await writeFile(path.join(dir, 'huge.js'), `${'c'.repeat(1_500_000)}needle\n`);
    const server = await connect([dir]);
    try {
      for (const multiline of [false, true]) {
        const answer = await server.json('search_content', {
          query: 'needle',
          files: ['huge.js'],
          multiline,
        });
        expect(answer.matches).toEqual([
          { file: 'huge.js', line: 1, column: 1_500_001, text: '…needle…[line of 1500006 bytes, clipped]' },
        ]);
        expect(String(answer.warnings)).toContain(
          'Line 1 of huge.js is 1500006 bytes, too long to read whole',
        );
      }
    } finally {
      await server.close();
    }
  });

  it('a page warns of the long lines it shows, not of those read for later pages', async () => {
    await writeFile(path.join(dir, 'huge.js'), `${'c'.repeat(1_500_000)}needle\n`);
    await writeFile(path.join(dir, 'early.txt'), 'a needle here\n'.repeat(200));
    const server = await connect([dir]);
    try {
      const args = { query: 'needle', files: ['early.txt', 'huge.js'], max_answer_tokens: 500 };
      const first = await server.json('search_content', args);
      expect((first.matches as { file: string }[]).every((m) => m.file === 'early.txt')).toBe(true);
      expect(first.warnings).toBeUndefined();
      // The page that shows huge.js's line names it.
      let page = first;
      while (!(page.matches as { file: string }[]).some((m) => m.file === 'huge.js')) {
        expect(page.warnings).toBeUndefined();
        page = await server.json('search_content', { ...args, cursor: page.next_cursor });
      }
      expect(String(page.warnings)).toContain('Line 1 of huge.js is 1500006 bytes, too long to read whole');
    } finally {
      await server.close();
    }
  });
});
