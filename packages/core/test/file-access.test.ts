import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setProcFdSupport } from '../src/fs/beneath.js';
import { localFiles, PathPolicy, toToolError } from '../src/index.js';
import { startLinkFlipper } from '../src/testing/index.js';

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'file-access-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'sub', 'a.txt'), 'inside');
  await writeFile(path.join(outside, 'secret.txt'), 'OUTSIDE');
  await symlink(path.join(root, 'sub'), path.join(root, 'sub-link'));
  await symlink(outside, path.join(root, 'out-link'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const hasMkfifo = process.platform !== 'win32';

// Linux walks names through /proc/self/fd; other systems open by path and check again after the open.
describe.each([
  ['descriptor walk', true],
  ['open-then-verify fallback', false],
])('PathPolicy file access (%s)', (_name, procFd) => {
  beforeAll(() => setProcFdSupport(process.platform === 'linux' ? procFd : false));
  afterAll(() => setProcFdSupport(undefined));

  it('reads files inside the roots, also through links that stay inside', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    expect((await policy.readFile('sub/a.txt')).toString()).toBe('inside');
    expect((await policy.readFile('sub-link/a.txt')).toString()).toBe('inside');
    const opened = await policy.openFile(path.join(root, 'sub', 'a.txt'));
    try {
      expect(opened.path).toBe(path.join(root, 'sub', 'a.txt'));
      expect(opened.stats.size).toBe(6);
    } finally {
      await opened.handle.close();
    }
  });

  it('refuses links out of the roots, for reads and for writes', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    await expect(policy.readFile('out-link/secret.txt')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    await expect(policy.writeFileAtomic('out-link/new.txt', 'x')).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
    });
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('refuses a file larger than maxBytes with LIMIT_EXCEEDED', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    await expect(policy.readFile('sub/a.txt', { maxBytes: 3 })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
    });
    expect((await policy.readFile('sub/a.txt', { maxBytes: 6 })).toString()).toBe('inside');
  });

  it.skipIf(!hasMkfifo)('refuses a named pipe at once instead of hanging on it', async () => {
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    try {
      const policy = await PathPolicy.create({ roots: [root] });
      const started = Date.now();
      await expect(policy.readFile('pipe')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(policy.resolve('pipe', { mustExist: true, kind: 'file' })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('named pipe'),
      });
      await expect(localFiles.readFile(fifo)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await rm(fifo, { force: true });
    }
  });

  it.skipIf(!existsSync('/dev/zero'))('refuses a device node instead of reading it forever', async () => {
    // A root holding a device (as if /dev/zero had been linked into the tree): refused on the handle.
    const policy = await PathPolicy.create({ roots: ['/dev'] });
    await expect(policy.readFile('zero')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('character device'),
    });
    await expect(localFiles.readFile('/dev/zero', { maxBytes: 10 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('writes atomically inside the roots, creating missing folders, and makes directories', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    const written = await policy.writeFileAtomic('made/deep/file.txt', 'new');
    expect(written).toBe(path.join(root, 'made', 'deep', 'file.txt'));
    expect(await readFile(written, 'utf8')).toBe('new');
    expect(await policy.makeDirectory('made/other/leaf')).toBe(path.join(root, 'made', 'other', 'leaf'));
    expect(await readdir(path.join(root, 'made', 'other'))).toEqual(['leaf']);
    await expect(
      policy.writeFileAtomic('missing-dir/file.txt', 'x', { createParents: false }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('the check-then-open race', () => {
  // A separate process flips root/flip between a real folder and a link to the outside folder while
  // the server reads and writes through it: nothing outside may be read, written, or left behind.
  it('never reads outside content, never writes outside, and leaves no temp file', async () => {
    const ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'race-')));
    const inRoot = path.join(ws, 'root');
    const out = path.join(ws, 'outside');
    await mkdir(path.join(inRoot, 'flip'), { recursive: true });
    await mkdir(out);
    await writeFile(path.join(inRoot, 'flip', 'f.txt'), 'inside');
    await writeFile(path.join(out, 'f.txt'), 'OUTSIDE');
    const policy = await PathPolicy.create({ roots: [inRoot] });
    const flipper = await startLinkFlipper(path.join(inRoot, 'flip'), out);
    const outcomes = { read: 0, written: 0, leaked: 0 };
    const refusals: Record<string, number> = {};
    const refused = (reason: unknown) => {
      const code = toToolError(reason).code; // as a tool answers it
      refusals[code] = (refusals[code] ?? 0) + 1;
    };
    // At least 1.5 s, and on until the attack has been seen both ways (a refusal at the link, and reads
    // and writes that went through): on a loaded machine 1.5 s could pass with no refusal at all.
    const seenBothWays = () =>
      (refusals.PATH_OUTSIDE_ROOT ?? 0) > 0 && outcomes.read > 0 && outcomes.written > 0;
    try {
      const started = Date.now();
      for (
        let i = 0;
        Date.now() - started < 1500 || (!seenBothWays() && Date.now() - started < 20_000);
        i++
      ) {
        const [read, write] = await Promise.allSettled([
          policy.readFile('flip/f.txt'),
          policy.writeFileAtomic(`flip/w${i}.txt`, `write ${i}`),
        ]);
        if (read?.status === 'fulfilled') {
          outcomes.read++;
          if (read.value.toString() !== 'inside') outcomes.leaked++;
        } else refused(read?.reason);
        if (write?.status === 'fulfilled') outcomes.written++;
        else refused(write?.reason);
      }
    } finally {
      await flipper.stop();
    }
    // The attack was live (the link was seen), yet nothing leaked and every refusal has a proper code.
    expect(flipper.flips()).toBeGreaterThan(50);
    expect(refusals.PATH_OUTSIDE_ROOT ?? 0).toBeGreaterThan(0);
    expect(
      Object.keys(refusals).filter((code) => !['PATH_OUTSIDE_ROOT', 'NOT_FOUND', 'CONFLICT'].includes(code)),
    ).toEqual([]);
    expect(outcomes.leaked).toBe(0);
    expect(outcomes.read).toBeGreaterThan(0);
    expect(outcomes.written).toBeGreaterThan(0);
    expect(await readdir(out)).toEqual(['f.txt']);
    const everything = await readdir(ws, { recursive: true });
    expect(everything.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    await rm(ws, { recursive: true, force: true });
  });
});

describe('openDirBeneath for servers that keep their own files', () => {
  it.runIf(process.platform !== 'win32')('creates missing directories with the mode asked for', async () => {
    const { openDirBeneath } = await import('../src/engine.js');
    const { stat } = await import('node:fs/promises');
    const dir = await openDirBeneath(base, ['private', 'inner'], { create: true, mode: 0o700 });
    await dir.close();
    expect((await stat(path.join(base, 'private'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(base, 'private', 'inner'))).mode & 0o777).toBe(0o700);
    await expect(openDirBeneath(root, ['out-link', 'x'], { create: true })).rejects.toMatchObject({
      name: 'PathChangedError',
    });
  });
});
