// Answers that are the same for the same tree, whatever ripgrep's parallel walk found first; long file
// lists, long line ranges and clamped arguments handled as a user expects.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathBatches } from '../src/search/rg-batches.js';
import { comparePaths, sortByPath } from '../src/util/path-order.js';
import { ageTree, connect, emptyDir, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;
let wideDir: string;
const LONG = 'n'.repeat(200);

/** `folders` × 200 files under 200-character folder names; every tenth file holds two needles. */
async function makeTree(root: string, folders: number): Promise<void> {
  for (let d = 0; d < folders; d++) {
    const sub = path.join(root, `d${d}`, LONG);
    await mkdir(sub, { recursive: true });
    await Promise.all(
      Array.from({ length: 200 }, (_, f) =>
        writeFile(path.join(sub, `f${f}.txt`), f % 10 === 0 ? 'needle here\nand here needle\n' : 'hay\n'),
      ),
    );
  }
}

beforeAll(async () => {
  dir = await emptyDir();
  await makeTree(dir, 10);
  await mkdir(path.join(dir, 'a'));
  await writeFile(path.join(dir, 'a', 'b.txt'), 'x\n');
  await writeFile(path.join(dir, 'a.txt'), 'x\n');
  const lines = Array.from({ length: 1800 }, (_, i) => `\tx${i} := ${i}`);
  await writeFile(path.join(dir, 'long.go'), `${lines.join('\n')}\n`);
  await ageTree(dir);
  server = await connect([dir]);
  // 10,000 files whose absolute paths add up to more than Linux's 2 MiB command line.
  wideDir = await emptyDir();
  await makeTree(wideDir, 50);
}, 120_000);
afterAll(async () => {
  await server.close();
  await removeDir(dir);
  await removeDir(wideDir);
});

describe('the same tree, the same answer', () => {
  it('sortByPath puts long lists in comparePaths order (folders before names that go on, UTF-16 units)', () => {
    const parts = ['a', 'a.txt', 'a-b', 'a b', 'B', 'b', '\u00e9', '\uFF01', '\u{1F600}', '日本', '0', ''];
    const paths: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const depth = 1 + (i % 4);
      const names = Array.from(
        { length: depth },
        (_, d) => parts[(i * 7 + d * 13 + (i >> 3)) % parts.length]!,
      );
      paths.push(`/root/${names.join('/')}`);
    }
    paths.push('/root/a/b', '/root/a.b', '/root/a', '/root/a/');
    const items = paths.map((file, index) => ({ file, index }));
    const expected = [...items].sort((x, y) => comparePaths(x.file, y.file) || x.index - y.index);
    const sorted = sortByPath([...items], (item) => item.file);
    expect(sorted.map((item) => item.file)).toEqual(expected.map((item) => item.file));
  });

  it('list_files with a limit keeps the first files in path order, every time', async () => {
    const runs = await Promise.all(
      [1, 2].map(() => server.json('list_files', { limit: 100, max_answer_tokens: 20_000 })),
    );
    const paths = runs.map((r) => (r.files as { path: string }[]).map((f) => f.path));
    expect(paths[1]).toEqual(paths[0]);
    expect(paths[0]).toHaveLength(100);
    expect([...(paths[0] as string[])].sort(comparePaths)).toEqual(paths[0]);
    // Folders' files stay together: a/b.txt (inside a/) comes before a.txt.
    expect((paths[0] as string[]).slice(0, 2)).toEqual(['a/b.txt', 'a.txt']);
    expect(runs[0]?.truncated).toBe(true);
  });

  it('list_files with a limit keeps path order where ripgrep sorts names by other means (bytes)', async () => {
    // UTF-8 puts U+FF01 (EF BC 81) before U+1F600 (F0 9F 98 80); UTF-16, the answers' order, the other way.
    const odd = await emptyDir();
    const names = ['x\u{1F600}.txt', 'x\uFF01.txt', 'x.txt', 'y.txt'];
    for (const name of names) await writeFile(path.join(odd, name), 'x\n');
    const oddServer = await connect([odd]);
    try {
      const sorted = [...names].sort(comparePaths);
      for (const limit of [1, 2, 4]) {
        const answer = await oddServer.json('list_files', { limit });
        expect((answer.files as { path: string }[]).map((f) => f.path)).toEqual(sorted.slice(0, limit));
        expect(answer.truncated).toBe(limit < names.length);
      }
    } finally {
      await oddServer.close();
      await removeDir(odd);
    }
  });

  it('list_files count_only counts names split across chunks of ripgrep output (440 kB of paths)', async () => {
    const listed = await server.json('list_files', { limit: 10_000 });
    expect(listed.count).toBe(2003); // the rows kept (shown in pages)
    expect((await server.json('list_files', { count_only: true })).count).toBe(2003);
    // With a name pattern each name is read whole, those split between chunks too: f1, f10–f19, f100–f199.
    const named = { pattern: '^f1[0-9]*\\.txt$', limit: 10_000 };
    expect((await server.json('list_files', named)).count).toBe(10 * 111);
    expect((await server.json('list_files', { ...named, count_only: true })).count).toBe(10 * 111);
  });

  it('list_files continues a cursor over an unchanged tree without CONFLICT', async () => {
    const first = await server.json('list_files', { limit: 3000, max_answer_tokens: 2000 });
    expect(first.next_cursor).toBeDefined();
    // Another server instance has no snapshot: it lists again and must find the same rows.
    const other = await connect([dir]);
    try {
      const next = await other.json('list_files', {
        limit: 3000,
        max_answer_tokens: 2000,
        cursor: first.next_cursor,
      });
      const a = (first.files as { path: string }[]).map((f) => f.path);
      const b = (next.files as { path: string }[]).map((f) => f.path);
      expect(comparePaths(a[a.length - 1] as string, b[0] as string)).toBeLessThan(0);
    } finally {
      await other.close();
    }
  });

  it('search_content over 10,000 listed files with long paths never overflows the command line', async () => {
    const wide = await connect([wideDir]);
    try {
      // What find_and_grep did in one call: search exactly the files a listing found (here all 10,000).
      const files = Array.from(
        { length: 10_000 },
        (_, i) => `d${Math.floor(i / 200)}/${LONG}/f${i % 200}.txt`,
      );
      expect((await wide.json('list_files', { count_only: true })).count).toBe(files.length);
      const answer = await wide.json('search_content', { files, query: 'needle', total_only: true });
      expect(answer).toMatchObject({ total_matches: 2_000, files_with_matches: 1_000 });
    } finally {
      await wide.close();
    }
  }, 120_000);

  it('splits file lists into command lines of bounded size', () => {
    const files = Array.from({ length: 1000 }, (_, i) => `/tmp/${'x'.repeat(100)}/${i}`);
    const batches = pathBatches(files, 10_000);
    expect(batches.flat()).toEqual(files);
    for (const batch of batches) expect(batch.join(' ').length).toBeLessThanOrEqual(10_000);
  });
});

describe('ranges and arguments', () => {
  it('extract_code_section format json pages a long range of short lines', async () => {
    const lines: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const answer = await server.json('extract_code_section', {
        file_path: 'long.go',
        start_line: 1,
        end_line: 1800,
        format: 'json',
        ...(cursor ? { cursor } : {}),
      });
      const results = answer.results as { sections: { lines: { line: number }[] }[] }[];
      for (const section of results[0]?.sections ?? []) lines.push(...section.lines.map((l) => l.line));
      cursor = answer.next_cursor as string | undefined;
      if (!cursor) break;
    }
    expect(lines).toEqual(Array.from({ length: 1800 }, (_, i) => i + 1));
  });

  it('says so when context lines are clamped', async () => {
    const answer = await server.json('search_content', {
      query: 'needle',
      include_globs: ['d0/**'],
      context_after: 1000,
    });
    expect((answer.warnings as string[]).join(' ')).toMatch(/context_after 1000 was clamped to 50/);
  });
});
