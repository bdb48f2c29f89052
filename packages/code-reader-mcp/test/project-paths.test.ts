// The per-folder policy checks of results ripgrep reported (issue 13: one check per folder, not per
// file). ripgrep never follows links, so a link inside a listed path means the tree changed under the
// walk: the file must be judged by where it really is.
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathPolicy } from '@mcp-workbench/core';
import { ProjectPaths, ProjectState } from '../src/project/state.js';
import { emptyDir, removeDir } from './helpers.js';

const posix = process.platform !== 'win32';
let root: string;
let outside: string;

beforeAll(async () => {
  root = await realpath(await emptyDir());
  outside = await realpath(await emptyDir());
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true });
  await mkdir(path.join(root, 'secret'));
  await writeFile(path.join(root, 'src', 'a.ts'), 'a\n');
  await writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'b\n');
  await writeFile(path.join(root, 'secret', 'key.txt'), 'k\n');
  await writeFile(path.join(outside, 'stolen.txt'), 's\n');
  if (posix) {
    await symlink(outside, path.join(root, 'escape'));
    await symlink(path.join(root, 'src'), path.join(root, 'alias'));
    await symlink(path.join(root, 'secret'), path.join(root, 'hidden'));
  }
});

afterAll(async () => {
  await removeDir(root);
  await removeDir(outside);
});

const pathsFor = async (denyGlobs: string[] = []) =>
  new ProjectPaths(await PathPolicy.create({ roots: [root], denyGlobs }), new ProjectState());

describe('ProjectPaths checks of reported files', () => {
  it('allows files in plain folders and refuses paths outside the roots', async () => {
    const paths = await pathsFor();
    const denied = paths.deniedPredicate();
    const inside = [path.join(root, 'src', 'a.ts'), path.join(root, 'src', 'deep', 'b.ts')];
    expect(inside.map(denied)).toEqual([false, false]);
    expect(denied(path.join(outside, 'stolen.txt'))).toBe(true);
    const allowed = await paths.allowedFiles(inside);
    expect(inside.map(allowed)).toEqual([true, true]);
  });

  // Symbolic links need privileges on Windows.
  it.skipIf(!posix)('judges a file by its real folder when a link is on the way', async () => {
    const paths = await pathsFor(['secret/']);
    const escaped = path.join(root, 'escape', 'stolen.txt');
    const aliased = path.join(root, 'alias', 'a.ts');
    const hidden = path.join(root, 'hidden', 'key.txt');
    const gone = path.join(root, 'gone', 'x.ts');
    const plain = path.join(root, 'src', 'a.ts');
    const allowed = await paths.allowedFiles([escaped, aliased, hidden, gone, plain]);
    expect([escaped, aliased, hidden, gone, plain].map(allowed)).toEqual([false, true, false, false, true]);
  });

  it("shows a path as the policy does: relative to the root, '.' for the root, its own text outside", async () => {
    const paths = await pathsFor();
    const shown = [
      root,
      path.join(root, 'src', 'a.ts'),
      `${root}/src/../secret/key.txt`,
      `${root}/src//deep/b.ts`,
      `${root}/src/./a.ts`,
      `${root}/src/`,
      `${root}x/a.ts`, // a sibling whose name starts with the root's
      path.join(outside, 'stolen.txt'),
    ];
    expect(shown.map((p) => paths.display(p))).toEqual(shown.map((p) => paths.policy.displayPath(p)));
    expect(paths.display(path.join(root, 'src', 'a.ts'))).toBe('src/a.ts');
    expect(paths.display(root)).toBe('.');
  });

  it.skipIf(!posix)('judges each file by its real folder, links on the way included', async () => {
    for (const deny of [[], ['secret/']]) {
      const paths = await pathsFor(deny);
      const files = [
        path.join(root, 'escape', 'stolen.txt'),
        path.join(root, 'alias', 'a.ts'),
        path.join(root, 'hidden', 'key.txt'),
        path.join(root, 'gone', 'x.ts'),
        path.join(root, 'src', 'deep', 'b.ts'),
        path.join(root, 'a.ts'),
        path.join(outside, 'stolen.txt'),
      ];
      const denied = paths.deniedPredicate();
      const allowed = await paths.allowedFiles(files);
      const verdicts = files.map((file) => !denied(file) && allowed(file));
      expect(verdicts).toEqual([false, true, deny.length === 0, false, true, true, false]);
    }
  });

  it('with deny globs, checks each file name too', async () => {
    const paths = await pathsFor(['*.txt']);
    const denied = paths.deniedPredicate();
    expect(denied(path.join(root, 'secret', 'key.txt'))).toBe(true);
    expect(denied(path.join(root, 'src', 'a.ts'))).toBe(false);
  });
});
