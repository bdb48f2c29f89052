import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentCache } from '../src/code/analysis-cache.js';
import { analysisCache } from '../src/code/analyze.js';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await emptyDir();
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

describe('check_code_scale reuses analyses of unchanged files (spec 001: metrics cache by content hash)', () => {
  it('answers a repeated call from the cache and sees an edit that keeps size and mtime', async () => {
    const file = path.join(dir, 'calc.py');
    const when = new Date('2024-05-01T00:00:00Z');
    await writeFile(file, 'def add(a, b):\n    return a + b\n');
    await utimes(file, when, when);
    const first = await server.both('check_code_scale', { file_path: 'calc.py' });
    const hits = analysisCache.hits;
    const again = await server.json('check_code_scale', { file_path: 'calc.py' });
    expect(analysisCache.hits).toBe(hits + 1);
    expect(again).toEqual(first);

    // Same length, same mtime, different content: the content hash tells them apart.
    await writeFile(file, 'def sub(a, b):\n    return a - b\n');
    await utimes(file, when, when);
    const edited = await server.json('check_code_scale', { file_path: 'calc.py', include_details: true });
    expect(edited.metrics).toMatchObject({ total_lines: 2, bytes: 32 });
    expect((edited.metrics as { content_hash: string }).content_hash).not.toBe(
      (first.metrics as { content_hash: string }).content_hash,
    );
    expect((edited.functions as { name: string }[]).map((f) => f.name)).toEqual(['sub']);
  });

  it('serves a batch that names files measured before from the cache', async () => {
    for (const name of ['a.ts', 'b.ts'])
      await writeFile(path.join(dir, name), `export const ${name[0]} = 1;\n`);
    const batch = { file_paths: ['a.ts', 'b.ts'], metrics_only: true };
    const first = await server.json('check_code_scale', batch);
    const hits = analysisCache.hits;
    expect(await server.json('check_code_scale', batch)).toEqual(first);
    expect(analysisCache.hits).toBe(hits + 2);
  });
});

describe('ContentCache', () => {
  it('misses on another hash, keeps the most recently used and evicts the oldest', () => {
    const cache = new ContentCache<string>(2);
    cache.set('a', 'h1', 'A');
    cache.set('b', 'h1', 'B');
    expect(cache.get('a', 'h2')).toBeUndefined();
    expect(cache.get('a', 'h1')).toBe('A'); // a is now the most recent
    cache.set('c', 'h1', 'C');
    expect(cache.get('b', 'h1')).toBeUndefined();
    expect([cache.get('a', 'h1'), cache.get('c', 'h1')]).toEqual(['A', 'C']);
  });
});
