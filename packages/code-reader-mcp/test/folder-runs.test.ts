// count_only reads `rg --files --null` a run of one folder's names at a time (issue 25): every name is
// counted once, in its own folder, whatever the chunks, and a folder's first name stands for it.
import { describe, expect, it } from 'vitest';
import { scanRuns } from '../src/files/folder-runs.js';

/** Counts per folder the way count_only does: chunk by chunk, carrying the unfinished name over. */
function countByFolder(
  output: string,
  chunkSize: number,
): { counts: Map<string, number>; samples: string[] } {
  const counts = new Map<string, number>();
  const samples: string[] = [];
  let carry = '';
  const feed = (text: string) => {
    const rest = scanRuns(text, (folder, first, firstEnd, names) => {
      if (!counts.has(folder)) samples.push(text.slice(first, firstEnd));
      counts.set(folder, (counts.get(folder) ?? 0) + names);
    });
    carry = text.slice(rest);
  };
  for (let at = 0; at < output.length; at += chunkSize) feed(carry + output.slice(at, at + chunkSize));
  if (carry !== '') feed(`${carry}\0`);
  return { counts, samples };
}

/** The same count, one name at a time. */
function naive(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) {
    if (name === '' || name.endsWith('/')) continue;
    const folder = name.slice(0, name.lastIndexOf('/') + 1);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return counts;
}

describe('scanRuns', () => {
  const names = [
    './README.md',
    './src/a.ts',
    './src/b.ts',
    './src/deep/c.ts',
    './src/b2.ts', // its folder again, after another
    './top', // at the root, no extension
    ...Array.from({ length: 700 }, (_, i) => `./big/f${i}.txt`), // a run longer than one match
    './src/dé/ünï.ts', // UTF-8 bytes read as latin1
    './src/new\nline.ts', // a newline is part of a name
    'bare', // no folder at all
    './src/deeper/x/y.ts',
    './src/deeper/x/z.ts',
    './src/', // an empty name is not counted
    '',
  ];
  const output = Buffer.from(`${names.join('\0')}\0`, 'utf8').toString('latin1');
  const expected = naive(names.map((name) => Buffer.from(name, 'utf8').toString('latin1')));

  it.each([1, 3, 7, 64, 4096])('counts every name once in its folder, in chunks of %i bytes', (size) => {
    const { counts } = countByFolder(output, size);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));
    expect([...counts.values()].reduce((a, b) => a + b)).toBe(names.length - 2);
  });

  it("gives each folder's first name as its sample", () => {
    const { samples } = countByFolder(output, 4096);
    expect(samples.slice(0, 5)).toEqual([
      './README.md',
      './src/a.ts',
      './src/deep/c.ts',
      './big/f0.txt',
      './src/dé/ünï.ts'.replace(/./gu, (c) => Buffer.from(c, 'utf8').toString('latin1')),
    ]);
  });

  it('leaves an unfinished last name for the next chunk', () => {
    const calls: number[] = [];
    const rest = scanRuns('./a/b\0./a/c\0./a/d', (_folder, _first, _end, names) => calls.push(names));
    expect(calls).toEqual([2]);
    expect(rest).toBe('./a/b\0./a/c\0'.length);
  });
});
