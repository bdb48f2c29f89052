// Methods defined on a constructor's prototype are methods of that class, and parameter counts count
// what a caller passes (not Python's / and * markers, not TypeScript's `this: T`).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await emptyDir();
  // As yauzl, and much of npm before classes, writes its methods.
  await writeFile(
    path.join(dir, 'zip.js'),
    [
      'function ZipFile(fd) { this.fd = fd; }',
      'ZipFile.prototype.readEntry = function () { return 1; };',
      'ZipFile.prototype.close = function (cb) { cb(); };',
      'exports.open = function (path, options) { return new ZipFile(path); };',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(dir, 'params.py'),
    'def m(self, a, /, b, *, c=1, **kw):\n    return a\n\ndef n(a, *args):\n    return a\n',
  );
  await writeFile(
    path.join(dir, 'this.ts'),
    'export function b(this: Window, p?: number, q = 2) {\n  return q;\n}\n',
  );
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

interface Fn {
  name: string;
  kind: string;
  class: string;
  params: number;
}
const functions = async (file: string) =>
  ((await server.json('analyze_code_structure', { file_path: file })).functions as Fn[]).map(
    (f) => `${f.kind} ${f.class}.${f.name}/${f.params}`,
  );

describe('functions and their parameters', () => {
  it('lists prototype methods under their constructor, and query_code finds them by name and class', async () => {
    expect(await functions('zip.js')).toEqual([
      'function .ZipFile/1',
      'method ZipFile.readEntry/0',
      'method ZipFile.close/1',
      'function .exports.open/2',
    ]);
    const found = await server.json('query_code', {
      file_path: 'zip.js',
      query_key: 'functions',
      filter: 'name=readEntry',
    });
    expect(found.count).toBe(1);
    const inClass = await server.json('query_code', {
      file_path: 'zip.js',
      query_key: 'functions',
      filter: 'class=ZipFile',
    });
    expect(inClass.count).toBe(2);
  });

  it('counts the parameters a caller passes', async () => {
    expect(await functions('params.py')).toEqual(['function .m/5', 'function .n/2']);
    expect(await functions('this.ts')).toEqual(['function .b/2']);
  });
});
