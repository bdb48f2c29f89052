import { appendFile, chmod, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateRipgrep, platformRgPath } from '../src/rg/locate.js';
import { ripgrepFailure, runRipgrep, warningLines } from '../src/rg/run.js';
import { StampedCache } from '../src/search/cache.js';
import { CountCollector, JsonMatchCollector, MAX_LINE_CHARS, parseCountLine } from '../src/search/collect.js';
import { effectiveMaxCount, outputModeOf } from '../src/search/options.js';
import { SearchEngine } from '../src/search/search-content.js';
import type { SearchQuery } from '../src/search/types.js';
import { baseQuery } from './helpers.js';
import { commonDirectory, groupByFile, pagedRowsOf, topFiles } from '../src/search/shape.js';
import { emptyDir, removeDir } from './helpers.js';

const match = (file: string, line: number, text: string, start = 0) =>
  JSON.stringify({
    type: 'match',
    data: {
      path: { text: file },
      lines: { text: `${text}\n` },
      line_number: line,
      submatches: [{ start, end: start + 1 }],
    },
  });
const context = (file: string, line: number, text: string) =>
  JSON.stringify({
    type: 'context',
    data: { path: { text: file }, lines: { text: `${text}\n` }, line_number: line },
  });
const begin = (file: string) => JSON.stringify({ type: 'begin', data: { path: { text: file } } });

describe('JsonMatchCollector', () => {
  it('attaches context before/after without repeating a line', () => {
    const c = new JsonMatchCollector(2, 100);
    for (const line of [
      begin('a'),
      context('a', 1, 'one'),
      context('a', 2, 'two'),
      match('a', 3, 'three'),
      context('a', 4, 'four'),
      match('a', 5, 'five'),
      context('a', 6, 'six'),
      context('a', 7, 'seven'),
      context('a', 9, 'nine'), // belongs before the next match (gap at 8)
      match('a', 10, 'ten'),
    ]) {
      c.push(line);
    }
    expect(c.matches).toEqual([
      { file: 'a', line: 3, column: 1, text: 'three', before: ['one', 'two'], after: ['four'] },
      { file: 'a', line: 5, column: 1, text: 'five', after: ['six', 'seven'] },
      { file: 'a', line: 10, column: 1, text: 'ten', before: ['nine'] },
    ]);
  });

  it('keeps max matches, decodes non-UTF-8 paths and converts byte offsets to columns', () => {
    const c = new JsonMatchCollector(0, 1);
    const bytesPath = JSON.stringify({
      type: 'begin',
      data: { path: { bytes: Buffer.from('caf\u00e9.txt').toString('base64') } },
    });
    expect(c.push(bytesPath)).toBe(true);
    expect(c.push(match('café.txt', 1, 'héllo x', Buffer.byteLength('héllo ')))).toBe(true);
    expect(c.push(match('café.txt', 2, 'x'))).toBe(true);
    expect(c.overflowed).toBe(true);
    expect(c.matchesInOrder()).toEqual([{ file: 'café.txt', line: 1, column: 7, text: 'héllo x' }]);
    expect(c.push('not json')).toBe(true);
  });

  it('past the cap keeps the first matches in path order, whatever order they come in, and counts all', () => {
    // Files in a parallel walk's order; the later ones sort first. Each line has two submatches, and
    // one path holds text that looks like JSON keys (it is escaped in the event, so never counted).
    const files = ['d/x', 'c/"start":1', 'b/b', 'a/z', 'a/a'];
    const two = (file: string, line: number) =>
      JSON.stringify({
        type: 'match',
        data: {
          path: { text: file },
          lines: { text: `hit hit ${line}\n` },
          line_number: line,
          submatches: [
            { match: { text: 'hit' }, start: 0, end: 3 },
            { match: { text: 'hit' }, start: 4, end: 7 },
          ],
        },
      });
    const run = (order: string[]) => {
      const c = new JsonMatchCollector(0, 3);
      for (const file of order) {
        c.push(begin(file));
        for (let line = 1; line <= 4; line++) c.push(two(file, line));
      }
      return c;
    };
    const forward = run(files);
    const backward = run([...files].reverse());
    const firstThree = [1, 2, 3].map((line) => ({
      file: 'a/a',
      line,
      column: 1,
      text: `hit hit ${line}`,
    }));
    expect(forward.matchesInOrder()).toEqual(firstThree);
    expect(backward.matchesInOrder()).toEqual(firstThree);
    for (const c of [forward, backward]) {
      expect(c.overflowed).toBe(true);
      expect(c.matchedLines).toBe(20);
      expect(c.totalSubmatches).toBe(40);
      expect(c.fileCounts().sort((a, b) => a.file.localeCompare(b.file))).toEqual(
        [...files].sort().map((file) => ({ file, count: 8 })),
      );
    }
  });

  it('clips very long lines around the match', () => {
    const c = new JsonMatchCollector(0, 10);
    const long = `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}`;
    c.push(begin('f'));
    c.push(match('f', 1, long, 5000));
    const text = c.matches[0]?.text ?? '';
    expect(text).toContain('NEEDLE');
    expect(text.length).toBeLessThan(MAX_LINE_CHARS + 40);
    expect(text.startsWith('…')).toBe(true);
  });

  it('handles CRLF lines, matches without submatches, gaps in context and multiline matches', () => {
    const c = new JsonMatchCollector(1, 10);
    c.push(begin('w'));
    c.push(
      JSON.stringify({
        type: 'match',
        data: { path: { text: 'w' }, lines: { text: 'a\r\n' }, line_number: 1 },
      }),
    );
    c.push(context('w', 3, 'far away')); // not adjacent: kept for a following match only if adjacent
    c.push(
      JSON.stringify({
        type: 'match',
        data: {
          path: { text: 'w' },
          lines: { text: 'x\ny\n' },
          line_number: 5,
          submatches: [{ start: 0, end: 3 }],
        },
      }),
    );
    c.push(context('w', 7, 'after multiline'));
    c.push(JSON.stringify({ type: 'match', data: { path: {}, lines: {}, line_number: null } }));
    c.push(JSON.stringify({ type: 'end', data: {} }));
    expect(c.matches[0]).toEqual({ file: 'w', line: 1, column: 1, text: 'a' });
    expect(c.matches[1]).toEqual({ file: 'w', line: 5, column: 1, text: 'x\ny', after: ['after multiline'] });
    expect(c.matches[2]).toMatchObject({ line: 0, text: '' });
    expect(c.fileCounts()).toEqual([{ file: 'w', count: 3 }]);
  });

  it('parses --count-matches --null lines, including paths with colons', () => {
    expect(parseCountLine('a:b.txt\u00003')).toEqual({ file: 'a:b.txt', count: 3 });
    expect(parseCountLine('no separator')).toBeUndefined();
  });
});

describe('options and shapes', () => {
  it('picks the output mode', () => {
    expect(outputModeOf({}, 'q')).toBe('matches');
    expect(outputModeOf({ group_by_file: true }, 'q')).toBe('group_by_file');
  });

  it('validates max_count', () => {
    expect(effectiveMaxCount(undefined)).toEqual({ value: 1000, clamped: false });
    expect(effectiveMaxCount(10_001)).toEqual({ value: 10_000, clamped: true });
    expect(() => effectiveMaxCount('x')).toThrow(/from 1 to 10000/);
  });

  it('finds common directories and top files', () => {
    expect(commonDirectory(['a/b/c.ts', 'a/b/d/e.ts'])).toBe('a/b');
    expect(commonDirectory(['x.ts', 'a/y.ts'])).toBe('');
    expect(commonDirectory([])).toBe('');
    expect(
      topFiles(
        [
          { file: 'b', count: 1 },
          { file: 'a', count: 1 },
          { file: 'c', count: 5 },
        ],
        (f) => f,
        2,
      ),
    ).toEqual([
      { file: 'c', count: 5 },
      { file: 'a', count: 1 },
    ]);
    expect(groupByFile([{ file: 'a', line: 1, column: 1, text: 'x' }], () => 7)).toEqual([
      { file: 'a', count: 7, matches: [{ line: 1, column: 1, text: 'x' }] },
    ]);
    const outcome = {
      matches: [],
      rowFiles: 0,
      fileCounts: [],
      totalMatches: 0,
      limitHit: false,
      timedOut: false,
      warnings: [],
    };
    expect(pagedRowsOf('total_only', outcome)).toEqual([]);
  });
});

describe('StampedCache', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await emptyDir();
  });
  afterAll(async () => removeDir(dir));

  const aged = async (file: string, text: string) => {
    await writeFile(file, text);
    const past = new Date(Date.now() - 60_000);
    await utimes(file, past, past);
    await utimes(path.dirname(file), past, past);
    await new Promise((resolve) => setTimeout(resolve, 30));
  };

  it('keeps an entry until a stamped file changes', async () => {
    const file = path.join(dir, 'a.txt');
    await aged(file, 'one');
    const cache = new StampedCache<string>();
    cache.set('k', 'value', Promise.resolve([file]), Date.now());
    expect(await cache.get('k')).toBe('value');
    await appendFile(file, 'two');
    expect(await cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('refuses results over files modified after the search began', async () => {
    const file = path.join(dir, 'b.txt');
    await aged(file, 'one');
    const startedAt = Date.now();
    const cache = new StampedCache<string>();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await appendFile(file, 'during the search');
    cache.set('k', 'value', Promise.resolve([file]), startedAt);
    expect(await cache.get('k')).toBeUndefined();
  });

  it('drops entries whose listing failed or whose files vanished, and evicts the oldest', async () => {
    const cache = new StampedCache<number>({ maxEntries: 2 });
    cache.set('none', 1, Promise.resolve(undefined), Date.now());
    expect(await cache.get('none')).toBeUndefined();
    cache.set('gone', 2, Promise.resolve([path.join(dir, 'missing')]), Date.now());
    expect(await cache.get('gone')).toBeUndefined();
    const file = path.join(dir, 'c.txt');
    await aged(file, 'c');
    cache.set('1', 1, Promise.resolve([file]), Date.now());
    cache.set('2', 2, Promise.resolve([file]), Date.now());
    cache.set('3', 3, Promise.resolve([file]), Date.now());
    expect(await cache.get('1')).toBeUndefined();
    expect(await cache.get('3')).toBe(3);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe('ripgrep binary', () => {
  it('uses CODE_READER_RG_PATH and fails clearly when it points nowhere', async () => {
    await expect(locateRipgrep({ CODE_READER_RG_PATH: '/nonexistent/rg' })).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      hint: expect.stringMatching(/apt-get install ripgrep/) as unknown,
    });
    const real = await locateRipgrep();
    expect(await locateRipgrep({ CODE_READER_RG_PATH: real })).toBe(real);
  });

  it("finds @vscode/ripgrep's binary without importing the package, the same one it names", async () => {
    const { rgPath } = (await import('@vscode/ripgrep')) as { rgPath: string };
    expect(platformRgPath()).toBe(rgPath);
    expect(await locateRipgrep()).toBe(rgPath);
    // A platform with no package of its own is left to the package's import, then to PATH.
    expect(platformRgPath({ npm_config_arch: 'no-such-arch' })).toBeUndefined();
  });

  it('says when ripgrep has started (the search starts the tokenizer there), once per run', async () => {
    const events: string[] = [];
    const result = await runRipgrep(['--version'], {
      cwd: process.cwd(),
      onLine: () => void events.push('line'),
      onSpawn: () => events.push('spawned'),
    });
    expect(result.exitCode).toBe(0);
    expect(events[0]).toBe('spawned');
    expect(events.filter((event) => event === 'spawned')).toHaveLength(1);
    expect(events).toContain('line');
  });

  it('falls back to rg on PATH, and says how to install it when there is none', async () => {
    const none = async () => undefined;
    const dir = await emptyDir();
    try {
      await writeFile(path.join(dir, 'rg'), '');
      expect(await locateRipgrep({ PATH: `/nonexistent${path.delimiter}${dir}` }, none)).toBe(
        path.join(dir, 'rg'),
      );
      await expect(locateRipgrep({ PATH: '/nonexistent' }, none)).rejects.toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: 'The ripgrep (rg) binary was not found.',
      });
      await expect(locateRipgrep({}, none)).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    } finally {
      await removeDir(dir);
    }
  });

  it('reports a binary that cannot start as BACKEND_UNAVAILABLE', async () => {
    const dir = await emptyDir();
    const fake = path.join(dir, 'rg');
    await writeFile(fake, 'not a program');
    await chmod(fake, 0o644);
    const previous = process.env.CODE_READER_RG_PATH;
    process.env.CODE_READER_RG_PATH = fake;
    try {
      await expect(runRipgrep(['--version'], { cwd: dir, onLine: () => true })).rejects.toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
      });
    } finally {
      if (previous === undefined) delete process.env.CODE_READER_RG_PATH;
      else process.env.CODE_READER_RG_PATH = previous;
      await removeDir(dir);
    }
  });

  it('stops on request, on timeout and on cancellation', async () => {
    const lines: string[] = [];
    const stopped = await runRipgrep(['--files', '.'], {
      cwd: process.cwd(),
      onLine: (l) => (lines.push(l), false),
    });
    expect(stopped.stopped).toBe(true);
    expect(lines.length).toBe(1);
    const timed = await runRipgrep(['--files', '/'], {
      cwd: process.cwd(),
      timeoutMs: 1,
      onLine: () => true,
    });
    expect(timed.timedOut).toBe(true);
    const controller = new AbortController();
    const pending = runRipgrep(['--files', '/'], {
      cwd: process.cwd(),
      signal: controller.signal,
      onLine: () => true,
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('turns rg usage errors into INVALID_ARGUMENT and leaves other failures alone', () => {
    const base = { stopped: false, timedOut: false };
    expect(ripgrepFailure({ ...base, exitCode: 2, stderr: 'regex parse error: x' }, 'query')?.code).toBe(
      'INVALID_ARGUMENT',
    );
    expect(ripgrepFailure({ ...base, exitCode: 2, stderr: 'permission denied' }, 'query')).toBeUndefined();
    expect(ripgrepFailure({ ...base, exitCode: 1, stderr: '' }, 'query')).toBeUndefined();
  });
});

describe('SearchEngine', () => {
  const query = (overrides: Partial<SearchQuery>): SearchQuery =>
    baseQuery({ targets: [process.cwd()], query: 'x', maxCount: 10, ...overrides });

  it('refuses an empty query', async () => {
    await expect(new SearchEngine().search(query({ query: '' }), { timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('keeps ripgrep warnings (unreadable paths) next to the results', async () => {
    const run = await new SearchEngine().search(
      query({ targetKind: 'files', targets: ['/nonexistent/file.txt'] }),
      { timeoutMs: 5000 },
    );
    expect(run.outcome.matches).toEqual([]);
    expect(run.outcome.warnings.join('\n')).toMatch(/nonexistent/);
  });

  it('reads how many files ripgrep searched from its summary; past the stamping limit nothing is listed or cached', async () => {
    const dir = await emptyDir();
    try {
      for (let i = 0; i < 5; i++) await writeFile(path.join(dir, `f${i}.txt`), `x ${i}\n`);
      const collector = new JsonMatchCollector(0, 10);
      await runRipgrep(['--json', '-e', 'x', '.'], { cwd: dir, onLine: (line) => collector.push(line) });
      expect(collector.searchedFiles).toBe(5);
      expect(collector.matches).toHaveLength(5);
      const search = query({ targets: [dir], query: 'x' });
      // 5 files searched, at most 4 stamped: the result is not kept (no background rg --files).
      const small = new SearchEngine(undefined, 4);
      await small.search(search, { timeoutMs: 5000 });
      expect((await small.search(search, { timeoutMs: 5000 })).cacheHit).toBe(false);
      // Within the limit the second search comes from the cache.
      const enough = new SearchEngine(undefined, 5);
      await enough.search(search, { timeoutMs: 5000 });
      expect((await enough.search(search, { timeoutMs: 5000 })).cacheHit).toBe(true);
    } finally {
      await removeDir(dir);
    }
  });

  it('returns partial results on timeout, marked, and does not cache them', async () => {
    const engine = new SearchEngine();
    const slow = query({ targets: ['/'], query: 'zzz-never-found-zzz', mode: 'total_only' });
    const first = await engine.search(slow, { timeoutMs: 1 });
    expect(first.outcome.timedOut).toBe(true);
    const second = await engine.search(slow, { timeoutMs: 1 });
    expect(second.cacheHit).toBe(false);
  });
});

describe('audit fixes: NUL-separated counts, rg errors, duplicate blocks', () => {
  it('reads --count-matches --null records, names with newlines included, each file once', () => {
    const c = new CountCollector();
    for (const record of ['a.txt', '3\nnew\nline.txt', '1\na.txt', '7\nb.txt', '2\n']) c.push(record);
    expect(c.counts).toEqual([
      { file: 'a.txt', count: 3 },
      { file: 'new\nline.txt', count: 1 },
      { file: 'b.txt', count: 2 },
    ]);
  });

  it('skips a second block of a file already seen (overlapping roots)', () => {
    const c = new JsonMatchCollector(0, 10);
    for (const line of [begin('a'), match('a', 1, 'x'), begin('a'), match('a', 1, 'x'), begin('b')])
      c.push(line);
    c.push(match('b', 2, 'y'));
    expect(c.matches.map((m) => `${m.file}:${m.line}`)).toEqual(['a:1', 'b:2']);
    expect(c.fileCounts()).toEqual([
      { file: 'a', count: 1 },
      { file: 'b', count: 1 },
    ]);
  });

  it('tells a rejected query from per-file errors, and never keeps empty warning lines', () => {
    const result = (stderr: string) => ({ exitCode: 2, stderr, timedOut: false, stopped: false });
    const multiline = ripgrepFailure(result('rg: the literal "\\n" is not allowed in a regex'), 'query');
    expect(multiline?.hint).toContain('multiline: true');
    const lookaround = ripgrepFailure(
      result('rg: regex parse error:\nerror: look-around is not supported'),
      'query',
    );
    expect(lookaround?.code).toBe('INVALID_ARGUMENT');
    expect(ripgrepFailure(result('rg: ./x.txt: Permission denied (os error 13)'), 'query')).toBeUndefined();
    expect(ripgrepFailure(result('rg: something odd'), 'query')).toBeUndefined();
    expect(warningLines('rg: a\n\n  \nrg: b\n')).toEqual(['rg: a', 'rg: b']);
  });

  it('refuses a NUL byte in a ripgrep argument instead of crashing spawn', async () => {
    await expect(
      runRipgrep(['-e', 'a\0b'], { cwd: process.cwd(), onLine: () => true }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('splits NUL-separated output and keeps a last record without a separator', async () => {
    const dir = await emptyDir();
    try {
      await writeFile(path.join(dir, 'a\nb.txt'), 'x');
      await writeFile(path.join(dir, 'c.txt'), 'x');
      const records: string[] = [];
      await runRipgrep(['--files', '--null', '--sort', 'path'], {
        cwd: dir,
        separator: '\0',
        onLine: (line) => void records.push(line),
      });
      expect(records).toEqual(['a\nb.txt', 'c.txt']);
    } finally {
      await removeDir(dir);
    }
  });
});

describe('SearchEngine: the memory cap', () => {
  it('keeps the same prefix on every run (files in path order) and says it stopped', async () => {
    const dir = await emptyDir();
    try {
      for (let i = 0; i < 40; i++)
        await writeFile(path.join(dir, `f${String(i).padStart(2, '0')}.txt`), 'hit\nhit\n');
      const q = baseQuery({ targets: [dir], query: 'hit', maxCount: 1 });
      const seen = new Set<string>();
      for (let run = 0; run < 3; run++) {
        const engine = new SearchEngine(5);
        const { outcome } = await engine.search(q, { timeoutMs: 10_000 });
        // Every row asked for: the rows stop at the cap.
        const read = await engine.readRows(
          q,
          outcome,
          { from: 0, textBytes: Infinity },
          { deadline: Date.now() + 10_000 },
        );
        expect(read).toBe(true);
        expect(outcome.limitHit).toBe(true);
        expect(outcome.warnings.join(' ')).toContain('first 5 matching lines');
        // The totals count every match, not the prefix that was kept.
        expect(outcome.totalMatches).toBe(40);
        expect(outcome.fileCounts).toHaveLength(40);
        seen.add(outcome.matches.map((m) => path.basename(m.file)).join(','));
      }
      expect([...seen]).toEqual(['f00.txt,f01.txt,f02.txt,f03.txt,f04.txt']);
    } finally {
      await removeDir(dir);
    }
  });
});

describe('SearchEngine: counts first, rows as pages need them (issue 25)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await emptyDir();
    // 40 files of 50 matching lines each: 2,000 rows, of which a page shows a few hundred.
    for (let i = 0; i < 40; i++) {
      const lines = Array.from({ length: 50 }, (_, n) => `hit ${i}.${n}`);
      await writeFile(path.join(dir, `f${String(i).padStart(2, '0')}.txt`), `${lines.join('\n')}\n`);
    }
  });
  afterAll(async () => removeDir(dir));
  const q = () => baseQuery({ targets: [dir], query: 'hit' });
  const later = () => ({ deadline: Date.now() + 10_000 });

  it('counts every file at once, then reads only the rows of the first files a page needs', async () => {
    const engine = new SearchEngine();
    const { outcome } = await engine.search(q(), { timeoutMs: 10_000 });
    expect(outcome).toMatchObject({ totalMatches: 2000, matches: [], rowFiles: 0 });
    expect(outcome.fileCounts).toHaveLength(40);
    expect(await engine.readRows(q(), outcome, { from: 0, textBytes: 500 }, later())).toBe(true);
    // The first batch reads about 256 matches' worth of files, in path order, and no more.
    expect(outcome.rowFiles).toBe(6);
    expect(outcome.matches).toHaveLength(300);
    expect(outcome.matches[0]).toMatchObject({ file: path.join(dir, 'f00.txt'), line: 1, text: 'hit 0.0' });
    expect(outcome.matches.at(-1)).toMatchObject({ file: path.join(dir, 'f05.txt'), line: 50 });
    // The next page reads on from there; every row comes once, in order.
    await engine.readRows(q(), outcome, { from: 300, textBytes: 20_000 }, later());
    expect(outcome.rowFiles).toBe(40);
    expect(outcome.matches.map((m) => m.text)).toEqual(
      Array.from({ length: 2000 }, (_, k) => `hit ${Math.floor(k / 50)}.${k % 50}`),
    );
  });

  it('sizes batches of rows by the JSON ripgrep would print for them, escapes included', async () => {
    // Lines of quotes (two bytes each in ripgrep's JSON) with ten matches each: little text shown per
    // match, much JSON, so the JSON read caps the batches (counted without the escapes, they differ).
    const quotes = await emptyDir();
    try {
      const line = Array.from({ length: 10 }, () => `${'"'.repeat(6_000)}needle`).join('');
      for (let i = 0; i < 200; i++)
        await writeFile(path.join(quotes, `q${String(i).padStart(3, '0')}.txt`), `${line}\n`);
      const query = baseQuery({ targets: [quotes], query: 'needle' });
      const engine = new SearchEngine();
      const { outcome } = await engine.search(query, { timeoutMs: 10_000 });
      await engine.readRows(query, outcome, { from: 0, textBytes: 64_000 }, later());
      // As the build that counted every line's escapes as it read it (without them: 164 files).
      expect(outcome.rowFiles).toBe(200);
    } finally {
      await removeDir(quotes);
    }
  });

  it('reads no row of a file the policy leaves out, though the first batch is read while it checks', async () => {
    const engine = new SearchEngine();
    const allowedFiles = async () => (file: string) => !file.endsWith('f00.txt');
    const { outcome } = await engine.search(q(), { timeoutMs: 10_000, allowedFiles });
    expect(outcome.fileCounts).toHaveLength(39);
    await engine.readRows(q(), outcome, { from: 0, textBytes: 500 }, later());
    expect(outcome.matches[0]).toMatchObject({ file: path.join(dir, 'f01.txt'), line: 1 });
    expect(outcome.matches.some((m) => m.file.endsWith('f00.txt'))).toBe(false);
  });

  it("keeps a result for its cursors' pages even when the tree is too large to cache", async () => {
    const engine = new SearchEngine(undefined, 0); // nothing is cached
    const first = await engine.search(q(), { timeoutMs: 10_000 });
    const again = await engine.search(q(), { timeoutMs: 10_000 });
    expect(again.cacheHit).toBe(false);
    const next = await engine.search(q(), { timeoutMs: 10_000, continuation: true });
    expect(next.cacheHit).toBe(true);
    expect(next.outcome).toBe(again.outcome);
    expect(first.outcome).not.toBe(again.outcome);
  });

  it('reports rows not read in time, keeping those read before', async () => {
    const engine = new SearchEngine();
    const { outcome } = await engine.search(q(), { timeoutMs: 10_000 });
    expect(await engine.readRows(q(), outcome, { from: 0, textBytes: 500 }, { deadline: 0 })).toBe(false);
    expect(outcome.matches).toEqual([]);
    expect(outcome.rowFiles).toBe(0);
  });
});
