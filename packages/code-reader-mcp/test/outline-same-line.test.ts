// Declarations sharing a line (audit t42): the outline nests rows by offsets, not by lines, so two
// functions on one line are both listed, and a minified bundle gets an outline, paged within budget.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

const FILES: Record<string, string> = {
  'twoper.js':
    'function a() { return 1; } function b() { return 2; }\n' +
    'class K { m() {} } function c() {}\n\nfunction d() {\n  return 4;\n}\n',
  'top1.js': 'function helper(a) {  return a + 1;}class Widget {  render() {    return helper(1);  }}\n',
  // A webpack wrapper on one line: the named functions inside anonymous ones are the outline.
  'wp1.js':
    '!function (e, t) {  module.exports = t();}(window, function () {  return function (e) {    function r(a) {' +
    '      return e[a];    }    return r(0);  }([    function (e, t) {      function s(x) {        return x;' +
    '      }      e.exports = s;    },  ]);});\n',
  'classes1.js': 'class A { x() {} } class B { y() {} }\n',
  // A minified library: 2,000 functions on one line.
  'bundle.min.js': `!function(){${Array.from({ length: 2000 }, (_, i) => `function f${i}(a){return a+${i}}`).join(';')}}();\n`,
};

interface Row {
  kind: string;
  name: string;
  class: string;
}

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await emptyDir();
  for (const [name, text] of Object.entries(FILES)) await writeFile(path.join(dir, name), text);
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

const rows = async (file: string) =>
  ((await server.both('get_code_outline', { file_path: file })).outline as Row[]).map((r) => [
    r.kind,
    r.name,
    r.class,
  ]);

describe('get_code_outline on declarations sharing a line', () => {
  it('lists every function of a line, in file order', async () => {
    expect(await rows('twoper.js')).toEqual([
      ['function', 'a', ''],
      ['function', 'b', ''],
      ['class', 'K', ''],
      ['method', 'm', 'K'],
      ['function', 'c', ''],
      ['function', 'd', ''],
    ]);
  });

  it('keeps a function beside a class on its line at the top level', async () => {
    expect(await rows('top1.js')).toEqual([
      ['function', 'helper', ''],
      ['class', 'Widget', ''],
      ['method', 'render', 'Widget'],
    ]);
  });

  it('does not nest a class in the class before it on the same line', async () => {
    expect(await rows('classes1.js')).toEqual([
      ['class', 'A', ''],
      ['method', 'x', 'A'],
      ['class', 'B', ''],
      ['method', 'y', 'B'],
    ]);
  });

  it('lists the named functions of a one-line webpack wrapper', async () => {
    expect(await rows('wp1.js')).toEqual([
      ['function', 'r', ''],
      ['function', 's', ''],
    ]);
  });

  it('outlines a minified bundle in pages within the answer budget', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await server.call('get_code_outline', {
        file_path: 'bundle.min.js',
        ...(cursor ? { cursor } : {}),
      });
      expect(page.error, JSON.stringify(page.error)).toBeUndefined();
      expect(countTokens(page.text)).toBeLessThanOrEqual(8000);
      const answer = page.structured as { outline: Row[]; next_cursor?: string };
      names.push(...answer.outline.map((r) => r.name));
      cursor = answer.next_cursor;
    } while (cursor);
    expect(names).toEqual(Array.from({ length: 2000 }, (_, i) => `f${i}`));
  });
});
