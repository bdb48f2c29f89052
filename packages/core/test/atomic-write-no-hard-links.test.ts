// On file systems without hard links (FAT32/exFAT USB drives, many SMB shares), link() fails with EPERM
// or ENOTSUP: a write that must not replace an existing file still lands, and still never replaces one.
import fsPromises, { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withAtomicFile } from '../src/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

// Test files share their worker's modules (isolate: false): link is replaced for this file's tests only.
const failure = { code: 'EPERM' };
const realLink = fsPromises.link;
beforeEach(() => {
  fsPromises.link = async () => {
    throw Object.assign(new Error(`${failure.code}: operation not permitted, link`), { code: failure.code });
  };
});
afterEach(() => {
  fsPromises.link = realLink;
});

const newTempDir = tempDirsRemovedAfterEach();

describe('a write that must not replace a file, where the file system has no hard links', () => {
  it.each(['EPERM', 'ENOTSUP', 'ENOSYS'])(
    'writes a new file (link fails with %s) and leaves no temp file',
    async (code) => {
      failure.code = code;
      const dir = await newTempDir('nolink-');
      const target = path.join(dir, 'book_patched.xlsx');
      await withAtomicFile(target, (file) => file.writeFile('new workbook').then(() => undefined), {
        noClobber: true,
      });
      expect(await readFile(target, 'utf8')).toBe('new workbook');
      expect(await readdir(dir)).toEqual(['book_patched.xlsx']);
    },
  );

  it('still refuses to replace a file that is there', async () => {
    failure.code = 'EPERM';
    const dir = await newTempDir('nolink-');
    const target = path.join(dir, 'report.json');
    await writeFile(target, 'somebody else');
    await expect(
      withAtomicFile(target, (file) => file.writeFile('mine').then(() => undefined), { noClobber: true }),
    ).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(target, 'utf8')).toBe('somebody else');
    expect(await readdir(dir)).toEqual(['report.json']);
  });

  it('passes on other link errors as they are', async () => {
    failure.code = 'EIO';
    const dir = await newTempDir('nolink-');
    const target = path.join(dir, 'out.json');
    await expect(
      withAtomicFile(target, (file) => file.writeFile('x').then(() => undefined), { noClobber: true }),
    ).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(dir)).toEqual([]);
  });
});
