import { chmod, chown, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolServer, defineTool, PathPolicy, withAtomicFile, writeFileAtomic } from '../src/index.js';
import { connectInMemory } from '../src/testing/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

const newTempDir = tempDirsRemovedAfterEach();
const tempDir = () => newTempDir('atomic-');
const modeOf = async (file: string) => (await stat(file)).mode & 0o7777;

// POSIX permission bits: Windows keeps ACLs instead and reports only a read-only flag, so not there.
describe.skipIf(process.platform === 'win32')('atomic writes keep the replaced file’s permissions', () => {
  it.each([0o600, 0o640, 0o755, 0o444])('keeps mode %o', async (mode) => {
    const dir = await tempDir();
    const target = path.join(dir, 'f');
    await writeFile(target, 'old');
    await chmod(target, mode);
    await writeFileAtomic(target, 'new');
    expect(await modeOf(target)).toBe(mode);
    await withAtomicFile(target, (file) => file.writeFile('streamed').then(() => undefined));
    expect(await modeOf(target)).toBe(mode);
    expect(await readFile(target, 'utf8')).toBe('streamed');
  });

  it('drops setuid/setgid bits: they must not carry over to content this process wrote', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'tool');
    await writeFile(target, 'old');
    await chmod(target, 0o6755);
    await writeFileAtomic(target, 'new');
    expect(await modeOf(target)).toBe(0o755);
  });

  it('gives a new file the same default mode as before (0o644 under the umask)', async () => {
    const dir = await tempDir();
    const reference = path.join(dir, 'reference');
    await (await open(reference, 'wx', 0o644)).close();
    await writeFileAtomic(path.join(dir, 'new'), 'x');
    expect(await modeOf(path.join(dir, 'new'))).toBe(await modeOf(reference));
    await writeFileAtomic(path.join(dir, 'private'), 'x', { mode: 0o600 });
    expect(await modeOf(path.join(dir, 'private'))).toBe(0o600);
  });

  it.runIf(process.getuid?.() === 0)('keeps owner and group when running as root', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'owned');
    await writeFile(target, 'old');
    await chown(target, 4321, 4322);
    await writeFileAtomic(target, 'new');
    expect(await stat(target)).toMatchObject({ uid: 4321, gid: 4322 });
  });
});

describe('atomic writes of long file names', () => {
  const names = {
    'ascii 240 bytes': `${'a'.repeat(235)}.json`,
    'ascii 255 bytes (NAME_MAX)': `${'b'.repeat(250)}.json`,
    'two-byte UTF-8, 245 bytes': `${'é'.repeat(120)}.json`,
    'three-byte UTF-8, 253 bytes': `${'東'.repeat(83)}.txt`,
  };
  it.each(Object.entries(names))('writes a %s name and leaves no temp file', async (_label, name) => {
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    const dir = await tempDir();
    await writeFileAtomic(path.join(dir, name), 'x');
    await writeFileAtomic(path.join(dir, name), 'y');
    expect(await readdir(dir)).toEqual([name]);
    expect(await readFile(path.join(dir, name), 'utf8')).toBe('y');
  });
});

/** A writer that ignores any signal: 10 chunks, 30 ms apart. */
const slowWriter =
  (done?: () => void, started?: () => void) => async (file: import('node:fs/promises').FileHandle) => {
    started?.();
    for (let i = 0; i < 10; i++) {
      await file.write(`chunk ${i}\n`);
      await sleep(30);
    }
    done?.();
  };

const temps = async (dir: string) => (await readdir(dir)).filter((name) => name.endsWith('.tmp'));

describe('aborting an atomic write', () => {
  it('removes the temp file at once and leaves the target untouched', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'target.txt');
    await writeFile(target, 'ORIGINAL');
    const controller = new AbortController();
    const writing = withAtomicFile(target, slowWriter(), { signal: controller.signal });
    await expect.poll(() => temps(dir)).toHaveLength(1);
    controller.abort();
    expect(await temps(dir)).toEqual([]); // before the writer has even noticed
    await expect(writing).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await readFile(target, 'utf8')).toBe('ORIGINAL');
    expect(await readdir(dir)).toEqual(['target.txt']);
  });

  it('an abort while the write is starting never fills a temp file, and leaves none', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'target.txt');
    await writeFile(target, 'ORIGINAL');
    // Abort after 0, 1, … turns of the event loop: before, during and after the temp file is created.
    for (let turns = 0; turns < 12; turns++) {
      const controller = new AbortController();
      let startedAfterAbort = false;
      const writing = withAtomicFile(
        target,
        async (file) => {
          startedAfterAbort ||= controller.signal.aborted;
          await file.writeFile('NEW');
        },
        { signal: controller.signal },
      );
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      await writing.catch((error: { code?: string }) => expect(error.code).toBe('CANCELLED'));
      expect(startedAfterAbort, `abort after ${turns} turns`).toBe(false);
      expect(await temps(dir), `abort after ${turns} turns`).toEqual([]);
    }
  });

  it('refuses to start with a signal that is already aborted', async () => {
    const dir = await tempDir();
    await expect(
      writeFileAtomic(path.join(dir, 'x'), 'x', { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('is tied to the tool call it runs in: a client cancel abandons the write', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'target.txt');
    await writeFile(target, 'ORIGINAL');
    let finished: () => void = () => undefined;
    const writerDone = new Promise<void>((resolve) => (finished = resolve));
    let started: () => void = () => undefined;
    const writerStarted = new Promise<void>((resolve) => (started = resolve));
    const tool = defineTool({
      name: 'slow_write',
      title: 'Slow write',
      description: 'Writes slowly, ignoring its signal.',
      annotations: {},
      input: { path: z.string() },
      output: { ok: z.boolean() },
      async run(args, { paths }) {
        await withAtomicFile(await paths.resolve(args.path), slowWriter(finished, started));
        return { ok: true };
      },
    });
    const paths = await PathPolicy.create({ roots: [dir] });
    const session = await connectInMemory(createToolServer({ name: 't', version: '0' }, [tool], { paths }));
    const controller = new AbortController();
    const call = session.client.callTool(
      { name: 'slow_write', arguments: { path: 'target.txt' } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    call.catch(() => undefined);
    // The writer runs (a temp file seen earlier may still be before it: an abort then never calls it).
    await writerStarted;
    expect(await temps(dir)).toHaveLength(1);
    controller.abort();
    await expect.poll(() => temps(dir)).toEqual([]);
    await writerDone;
    await sleep(50);
    expect(await readFile(target, 'utf8')).toBe('ORIGINAL');
    expect(await readdir(dir)).toEqual(['target.txt']);
    await session.close();
  });
});
