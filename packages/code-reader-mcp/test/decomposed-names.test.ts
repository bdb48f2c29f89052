// macOS stores the names its apps and downloads write decomposed (NFD: が as か + ゛), while a model types
// them composed (NFC). Globs and name patterns find such files whichever form either side is in.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;
const nfd = (name: string) => name.normalize('NFD');

beforeAll(async () => {
  dir = await emptyDir();
  await mkdir(path.join(dir, nfd('資料')), { recursive: true });
  await writeFile(path.join(dir, nfd('がぎ-設計.md')), 'ばぱ TODO one\n');
  await writeFile(path.join(dir, nfd('café.txt')), 'TODO two\n');
  await writeFile(path.join(dir, 'plain.md'), 'TODO three\n');
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

const names = (files: (string | { path: string })[]) =>
  files.map((f) => (typeof f === 'string' ? f : f.path).normalize('NFC')).sort();

describe('file names stored decomposed', () => {
  it('list_files: a composed glob or pattern finds them, and a composed exclude leaves them out', async () => {
    const byGlob = await server.json('list_files', { glob: 'がぎ*' });
    expect(names(byGlob.files as { path: string }[])).toEqual(['がぎ-設計.md']);
    const byPattern = await server.json('list_files', { pattern: '^(がぎ|café)' });
    expect(names(byPattern.files as { path: string }[])).toEqual(['café.txt', 'がぎ-設計.md']);
    const excluded = await server.json('list_files', { exclude: ['がぎ*', 'café*'] });
    expect(names(excluded.files as { path: string }[])).toEqual(['plain.md']);
  });

  it('search_content: composed include and exclude globs apply to them', async () => {
    const included = await server.json('search_content', { query: 'TODO', include_globs: 'がぎ*' });
    expect(names((included.matches as { file: string }[]).map((m) => m.file))).toEqual(['がぎ-設計.md']);
    const excluded = await server.json('search_content', {
      query: 'TODO',
      exclude_globs: ['がぎ*', 'café*'],
    });
    expect(names((excluded.matches as { file: string }[]).map((m) => m.file))).toEqual(['plain.md']);
  });
});
