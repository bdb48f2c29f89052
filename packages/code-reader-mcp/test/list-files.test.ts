import { execFileSync } from 'node:child_process';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSize, parseTimePoint } from '../src/files/filters.js';
import { locateRipgrep } from '../src/rg/locate.js';
import { connect, copyFixture, emptyDir, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;

interface FileRow {
  path: string;
  size_bytes: number;
  mtime: number;
  ext: string;
}

beforeAll(async () => {
  dir = await copyFixture();
  const old = new Date('2020-01-02T03:04:05Z');
  await utimes(path.join(dir, 'notes.txt'), old, old);
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

async function rgFiles(args: string[] = []): Promise<string[]> {
  const out = execFileSync(await locateRipgrep(), ['--files', ...args, '.'], { cwd: dir, encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => line.replace(/^\.\//, ''))
    .sort();
}

describe('list_files', () => {
  it('lists what rg --files lists, root-relative, with size, mtime and extension', async () => {
    const answer = await server.both('list_files');
    const files = answer.files as FileRow[];
    expect(files.map((f) => f.path)).toEqual(await rgFiles());
    expect(answer.count).toBe(files.length);
    expect(answer.truncated).toBe(false);
    const notes = files.find((f) => f.path === 'notes.txt');
    expect(notes).toEqual({
      path: 'notes.txt',
      size_bytes: 70,
      mtime: Date.UTC(2020, 0, 2, 3, 4, 5) / 1000,
      ext: 'txt',
    });
    expect(files.find((f) => f.path === 'src/py/tool')?.ext).toBe('');
    expect(files.some((f) => f.path === 'ignored.log' || f.path.startsWith('.hidden'))).toBe(false);
  });

  it('filters by extension, glob, type, pattern, exclude and depth like ripgrep', async () => {
    const paths = async (args: Record<string, unknown>) =>
      ((await server.json('list_files', args)).files as FileRow[]).map((f) => f.path);
    expect(await paths({ extensions: ['ts', 'tsx'] })).toEqual(await rgFiles(['-g', '*.ts', '-g', '*.tsx']));
    expect(await paths({ glob: 'src/py/**' })).toEqual(['src/py/inventory.py', 'src/py/tool']);
    expect(await paths({ types: 'rust' })).toEqual(['src/rust/lib.rs']);
    expect(await paths({ pattern: '^[A-Z]\\w+\\.(java|cs)$' })).toEqual([
      'src/cs/Account.cs',
      'src/java/Greeter.java',
    ]);
    expect(await paths({ exclude: ['src/**'] })).toEqual(['README.md', 'notes.txt']);
    expect(await paths({ depth: 1 })).toEqual(await rgFiles(['--max-depth', '1']));
    expect(await paths({ hidden: true, no_ignore: true, depth: 2 })).toEqual(
      await rgFiles(['--hidden', '--no-ignore', '--max-depth', '2']),
    );
  });

  it('filters by size and modification time', async () => {
    const paths = async (args: Record<string, unknown>) =>
      ((await server.json('list_files', args)).files as FileRow[]).map((f) => f.path);
    const all = (await server.json('list_files')).files as FileRow[];
    const where = (keep: (size: number) => boolean) =>
      all.filter((f) => keep(f.size_bytes)).map((f) => f.path);
    expect(await paths({ size: '+500' })).toEqual(where((s) => s >= 500));
    expect(where((s) => s >= 500).length).toBeGreaterThan(1);
    expect(await paths({ size: ['-100', '+60'] })).toEqual(where((s) => s >= 60 && s <= 100));
    expect(await paths({ changed_before: '2021-01-01' })).toEqual(['notes.txt']);
    expect(await paths({ changed_within: '1d', glob: '*.txt' })).toEqual([]);
    const counted = await server.json('list_files', { changed_within: '3650d', count_only: true });
    expect(counted.count).toBe((await rgFiles()).length);
  });

  it('counts only', async () => {
    const answer = await server.both('list_files', { count_only: true });
    expect(answer).toEqual({
      count: (await rgFiles()).length,
      truncated: false,
      limits: { limit: 2000, max_answer_tokens: 8000 },
    });
  });

  it('counts what it would list, with each filter and below a folder', async () => {
    const filters = [
      { pattern: '^[a-z]+\\.(ts|py)$' },
      { extensions: ['ts', 'py'] },
      { glob: 'src/**' },
      { roots: ['src'] },
      { depth: 2 },
    ];
    for (const args of filters) {
      const rows = (await server.json('list_files', args)).files as FileRow[];
      expect(rows.length).toBeGreaterThan(0);
      expect((await server.json('list_files', { ...args, count_only: true })).count).toBe(rows.length);
    }
  });

  it('stops at limit and says truncated', async () => {
    const answer = await server.json('list_files', { limit: 3 });
    expect((answer.files as FileRow[]).length).toBe(3);
    expect(answer.truncated).toBe(true);
    expect((await server.fail('list_files', { limit: 0 })).message).toMatch(/from 1 to 10000/);
    const clamped = await server.json('list_files', { limit: 50_000 });
    expect(clamped.limits).toMatchObject({ limit: 10_000 });
  });

  it('separates the TOON columns of fields with tabs, so commas in paths need no quotes', async () => {
    await mkdir(path.join(dir, 'odd'));
    await writeFile(path.join(dir, 'odd', 'a,b.txt'), 'x');
    await writeFile(path.join(dir, 'odd', 'tab\there.txt'), 'x');
    const answer = await server.both('list_files', { roots: ['odd'] });
    expect((answer.files as FileRow[]).map((f) => f.path).sort()).toEqual([
      'odd/a,b.txt',
      'odd/tab\there.txt',
    ]);
    // The default text is one path per line; a tab inside a path is the one thing quoted there too.
    expect((await server.call('list_files', { roots: ['odd'] })).text).toBe(
      'odd/a,b.txt\n"odd/tab\\there.txt"',
    );
    const text = (await server.call('list_files', { roots: ['odd'], fields: ['size_bytes', 'mtime', 'ext'] }))
      .text;
    expect(text).toContain('files[2\t]{path\tsize_bytes\tmtime\text}:');
    expect(text).toMatch(/^ {2}odd\/a,b\.txt\t1\t/m);
    // A tab inside a value is the one thing that must be quoted.
    expect(text).toContain('"odd/tab\\there.txt"');
  });

  it('pages within the token budget and continues with next_cursor', async () => {
    await mkdir(path.join(dir, 'many'));
    for (let i = 0; i < 60; i++) await writeFile(path.join(dir, 'many', `generated-file-${i}.txt`), 'x');
    const all = ((await server.json('list_files', { roots: ['many'] })).files as FileRow[]).map(
      (f) => f.path,
    );
    expect(all).toHaveLength(60);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      // (TOON and JSON pages hold different numbers of rows, so follow one format.)
      const page = await server.json('list_files', {
        roots: ['many'],
        max_answer_tokens: 500,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...(page.files as FileRow[]).map((f) => f.path));
      cursor = page.next_cursor as string | undefined;
      pages++;
    } while (cursor && pages < 50);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(all);
  });

  it('rejects bad filters with a hint', async () => {
    expect((await server.fail('list_files', { size: 'huge' })).hint).toMatch(/\+10k/);
    expect((await server.fail('list_files', { changed_within: 'yesterday' })).hint).toMatch(/30min/);
    expect((await server.fail('list_files', { pattern: '(' })).code).toBe('INVALID_ARGUMENT');
    expect((await server.fail('list_files', { glob: '{a' })).code).toBe('INVALID_ARGUMENT');
    expect((await server.fail('list_files', { roots: ['notes.txt'] })).code).toBe('INVALID_ARGUMENT');
    expect((await server.fail('list_files', { roots: ['/etc'] })).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('lists several roots with root-relative paths and hides denied files', async () => {
    const denied = await connect([dir], { denyGlobs: ['*.md', 'src/c/**'] });
    try {
      const answer = await denied.json('list_files', { roots: ['src/go', '.'], depth: 1 });
      expect((answer.files as FileRow[]).map((f) => f.path)).toEqual(['notes.txt', 'src/go/server.go']);
      // A folder whose whole content is denied is refused outright rather than listed empty.
      const refused = await denied.call('list_files', { roots: ['src/c'] });
      expect(refused.error?.code).toBe('PATH_DENIED');
    } finally {
      await denied.close();
    }
  });

  it('a !glob among the deny globs re-allows, in the listing and the search as in a read', async () => {
    const tree = await emptyDir();
    for (const name of ['secret.key', 'public.key', 'ok.ts'])
      await writeFile(path.join(tree, name), 'needle\n');
    const keys = await connect([tree], { denyGlobs: ['*.key', '!public.key'] });
    try {
      const listed = await keys.json('list_files', {});
      expect((listed.files as FileRow[]).map((f) => f.path)).toEqual(['ok.ts', 'public.key']);
      const found = await keys.json('search_content', { query: 'needle', total_only: true });
      expect(found).toMatchObject({ total_matches: 2, files_with_matches: 2 });
      const refused = await keys.call('extract_code_section', { file_path: 'secret.key', start_line: 1 });
      expect(refused.error, JSON.stringify(refused.error)).toMatchObject({ code: 'PATH_DENIED' });
    } finally {
      await keys.close();
      await removeDir(tree);
    }
  });

  it('parses size and time filters', () => {
    expect(parseSize('+10k')).toEqual({ op: '+', bytes: 10_000 });
    expect(parseSize('-1mi')).toEqual({ op: '-', bytes: 1_048_576 });
    expect(parseSize('5')).toEqual({ op: '', bytes: 5 });
    const now = Date.UTC(2024, 0, 10);
    expect(parseTimePoint('2d', 'x', now)).toBe(now - 2 * 86_400_000);
    expect(parseTimePoint('30min', 'x', now)).toBe(now - 1_800_000);
    expect(parseTimePoint('2024-01-01', 'x', now)).toBe(Date.UTC(2024, 0, 1));
  });

  it('keeps exact-size matches', async () => {
    await writeFile(path.join(dir, 'five.bin'), '12345');
    const answer = await server.json('list_files', { size: '5b' });
    expect((answer.files as FileRow[]).map((f) => f.path)).toEqual(['five.bin']);
  });
});

describe('list_files below folders ripgrep cannot walk (a path over PATH_MAX)', () => {
  it('lists nothing rather than blaming the globs, counting or listing', async () => {
    const tree = await emptyDir();
    // 25 folders of 200 characters: made one level at a time, as no single path may be that long.
    const name = 'd'.repeat(200);
    execFileSync(
      'bash',
      ['-c', `for i in $(seq 1 25); do mkdir ${name} && cd ${name}; done; echo x > f.txt`],
      {
        cwd: tree,
      },
    );
    const local = await connect([tree]);
    try {
      expect(await local.json('list_files', { pattern: 'nothing-matches' })).toMatchObject({ files: [] });
      expect(await local.json('list_files', { count_only: true })).toMatchObject({ count: 0 });
      const bad = await local.call('list_files', { glob: '{a,b' });
      expect(bad.isError).toBe(true); // a broken glob is still the caller's error
    } finally {
      await local.close();
      execFileSync('rm', ['-rf', tree]);
    }
  });
});

describe('a root whose files all sit in folders an ignore file above the root names', () => {
  let project: string;
  let server: Connected;
  beforeAll(async () => {
    project = await emptyDir();
    // As in a pnpm store: node_modules/.pnpm/lib@1/node_modules/lib/index.js under a .gitignore naming
    // node_modules/, with the server's root at lib@1 (the .gitignore is above it).
    await writeFile(path.join(project, '.gitignore'), 'node_modules/\n');
    const store = path.join(project, 'node_modules', '.pnpm', 'lib@1');
    await mkdir(path.join(store, 'node_modules', 'lib'), { recursive: true });
    await writeFile(path.join(store, 'node_modules', 'lib', 'index.js'), 'export const needle = 1;\n');
    server = await connect([store]);
  });
  afterAll(async () => {
    await server.close();
    await removeDir(project);
  });

  it('finds nothing and says why, in listings, counts and searches; no_ignore finds the files', async () => {
    const because =
      /an ignore file in a folder above .* hides every file under the project folder\. Pass no_ignore: true/;
    const listed = await server.json('list_files', {});
    expect(listed.count).toBe(0);
    expect((listed.warnings as string[]).join(' ')).toMatch(because);
    expect((await server.call('list_files', {})).text).toMatch(because);
    const counted = await server.json('list_files', { count_only: true });
    expect((counted.warnings as string[]).join(' ')).toMatch(because);
    const searched = await server.json('search_content', { query: 'needle' });
    expect(searched.total_matches).toBe(0);
    expect((searched.warnings as string[]).join(' ')).toMatch(because);

    expect((await server.json('list_files', { no_ignore: true })).count).toBe(1);
    const found = await server.json('search_content', { query: 'needle', no_ignore: true });
    expect(found.total_matches).toBe(1);
    expect(found.warnings).toBeUndefined();
  });

  it('says nothing of ignore files when the root simply holds no match', async () => {
    const searched = await server.json('search_content', {
      query: 'needle',
      no_ignore: true,
      include_globs: ['*.py'],
    });
    expect(searched.total_matches).toBe(0);
    expect(searched.warnings).toBeUndefined();
    for (const filters of [{ extensions: ['py'] }, { no_ignore: true, pattern: '^none$' }]) {
      const listed = await server.json('list_files', filters);
      expect(listed.count).toBe(0);
      expect(listed.warnings).toBeUndefined();
    }
  });
});

describe('list_files: odd names, .gitignore without git, NUL, overlapping roots', () => {
  let tree: string;
  let local: Connected;
  beforeAll(async () => {
    tree = await emptyDir();
    await writeFile(path.join(tree, 'new\nline.txt'), 'x\n');
    await writeFile(path.join(tree, 'plain.txt'), 'x\n');
    await mkdir(path.join(tree, 'sub'));
    await writeFile(path.join(tree, 'sub', 'kept.txt'), 'x\n');
    await writeFile(path.join(tree, 'sub', 'ignored.txt'), 'x\n');
    await writeFile(path.join(tree, '.gitignore'), 'ignored.txt\n');
    local = await connect([tree]);
  });
  afterAll(async () => {
    await local.close();
    await removeDir(tree);
  });

  const pathsOf = (answer: Record<string, unknown>) => (answer.files as FileRow[]).map((f) => f.path);

  it('keeps a file name that holds a newline, and count_only agrees with the rows', async () => {
    const answer = await local.json('list_files', {});
    expect(pathsOf(answer)).toEqual(['new\nline.txt', 'plain.txt', 'sub/kept.txt']);
    const count = await local.json('list_files', { count_only: true });
    expect(count.count).toBe(3);
  });

  it('honours .gitignore outside a git repository unless no_ignore', async () => {
    expect(pathsOf(await local.json('list_files', { roots: ['sub'] }))).toEqual(['sub/kept.txt']);
    const all = await local.json('list_files', { roots: ['sub'], no_ignore: true });
    expect(pathsOf(all)).toEqual(['sub/ignored.txt', 'sub/kept.txt']);
  });

  it('lists a file once under overlapping or repeated roots', async () => {
    const answer = await local.json('list_files', { roots: ['.', 'sub', './sub'] });
    expect(pathsOf(answer)).toEqual(['new\nline.txt', 'plain.txt', 'sub/kept.txt']);
  });

  it('rejects a NUL byte in a glob or filter, naming the field', async () => {
    for (const [field, value] of [
      ['glob', 'a\0'],
      ['exclude', ['\0']],
      ['extensions', 't\0s'],
      ['pattern', '\0'],
    ] as const) {
      const error = await local.fail('list_files', { [field]: value });
      expect(error.code, field).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(field);
    }
  });
});
