import { readdir, readFile, writeFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  clampInteger,
  createLogger,
  decodeCursor,
  encodeCursor,
  utf8ByteLength,
  withAtomicFile,
  writeFileAtomic,
} from '../src/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

const tempDir = tempDirsRemovedAfterEach();

describe('cursors', () => {
  const schema = z.object({ file: z.string(), offset: z.number().int() });

  it('round-trip through an opaque string', () => {
    const cursor = encodeCursor({ file: 'a.json', offset: 120 });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, schema)).toEqual({ file: 'a.json', offset: 120 });
  });

  it('reject garbage and cursors of another shape with INVALID_ARGUMENT and a hint', () => {
    for (const bad of ['%%%', encodeCursor({ other: true }), '']) {
      expect(() => decodeCursor(bad, schema)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});

describe('clampInteger', () => {
  it('applies the default, keeps values in range and clamps large ones', () => {
    expect(clampInteger('max_count', undefined, 100, 1, 10000)).toBe(100);
    expect(clampInteger('max_count', 5, 100, 1, 10000)).toBe(5);
    expect(clampInteger('max_count', 50000, 100, 1, 10000)).toBe(10000);
  });

  it('rejects negatives and non-integers, naming the allowed range', () => {
    expect(() => clampInteger('max_count', -1, 100, 1, 10000)).toThrow(
      /max_count must be an integer from 1 to 10000/,
    );
    expect(() => clampInteger('max_count', 1.5, 100, 1, 10000)).toThrow(/from 1 to 10000/);
  });
});

describe('utf8ByteLength', () => {
  it('counts bytes, not characters', () => {
    expect(utf8ByteLength('abc')).toBe(3);
    expect(utf8ByteLength('東京')).toBe(6);
  });
});

describe('writeFileAtomic', () => {
  it('creates parents, replaces content and leaves no temp file', async () => {
    const dir = await tempDir('atomic-');
    const target = path.join(dir, 'a', 'b', 'out.json');
    await writeFileAtomic(target, '{"v":1}');
    await writeFileAtomic(target, Buffer.from('{"v":2}'));
    expect(await readFile(target, 'utf8')).toBe('{"v":2}');
    expect(await readdir(path.dirname(target))).toEqual(['out.json']);
  });

  it('leaves the old file intact and removes the temp file when the rename fails', async () => {
    const dir = await tempDir('atomic-');
    const target = path.join(dir, 'occupied');
    await writeFileAtomic(path.join(target, 'inner.txt'), 'keep me');
    // Renaming a file over a non-empty directory fails: the directory must survive untouched.
    await expect(writeFileAtomic(target, 'new')).rejects.toThrow();
    expect(await readFile(path.join(target, 'inner.txt'), 'utf8')).toBe('keep me');
    expect(await readdir(dir)).toEqual(['occupied']);
  });

  it('never replaces an existing file with noClobber, and streams through a file handle', async () => {
    const dir = await tempDir('atomic-');
    const target = path.join(dir, 'report.xlsx');
    await withAtomicFile(
      target,
      async (file) => {
        await file.write('part 1, ');
        await file.write('part 2');
      },
      { noClobber: true },
    );
    expect(await readFile(target, 'utf8')).toBe('part 1, part 2');
    await expect(writeFileAtomic(target, 'other', { noClobber: true })).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(await readFile(target, 'utf8')).toBe('part 1, part 2');
    expect(await readdir(dir)).toEqual(['report.xlsx']);
  });

  it('fails without creating parents when asked not to', async () => {
    const dir = await tempDir('atomic-');
    await expect(
      writeFileAtomic(path.join(dir, 'missing', 'x'), 'x', { createParents: false }),
    ).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('logger', () => {
  it('filters by level, prefixes the server name and appends to a log file', async () => {
    const dir = await tempDir('logger-');
    const file = path.join(dir, 'server.log');
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', name: 'demo', file, write: (l) => lines.push(l) });
    logger.info('hidden');
    logger.warn('careful', { n: 1 });
    logger.error('broken', new Error('boom'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/WARN \[demo\] careful \{"n":1\}/);
    expect(lines[1]).toContain('Error: boom');
    expect(await readFile(file, 'utf8')).toBe(lines.join(''));
  });

  it('survives an unwritable log file and circular extras', async () => {
    const dir = await tempDir('logger-');
    await writeFile(path.join(dir, 'ro.log'), '');
    await chmod(dir, 0o500);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      file: path.join(dir, 'missing', 'x.log'),
      write: (l) => lines.push(l),
    });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    logger.debug('loop', circular);
    expect(lines[0]).toContain('<ref *1>');
    await chmod(dir, 0o700);
  });
});
