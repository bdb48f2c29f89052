import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateRipgrep } from '../src/rg/locate.js';
import { searchArgs } from '../src/search/rg-args.js';
import { DEFAULT_MAX_COUNT, OUTPUT_MODE_FLAGS } from '../src/search/options.js';
import { ageTree, baseQuery, connect, copyFixture, emptyDir, removeDir, type Connected } from './helpers.js';
import type { MatchRow } from '../src/search/shape.js';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await copyFixture();
  await ageTree(dir);
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

/** A match row of the answers. */
type Row = MatchRow;

/** ripgrep run directly: the reference every answer is compared with. */
async function rgJson(
  args: string[],
  paths = ['.'],
): Promise<{ file: string; line: number; text: string; type: string }[]> {
  const rg = await locateRipgrep();
  let out = '';
  try {
    out = execFileSync(rg, ['--json', ...args, ...paths], { cwd: dir, encoding: 'utf8' });
  } catch (error) {
    out = (error as { stdout?: string }).stdout ?? '';
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as {
          type: string;
          data: { path?: { text: string }; line_number?: number; lines?: { text: string } };
        },
    )
    .filter((e) => e.type === 'match' || e.type === 'context')
    .map((e) => ({
      type: e.type,
      file: (e.data.path?.text ?? '').replace(/^\.\//, ''),
      line: e.data.line_number ?? 0,
      text: (e.data.lines?.text ?? '').replace(/\r?\n$/, ''),
    }));
}

describe('search_content: output-format parameters are mutually exclusive (spec 003)', () => {
  it('accepts a single output-format parameter (total_only) and answers in that format', async () => {
    const answer = await server.both('search_content', { query: 'TODO', total_only: true });
    expect(answer.total_matches).toBe(2); // README.md and notes.txt; ignored.log and .hidden are skipped
    expect(answer.matches).toBeUndefined();
    expect(answer.file_counts).toBeUndefined();
    // A whole answer: no page follows (no rows of matches are read for it).
    expect(answer).toMatchObject({ truncated: false });
    expect(answer.next_cursor).toBeUndefined();
    const summary = await server.json('search_content', { query: 'TODO', summary_only: true });
    expect(summary).toMatchObject({ truncated: false, top_files: [{ count: 1 }, { count: 1 }] });
    expect(summary.next_cursor).toBeUndefined();
    expect((summary.sample as unknown[]).length).toBe(2);
  });

  it('rejects total_only together with count_only_matches, saying they are exclusive', async () => {
    const error = await server.fail('search_content', {
      query: 'TODO',
      total_only: true,
      count_only_matches: true,
    });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/mutually exclusive/);
    expect(error.message).toContain('total_only');
    expect(error.message).toContain('count_only_matches');
    // …and shows a correct call.
    expect(error.hint).toContain('"total_only":true');
    expect(error.details?.conflicting).toEqual(['total_only', 'count_only_matches']);
  });

  it('names the conflicting parameters for every combination of the five flags', async () => {
    for (let i = 0; i < OUTPUT_MODE_FLAGS.length; i++) {
      for (let j = i + 1; j < OUTPUT_MODE_FLAGS.length; j++) {
        const a = OUTPUT_MODE_FLAGS[i] as string;
        const b = OUTPUT_MODE_FLAGS[j] as string;
        const error = await server.fail('search_content', { query: 'x', [a]: true, [b]: true });
        expect(error.code).toBe('INVALID_ARGUMENT');
        expect(error.details?.conflicting).toEqual([a, b]);
      }
    }
    const all = Object.fromEntries(OUTPUT_MODE_FLAGS.map((f) => [f, true]));
    const error = await server.fail('search_content', { query: 'x', ...all });
    expect(error.details?.conflicting).toEqual([...OUTPUT_MODE_FLAGS]);
  });

  it('treats a flag set to false as not set', async () => {
    const answer = await server.json('search_content', {
      query: 'TODO',
      total_only: false,
      count_only_matches: true,
    });
    expect(answer.file_counts).toEqual([
      { file: 'README.md', count: 1 },
      { file: 'notes.txt', count: 1 },
    ]);
  });
});

describe('search_content: max_count becomes -m (spec 003)', () => {
  it('puts -m 5 on the ripgrep command line: at most 5 matching lines per file, as rg -m 5', async () => {
    const args = searchArgs(baseQuery({ maxCount: 5 }));
    expect(args.join(' ')).toContain('-m 5');
    const answer = await server.json('search_content', { query: '\\w+', max_count: 5 });
    const rows = answer.matches as Row[];
    const expected = (await rgJson(['--no-require-git', '-m', '5', '-e', '\\w+'])).filter(
      (e) => e.type === 'match',
    );
    expect(rows.map((r) => `${r.file}:${r.line}`).sort()).toEqual(
      expected.map((e) => `${e.file}:${e.line}`).sort(),
    );
    const perFile = new Map<string, number>();
    for (const row of rows) perFile.set(row.file, (perFile.get(row.file) ?? 0) + 1);
    expect(Math.max(...perFile.values())).toBe(5);
    expect(perFile.size).toBeGreaterThan(1);
    expect(answer.limits).toMatchObject({ max_count: 5 });
  });

  it('total_only and count_only_matches say when a file reached max_count (its count stops there)', async () => {
    for (const mode of ['total_only', 'count_only_matches'] as const) {
      const capped = await server.json('search_content', { query: '\\w+', max_count: 5, [mode]: true });
      expect(capped.warnings, mode).toEqual([
        expect.stringMatching(/^\d+ files? may have reached max_count \(5 matching lines per file\)/),
      ]);
      const whole = await server.json('search_content', { query: 'TODO', [mode]: true });
      expect(whole.warnings ?? [], mode).toEqual([]);
    }
  });

  it('applies the default when max_count is absent', async () => {
    expect(searchArgs(baseQuery()).join(' ')).toContain(`-m ${DEFAULT_MAX_COUNT}`);
    const answer = await server.json('search_content', { query: 'TODO' });
    expect(answer.limits).toMatchObject({ max_count: DEFAULT_MAX_COUNT });
  });

  it('clamps max_count=50000 to 10000 and says so', async () => {
    const answer = await server.json('search_content', { query: 'TODO', max_count: 50_000 });
    expect(answer.limits).toMatchObject({ max_count: 10_000 });
    expect(answer.warnings).toEqual(['max_count 50000 was clamped to 10000.']);
    expect(searchArgs(baseQuery({ maxCount: 10_000 })).join(' ')).toContain('-m 10000');
  });

  it.each([[-1], [0], [2.5], ['10'], ['many']])(
    'rejects max_count=%j stating the allowed range',
    async (value) => {
      const error = await server.fail('search_content', { query: 'TODO', max_count: value });
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain('max_count must be an integer from 1 to 10000');
    },
  );

  it('declares max_count as the integer it accepts: what the input schema allows, the server takes', async () => {
    const { tools } = await server.client.listTools();
    const schema = tools.find((t) => t.name === 'search_content')!.inputSchema.properties!.max_count;
    expect(schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect((await server.json('search_content', { query: 'TODO', max_count: 2 })).limits).toMatchObject({
      max_count: 2,
    });
  });
});

describe('search_content: cache keys cover the output format (spec 003)', () => {
  it('gives total_only and count_only_matches different entries, each in its own format', async () => {
    const first = await server.json('search_content', { query: 'hello', total_only: true });
    const second = await server.json('search_content', { query: 'hello', count_only_matches: true });
    expect(first.cache_hit).toBe(false);
    expect(second.cache_hit).toBe(false);
    expect(first.file_counts).toBeUndefined();
    // Smart case: a lower-case query matches "Hello" too.
    expect(second.file_counts).toEqual([
      { file: 'src/php/User.php', count: 2 },
      { file: 'src/py/tool', count: 1 },
    ]);
    expect(first.total_matches).toBe(3);
  });

  it('returns the cached result in the same format with cache_hit=true', async () => {
    const first = await server.json('search_content', { query: 'amount', count_only_matches: true });
    const again = await server.json('search_content', { query: 'amount', count_only_matches: true });
    expect(again.cache_hit).toBe(true);
    expect(again.file_counts).toEqual(first.file_counts);
  });

  it('misses the cache when total_only is followed by summary_only, and answers as a summary', async () => {
    await server.json('search_content', { query: 'deploy', total_only: true });
    const summary = await server.json('search_content', { query: 'deploy', summary_only: true });
    expect(summary.cache_hit).toBe(false);
    expect(summary.top_files).toEqual([{ file: 'src/sh/deploy.sh', count: 4 }]);
    expect((summary.sample as unknown[]).length).toBeGreaterThan(0);
  });

  it('keys on case, max_count and context too', async () => {
    await server.json('search_content', { query: 'order', case: 'sensitive' });
    const insensitive = await server.json('search_content', { query: 'order', case: 'insensitive' });
    expect(insensitive.cache_hit).toBe(false);
    const limited = await server.json('search_content', {
      query: 'order',
      case: 'insensitive',
      max_count: 1,
    });
    expect(limited.cache_hit).toBe(false);
    const limitedRows = limited.matches as Row[];
    expect(new Set(limitedRows.map((r) => r.file)).size).toBe(limitedRows.length); // one line per file
    expect(limitedRows.length).toBeLessThan((insensitive.matches as Row[]).length);
    const context = await server.json('search_content', {
      query: 'order',
      case: 'insensitive',
      context_after: 1,
    });
    expect(context.cache_hit).toBe(false);
  });
});

describe('search_content: the cache dies when a searched file changes', () => {
  it('sees an edit to a file that matched', async () => {
    const local = await copyFixture();
    await ageTree(local);
    const s = await connect([local]);
    try {
      const before = await s.json('search_content', { query: 'needle' });
      expect(before.total_matches).toBe(0);
      const cached = await s.json('search_content', { query: 'TODO', total_only: true });
      expect(cached.total_matches).toBe(2);
      expect((await s.json('search_content', { query: 'TODO', total_only: true })).cache_hit).toBe(true);
      await appendFile(path.join(local, 'notes.txt'), 'TODO: one more\n');
      const after = await s.json('search_content', { query: 'TODO', total_only: true });
      expect(after.cache_hit).toBe(false);
      expect(after.total_matches).toBe(3);
    } finally {
      await s.close();
      await removeDir(local);
    }
  });

  it('sees an edit to a file that did not match before, and a new file', async () => {
    const local = await copyFixture();
    await ageTree(local);
    const s = await connect([local]);
    try {
      expect((await s.json('search_content', { query: 'needle' })).total_matches).toBe(0);
      expect((await s.json('search_content', { query: 'needle' })).cache_hit).toBe(true);
      await appendFile(path.join(local, 'src/go/server.go'), '// needle\n');
      const edited = await s.json('search_content', { query: 'needle' });
      expect(edited.cache_hit).toBe(false);
      expect(edited.matches).toEqual([{ file: 'src/go/server.go', line: 25, column: 4, text: '// needle' }]);
      await ageTree(local); // (moving mtimes is itself a change: the next search runs again)
      expect((await s.json('search_content', { query: 'needle' })).cache_hit).toBe(false);
      expect((await s.json('search_content', { query: 'needle' })).cache_hit).toBe(true);
      await writeFile(path.join(local, 'src/ts/new.ts'), 'export const needle = 1;\n');
      const added = await s.json('search_content', { query: 'needle' });
      expect(added.cache_hit).toBe(false);
      expect(added.total_matches).toBe(2);
    } finally {
      await s.close();
      await removeDir(local);
    }
  });
});

describe('search_content: columns count characters, as extract_code_section does', () => {
  it('emoji, Latin-1 bytes and long lines: the column extracts the match, and clipping never splits a character', async () => {
    const local = await emptyDir();
    await writeFile(path.join(local, 'emoji.txt'), '😀😀 needle\n');
    await writeFile(path.join(local, 'latin1.txt'), Buffer.from('caf\xe9 needle\n', 'latin1'));
    await writeFile(path.join(local, 'long.txt'), `${'😀'.repeat(500)} needle\n`);
    const s = await connect([local]);
    try {
      const answer = await s.both('search_content', { query: 'needle' });
      const rows = answer.matches as Row[];
      const byFile = Object.fromEntries(rows.map((m) => [m.file, m]));
      expect(byFile['emoji.txt']).toMatchObject({ column: 4, text: '😀😀 needle' });
      expect(byFile['latin1.txt']).toMatchObject({ column: 6 });
      const long = byFile['long.txt']!;
      expect(long.column).toBe(502);
      expect(Buffer.from(long.text, 'utf8').toString('utf8')).toBe(long.text); // no lone surrogate
      expect(long.text).toContain('needle');
      for (const file of ['emoji.txt', 'latin1.txt', 'long.txt']) {
        const m = byFile[file]!;
        const cut = await s.json('extract_code_section', {
          file_path: file,
          start_line: m.line,
          end_line: m.line,
          start_column: m.column,
          end_column: m.column + 5,
          format: 'raw',
        });
        const content = (cut.results as { sections: { content: string }[] }[])[0]!.sections[0]!.content;
        expect(content.replace(/\r?\n$/, ''), file).toBe('needle');
      }
    } finally {
      await s.close();
      await removeDir(local);
    }
  });
});

describe('search_content: the cache dies when an ignore file changes', () => {
  it('sees an edited .ignore in the root and one above it', async () => {
    const outer = await emptyDir();
    const local = path.join(outer, 'project');
    await mkdir(local);
    await writeFile(path.join(local, 'a.txt'), 'TODO a\n');
    await writeFile(path.join(local, 'b.txt'), 'TODO b\n');
    await writeFile(path.join(local, 'c.txt'), 'TODO c\n');
    await writeFile(path.join(local, '.ignore'), 'b.txt\n');
    await writeFile(path.join(outer, '.ignore'), 'c.txt\n');
    await ageTree(outer);
    const s = await connect([local]);
    const total = async () => s.json('search_content', { query: 'TODO', total_only: true });
    try {
      expect(await total()).toMatchObject({ total_matches: 1, cache_hit: false });
      expect(await total()).toMatchObject({ total_matches: 1, cache_hit: true });
      await writeFile(path.join(local, '.ignore'), '');
      expect(await total()).toMatchObject({ total_matches: 2, cache_hit: false });
      await ageTree(outer);
      expect(await total()).toMatchObject({ total_matches: 2 });
      expect(await total()).toMatchObject({ total_matches: 2, cache_hit: true });
      await writeFile(path.join(outer, '.ignore'), '');
      expect(await total()).toMatchObject({ total_matches: 3, cache_hit: false });
    } finally {
      await s.close();
      await removeDir(outer);
    }
  });
});

describe('search_content: results equal ripgrep run directly', () => {
  it.each([
    [{ query: 'order', case: 'insensitive' }, ['-i', '-e', 'order']],
    [{ query: 'Order' }, ['-S', '-e', 'Order']],
    [{ query: 'amount', word: true, include_globs: ['*.ts'] }, ['-w', '-g', '*.ts', '-e', 'amount']],
    [{ query: 'a.b', fixed_strings: true }, ['-F', '-e', 'a.b']],
    [{ query: 'return', exclude_globs: 'src/ts/**' }, ['-g', '!src/ts/**', '-e', 'return']],
    [{ query: 'TODO', hidden: true, no_ignore: true }, ['--hidden', '--no-ignore', '-e', 'TODO']],
  ])('%j', async (args, rgArgs) => {
    const answer = await server.json('search_content', args);
    const expected = (await rgJson(rgArgs)).filter((e) => e.type === 'match');
    const got = (answer.matches as Row[]).map((m) => ({ file: m.file, line: m.line, text: m.text }));
    const sortKey = (r: { file: string; line: number }) => `${r.file}:${String(r.line).padStart(6, '0')}`;
    expect(got.map(sortKey)).toEqual(expected.map(sortKey).sort());
    expect(got).toEqual(
      expected
        .map(({ file, line, text }) => ({ file, line, text }))
        .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)),
    );
  });

  it('returns the context lines ripgrep prints, each once (overlaps merged)', async () => {
    const answer = await server.both('search_content', {
      query: 'if',
      case: 'sensitive',
      files: ['src/ts/service.ts'],
      context_before: 2,
      context_after: 2,
    });
    const rows = answer.matches as Row[];
    const reference = await rgJson(['-s', '-B', '2', '-A', '2', '-e', 'if'], ['src/ts/service.ts']);
    // Rebuild numbered lines from the answer: before-lines precede, after-lines follow each match.
    const shown = new Map<number, string>();
    for (const row of rows) {
      (row.before ?? []).forEach((text, i) => shown.set(row.line - (row.before?.length ?? 0) + i, text));
      shown.set(row.line, row.text);
      (row.after ?? []).forEach((text, i) => shown.set(row.line + 1 + i, text));
    }
    const expected = new Map(reference.map((e) => [e.line, e.text]));
    expect(shown).toEqual(expected);
    const total = rows.reduce((n, r) => n + 1 + (r.before?.length ?? 0) + (r.after?.length ?? 0), 0);
    expect(total).toBe(expected.size); // no line repeated
    expect(rows.map((r) => r.line)).toEqual([19, 21]);
    expect(rows[0]?.after).toEqual(['        sum += order.amount;']); // stops where the next match begins
  });

  it('finds multiline matches', async () => {
    const answer = await server.json('search_content', {
      query: 'class Cache \\{\\n\\s+constructor',
      multiline: true,
    });
    expect(answer.matches).toEqual([
      { file: 'src/ts/legacy.js', line: 9, column: 1, text: 'class Cache {\n  constructor() {' },
    ]);
  });

  it('counts like rg --count-matches', async () => {
    const answer = await server.both('search_content', { query: 'e', count_only_matches: true });
    const rg = await locateRipgrep();
    const lines = execFileSync(
      rg,
      ['--count-matches', '-S', '-m', String(DEFAULT_MAX_COUNT), '-e', 'e', '.'],
      { cwd: dir, encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .map((line) => {
        const at = line.lastIndexOf(':');
        return { file: line.slice(0, at).replace(/^\.\//, ''), count: Number(line.slice(at + 1)) };
      })
      .sort((a, b) => (a.file < b.file ? -1 : 1));
    expect(answer.file_counts).toEqual(lines);
    expect(answer.total_matches).toBe(lines.reduce((n, l) => n + l.count, 0));
  });
});

describe('search_content: standard format and the other modes', () => {
  it('keeps the standard fields when no output-format parameter is given', async () => {
    const answer = await server.both('search_content', { query: 'TODO' });
    expect(Object.keys(answer).sort()).toEqual([
      'cache_hit',
      'files_with_matches',
      'limits',
      'matches',
      'total_matches',
      'truncated',
    ]);
    expect(answer.matches).toEqual([
      { file: 'README.md', line: 4, column: 1, text: 'TODO: keep every file short.' },
      { file: 'notes.txt', line: 2, column: 1, text: 'TODO: nothing here.' },
    ]);
  });

  it('groups by file', async () => {
    const answer = await server.both('search_content', { query: 'amount', group_by_file: true });
    const files = answer.files as { file: string; count: number; matches: unknown[] }[];
    expect(files.map((f) => f.file)).toEqual([
      'src/cs/Account.cs',
      'src/py/inventory.py',
      'src/ts/service.ts',
      'src/ts/types.ts',
    ]);
    expect(files.find((f) => f.file === 'src/ts/types.ts')).toEqual({
      file: 'src/ts/types.ts',
      count: 1,
      matches: [{ line: 3, column: 3, text: '  amount: number;' }],
    });
  });

  it('shortens paths with optimize_paths', async () => {
    const answer = await server.both('search_content', {
      query: 'order',
      case: 'insensitive',
      include_globs: 'src/ts/**',
      optimize_paths: true,
    });
    expect(answer.base_dir).toBe('src/ts');
    expect((answer.matches as Row[]).every((m) => !m.file.includes('/'))).toBe(true);
  });

  it('counts one named file in total_only and count_only_matches (rg prints no name for one file)', async () => {
    const total = await server.json('search_content', {
      query: 'TODO',
      files: ['notes.txt'],
      total_only: true,
    });
    expect(total).toMatchObject({ total_matches: 1, files_with_matches: 1 });
    const counts = await server.json('search_content', {
      query: 'TODO',
      files: ['notes.txt'],
      count_only_matches: true,
    });
    expect(counts.file_counts).toEqual([{ file: 'notes.txt', count: 1 }]);
  });

  it('searches exactly the given files, and refuses roots with files', async () => {
    const answer = await server.json('search_content', { query: 'TODO', files: ['notes.txt'] });
    expect((answer.matches as Row[]).map((m) => m.file)).toEqual(['notes.txt']);
    expect(
      (await server.fail('search_content', { query: 'x', roots: ['.'], files: ['notes.txt'] })).code,
    ).toBe('INVALID_ARGUMENT');
    expect((await server.fail('search_content', { query: 'x', files: [] })).code).toBe('INVALID_ARGUMENT');
  });

  it('reports an invalid regex as INVALID_ARGUMENT', async () => {
    const error = await server.fail('search_content', { query: '(unclosed' });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.hint).toMatch(/fixed_strings/);
  });

  it('validates max_filesize and context', async () => {
    expect((await server.fail('search_content', { query: 'x', max_filesize: 'big' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await server.fail('search_content', { query: 'x', context_after: -1 })).code).toBe(
      'INVALID_ARGUMENT',
    );
    const small = await server.json('search_content', { query: 'TODO', max_filesize: '20' });
    expect(small.total_matches).toBe(0);
  });

  it('pages long answers under the token budget and continues with the cursor', async () => {
    const all = await server.json('search_content', { query: '\\S' });
    const total = (all.matches as Row[]).length;
    const seen: Row[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await server.json('search_content', {
        query: '\\S',
        max_answer_tokens: 500,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...(page.matches as Row[]));
      cursor = page.next_cursor as string | undefined;
      pages++;
      if (cursor) expect(page.truncated).toBe(true);
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(2);
    expect(seen).toEqual(all.matches);
    expect(seen.length).toBe(total);
  });

  it('refuses a cursor from another request and a cursor over changed results', async () => {
    const page = await server.json('search_content', { query: '\\S', max_answer_tokens: 500 });
    const error = await server.fail('search_content', { query: 'other', cursor: page.next_cursor });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect((await server.fail('search_content', { query: '\\S', cursor: 'garbage' })).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('stops at the timeout and says so', async () => {
    const answer = await server.json('search_content', { query: 'TODO', timeout_ms: 100 });
    // The sample is small enough to finish in time; the limit is reported either way.
    expect(answer.limits).toMatchObject({ timeout_ms: 100 });
    expect((await server.fail('search_content', { query: 'x', timeout_ms: 5 })).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('never searches outside the roots or into denied files', async () => {
    expect((await server.fail('search_content', { query: 'root', roots: ['/etc'] })).code).toBe(
      'PATH_OUTSIDE_ROOT',
    );
    expect((await server.fail('search_content', { query: 'root', files: ['../../etc/passwd'] })).code).toBe(
      'PATH_OUTSIDE_ROOT',
    );
    const denied = await connect([dir], { denyGlobs: ['notes.txt'] });
    try {
      const answer = await denied.json('search_content', { query: 'TODO' });
      expect((answer.matches as Row[]).map((m) => m.file)).toEqual(['README.md']);
      expect((await denied.fail('search_content', { query: 'TODO', files: ['notes.txt'] })).code).toBe(
        'PATH_DENIED',
      );
    } finally {
      await denied.close();
    }
  });
});

describe('search_content: audit fixes (max_count per file, odd names, rg errors, NUL, .gitignore, duplicates)', () => {
  let tree: string;
  let local: Connected;
  beforeAll(async () => {
    tree = await emptyDir();
    for (let i = 0; i < 30; i++) {
      await writeFile(path.join(tree, `f${String(i).padStart(2, '0')}.txt`), 'hit\n'.repeat(10));
    }
    await writeFile(path.join(tree, 'new\nline.txt'), 'newline hit\n');
    await mkdir(path.join(tree, 'sub'));
    await writeFile(path.join(tree, 'sub', 'kept.txt'), 'needle\n');
    await writeFile(path.join(tree, 'sub', 'ignored.txt'), 'needle\n');
    await writeFile(path.join(tree, '.gitignore'), 'ignored.txt\n');
    await ageTree(tree);
    local = await connect([tree]);
  });
  afterAll(async () => {
    await local.close();
    await removeDir(tree);
  });

  const rgCount = async (args: string[]) => {
    const rg = await locateRipgrep();
    const out = execFileSync(rg, ['--count-matches', '--null', ...args], { cwd: tree, encoding: 'utf8' });
    return [...out.matchAll(/\0(\d+)\n/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  it('max_count is rg -m N per file in every mode, and answers are the same on every run', async () => {
    const expected = await rgCount(['--no-require-git', '-m', '3', '-e', 'hit', '.']);
    expect(expected).toBe(31 * 3 - 2); // 30 files × 3, plus the one line of "new\nline.txt"
    const modes = [{}, { total_only: true }, { count_only_matches: true }, { summary_only: true }];
    for (const mode of modes) {
      const answer = await local.json('search_content', {
        query: 'hit',
        max_count: 3,
        max_answer_tokens: 20_000,
        ...mode,
      });
      expect(answer.total_matches, JSON.stringify(mode)).toBe(expected);
      expect(answer.files_with_matches, JSON.stringify(mode)).toBe(31);
    }
    const page1 = await local.json('search_content', { query: 'hit', max_count: 3, max_answer_tokens: 500 });
    expect(page1.next_cursor).toBeDefined();
    // A fresh server has no cache entry: the search runs again and must line up with the cursor.
    for (let run = 0; run < 3; run++) {
      const fresh = await connect([tree]);
      const summary = await fresh.json('search_content', { query: 'hit', max_count: 3, summary_only: true });
      expect((summary.top_files as { file: string }[])[0]?.file).toBe('f00.txt');
      const page2 = await fresh.json('search_content', {
        query: 'hit',
        max_count: 3,
        max_answer_tokens: 500,
        cursor: page1.next_cursor,
      });
      expect((page2.matches as Row[]).length).toBeGreaterThan(0);
      await fresh.close();
    }
  });

  it('keeps a file name that holds a newline in every mode', async () => {
    const name = 'new\nline.txt';
    const matches = await local.json('search_content', { query: 'newline' });
    expect((matches.matches as Row[]).map((m) => m.file)).toEqual([name]);
    const counts = await local.json('search_content', { query: 'newline', count_only_matches: true });
    expect(counts.file_counts).toEqual([{ file: name, count: 1 }]);
    const listed = await local.json('list_files', { pattern: 'line' });
    expect(listed.files).toEqual([expect.objectContaining({ path: name })]);
    const inFiles = await local.json('search_content', { files: [name], query: 'newline' });
    expect(inFiles.total_matches).toBe(1);
  });

  it('turns a query ripgrep rejects into INVALID_ARGUMENT with a hint, not an empty success', async () => {
    const error = await local.fail('search_content', { query: 'hit\nline2' });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('not allowed in a regex');
    expect(error.hint).toContain('multiline: true');
    const ok = await local.json('search_content', { query: 'newline hit\\n', multiline: true });
    expect(ok.total_matches).toBe(1);
    expect(ok.warnings).toBeUndefined();
  });

  it('rejects a NUL byte in the query or a glob, naming the field', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['search_content', { query: 'a\0b' }, 'query'],
      ['search_content', { query: 'hit', include_globs: ['*\0.txt'] }, 'include_globs'],
      ['search_content', { query: 'hit', exclude_globs: '\0' }, 'exclude_globs'],
      ['list_files', { glob: 'x\0' }, 'glob'],
    ];
    for (const [tool, args, field] of cases) {
      const error = await local.fail(tool, args);
      expect(error.code, field).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(field);
    }
  });

  it('honours .gitignore outside a git repository (no_ignore still lifts it)', async () => {
    const honoured = await local.json('search_content', { query: 'needle' });
    expect((honoured.matches as Row[]).map((m) => m.file)).toEqual(['sub/kept.txt']);
    const all = await local.json('search_content', { query: 'needle', no_ignore: true });
    expect((all.matches as Row[]).map((m) => m.file)).toEqual(['sub/ignored.txt', 'sub/kept.txt']);
  });

  it('searches a file named twice, or under overlapping roots, once', async () => {
    const dup = await local.json('search_content', {
      query: 'needle',
      files: ['sub/kept.txt', 'sub/kept.txt', './sub/kept.txt'],
    });
    expect(dup.total_matches).toBe(1);
    expect((dup.matches as Row[]).length).toBe(1);
    for (const mode of [{}, { count_only_matches: true }]) {
      const overlap = await local.json('search_content', { query: 'needle', roots: ['.', 'sub'], ...mode });
      expect(overlap.total_matches).toBe(1);
      expect(overlap.files_with_matches).toBe(1);
      if (overlap.matches) expect((overlap.matches as Row[]).length).toBe(1);
    }
  });
});
