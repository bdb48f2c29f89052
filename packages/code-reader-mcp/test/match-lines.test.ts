import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRipgrep } from '../src/rg/run.js';
import { CountCollector, JsonMatchCollector } from '../src/search/collect.js';
import {
  ONLY_MATCHING_FLAGS,
  OnlyMatchingParser,
  escapedExtra,
  parseOnlyMatching,
  rowsOfFile,
} from '../src/search/match-lines.js';
import { connect, emptyDir, removeDir } from './helpers.js';

/** Files whose rows the two ways of reading them must agree on, or that are left to `--json`. */
const SAME = {
  'plain.ts': 'const a = "needle";\n\tneedle\tand "quotes" \\ here\nnothing\nlast needle',
  'crlf.txt': 'alpha needle\r\nbeta\r\nneedle gamma\r\nends needle\r',
  'latin1.txt': Buffer.from([
    ...Buffer.from('caf'),
    0xe9,
    ...Buffer.from(' needle\n'),
    0xff,
    0xfe,
    ...Buffer.from(' needle '),
    0xc3,
    10,
  ]),
  'wide.txt': `${'é'.repeat(150_000)} needle ${'ü'.repeat(1000)}\n`, // 64 KiB to 1 MiB, not ASCII
  'astral.txt': `${'🙂'.repeat(30_000)}needle🙂\n`,
  'ascii-long.js': `${'q'.repeat(100_000)}needle${'z'.repeat(100)}\n`,
  'big-head.min.js': `needle${'x'.repeat(1_200_000)}\n`, // over the record limit, the match in the part kept
  'big-tail.min.js': `${'a"b\\c\t\u0001'.repeat(300_000)}needle tail\n`, // …and past it, escapes and all
  'many.txt': `${'needle '.repeat(40_000)}\n`, // a line under 64 KiB… no: 280 KB whose 40,000 matches pass the limit
  'short-many.txt': `${'needle'.repeat(10_000)}\n`, // 60 KB, 10,000 matches: a record of ~450 KB
  'new\nline.txt': 'a needle in a file named with a line break\n',
  ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`small-${i}.txt`, `needle ${i}\n`])),
};
const LEFT_TO_JSON = {
  'binary.bin': 'needle\0needle\n', // ripgrep prints a note, not the matches
  'bom.txt': '\ufeffneedle after a byte-order mark\n', // ripgrep decodes it: its offsets are not the file's
  'not-utf8-huge.txt': Buffer.concat([
    Buffer.from('needle '),
    Buffer.alloc(1_100_000, 0xff),
    Buffer.from('\n'),
  ]),
};

async function rowsByJson(dir: string, query: string, files: string[]) {
  const collector = new JsonMatchCollector(0, Number.MAX_SAFE_INTEGER);
  let jsonBytes = 0;
  await runRipgrep(['--json', '--smart-case', '-m', '1000', '-e', query, '--', ...files], {
    cwd: dir,
    onLongRecord: (record) => {
      const taken = collector.pushLong(record);
      if (taken !== undefined) jsonBytes += record.length;
      return taken;
    },
    onLine: (line, clipped) => {
      jsonBytes += clipped?.bytes ?? line.length;
      return collector.push(line, clipped);
    },
  });
  return { rows: collector.matchesInOrder(), clippedLines: collector.clippedLines, jsonBytes };
}

async function countsOf(dir: string, query: string, files: string[]) {
  const counter = new CountCollector();
  await runRipgrep(
    [
      '--count-matches',
      '--null',
      '--with-filename',
      '--smart-case',
      '-m',
      '1000',
      '-e',
      query,
      '--',
      ...files,
    ],
    { cwd: dir, separator: '\0', onLine: (record) => counter.push(record) },
  );
  return new Map(counter.counts.map((c) => [c.file, c.count]));
}

async function onlyMatchingOutput(dir: string, query: string, files: string[]) {
  const chunks: Buffer[] = [];
  await runRipgrep([...ONLY_MATCHING_FLAGS, '--smart-case', '-m', '1000', '-e', query, '--', ...files], {
    cwd: dir,
    onLine: () => undefined,
    onChunk: (chunk) => void chunks.push(chunk),
  });
  return Buffer.concat(chunks);
}

describe('rows read from the files where ripgrep prints only the matches (issue 25)', () => {
  let dir: string;
  const pathOf = (name: string) => path.join(dir, name);
  beforeAll(async () => {
    dir = await emptyDir();
    for (const [name, content] of Object.entries({ ...SAME, ...LEFT_TO_JSON }))
      await writeFile(pathOf(name), content);
  });
  afterAll(async () => removeDir(dir));

  it('are the rows, columns, clipped lines and JSON sizes that reading --json gives', async () => {
    const files = Object.keys({ ...SAME, ...LEFT_TO_JSON }).map(pathOf);
    const json = await rowsByJson(dir, 'needle', files);
    const counts = await countsOf(dir, 'needle', files);
    const hits = parseOnlyMatching(await onlyMatchingOutput(dir, 'needle', files), new Set(files));
    let jsonBytes = 0;
    const clipped: { file: string; line: number; bytes: number }[] = [];
    for (const name of Object.keys(SAME)) {
      const file = pathOf(name);
      const read = rowsOfFile(file, hits.get(file) ?? [], counts.get(file) ?? 0);
      expect(read, name).toBeDefined();
      expect(read!.rows, name).toEqual(json.rows.filter((row) => row.file === file));
      clipped.push(...read!.clippedLines);
      // Escapes left out of a line's size are counted when a batch's size needs them.
      jsonBytes += read!.jsonBytes + escapedExtra(file, read!.unescaped);
    }
    const sameFiles = new Set(Object.keys(SAME).map(pathOf));
    const byPlace = (a: { file: string; line: number }, b: { file: string; line: number }) =>
      a.file.localeCompare(b.file) || a.line - b.line;
    expect(clipped.sort(byPlace)).toEqual(
      json.clippedLines.filter((c) => sameFiles.has(c.file)).sort(byPlace),
    );
    expect(clipped.map((c) => path.basename(c.file)).sort()).toEqual([
      'big-head.min.js',
      'big-tail.min.js',
      'many.txt',
    ]);
    for (const name of Object.keys(LEFT_TO_JSON)) {
      const file = pathOf(name);
      expect(rowsOfFile(file, hits.get(file) ?? [], counts.get(file) ?? 0), name).toBeUndefined();
    }
    // Batches of rows are sized by the JSON they read: the estimate is that of ripgrep's records
    // (their timings aside, a few characters a file).
    const jsonOfSame = (await rowsByJson(dir, 'needle', [...sameFiles])).jsonBytes;
    expect(Math.abs(jsonBytes - jsonOfSame)).toBeLessThan(20 * sameFiles.size + 300);
  });

  it('leave a file to --json where the two printers differ: empty matches, a gone file', async () => {
    const file = pathOf('plain.ts');
    const counts = await countsOf(dir, 'x*', [file]);
    const hits = parseOnlyMatching(await onlyMatchingOutput(dir, 'x*', [file]), new Set([file]));
    expect(rowsOfFile(file, hits.get(file) ?? [], counts.get(file) ?? 0)).toBeUndefined();
    const needle = parseOnlyMatching(await onlyMatchingOutput(dir, 'needle', [file]), new Set([file]));
    const lines = needle.get(file)!;
    expect(rowsOfFile(file, lines, 3)).toBeDefined();
    expect(rowsOfFile(file, lines, 4)).toBeUndefined(); // counted matches ripgrep did not print
    expect(rowsOfFile(pathOf('gone.ts'), lines, 3)).toBeUndefined();
    await symlink(file, pathOf('link.ts')); // a file replaced by a link since it was counted
    expect(rowsOfFile(pathOf('link.ts'), lines, 3)).toBeUndefined();
    expect(rowsOfFile(file, [...lines].reverse(), 3)).toBeUndefined(); // lines out of order
    const moved = lines.map((hit) => ({ ...hit, offset: hit.offset + 1 }));
    expect(rowsOfFile(file, moved, 3)).toBeUndefined(); // a line that no longer holds its match
  });

  it('skip what is not a match record: a cut record, a note, unknown paths', () => {
    const known = '/a/b.txt';
    const out = Buffer.from(
      `/x/binary: binary file matches (found "\\0" byte around offset 3)\n${known}\x002:5:12:hit\n` +
        `/unknown\x001:1:0:hit\n${known}\x00bad:1:0:hit\n${known}\x003:1:20:cut`,
    );
    expect(parseOnlyMatching(out, new Set([known]))).toEqual(
      new Map([[known, [{ line: 2, offset: 8, starts: [4], texts: [Buffer.from('hit')] }]]]),
    );
  });

  it('read as ripgrep writes them, in chunks: the same hits, each file said whole once the next begins', async () => {
    const files = Object.keys({ ...SAME, ...LEFT_TO_JSON }).map(pathOf);
    const out = await onlyMatchingOutput(dir, 'needle', files);
    const whole = parseOnlyMatching(out, new Set(files));
    for (const size of [1, 7, 4096, 65_536]) {
      const parser = new OnlyMatchingParser(new Set(files));
      const said: string[] = [];
      for (let at = 0; at < out.length; at += size) said.push(...parser.push(out.subarray(at, at + size)));
      expect(parser.files).toEqual(whole);
      // Every file but the last is said whole, once, after its last record.
      expect(said.sort()).toEqual(
        [...whole.keys()].sort().filter((f) => f !== [...parser.files.keys()].at(-1)),
      );
      expect(parser.reopened.size).toBe(0);
    }
    // A file whose records come again after another's is one read too soon.
    const parser = new OnlyMatchingParser(new Set(['/a', '/b']));
    expect(parser.push(Buffer.from('/a\x001:1:0:x\n/b\x001:1:0:x\n/a\x002:1:2:x\n'))).toEqual(['/a', '/b']);
    expect([...parser.reopened]).toEqual(['/a']);
  });

  it('search_content shows the same rows through a client as reading --json (binary, BOM, long lines)', async () => {
    const server = await connect([dir]);
    try {
      // A binary file's lines depend on whether ripgrep memory-maps it, which it does when a run names
      // at most ten files: one batch of rows of six files (mapped), one of twelve (read).
      const few = ['binary.bin', 'bom.txt', 'big-tail.min.js', 'crlf.txt', 'latin1.txt', 'not-utf8-huge.txt'];
      const many = ['binary.bin', ...Array.from({ length: 11 }, (_, i) => `small-${i}.txt`)];
      for (const names of [few, many]) {
        const answer = await server.json('search_content', { query: 'needle', files: names });
        const json = await rowsByJson(dir, 'needle', names.map(pathOf));
        const rows = json.rows.map((row) => ({ ...row, file: path.relative(dir, row.file) }));
        expect(answer.matches).toEqual(rows);
        expect(rows.filter((row) => row.file === 'binary.bin')).toHaveLength(names === few ? 1 : 2);
      }
    } finally {
      await server.close();
    }
  });
});
