// A cancelled or killed ripgrep must never crash the server: its last line may be cut short.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRipgrep } from '../src/rg/run.js';
import { JsonMatchCollector } from '../src/search/collect.js';
import { emptyDir, removeDir } from './helpers.js';

let dir: string;

beforeAll(async () => {
  dir = await emptyDir();
  // ~12 MB of matching lines: rg is still streaming JSON when the run is cancelled.
  const line = 'TODO: 日本語の行 with enough text to make each JSON record long ' + 'x'.repeat(60);
  await writeFile(path.join(dir, 'big.log'), `${line}\n`.repeat(100_000));
});
afterAll(async () => removeDir(dir));

describe('ripgrep runs that end early', () => {
  it('the collector skips a half-written JSON line instead of throwing', () => {
    const collector = new JsonMatchCollector(0, 100);
    expect(collector.push('{"type":"match","data":{"path":{"text":"a.ts"},"lines":{"te')).toBe(true);
    expect(collector.matches).toEqual([]);
  });

  it('a run cancelled mid-stream rejects with CANCELLED and never hands a cut line to the reader', async () => {
    for (let round = 0; round < 20; round++) {
      const controller = new AbortController();
      let lines = 0;
      const stopAt = 1 + Math.floor(Math.random() * 2000);
      const run = runRipgrep(['--json', 'TODO', 'big.log'], {
        cwd: dir,
        signal: controller.signal,
        // Reads like the collector did before: JSON.parse of every line it is given.
        onLine: (line) => {
          JSON.parse(line);
          if (++lines === stopAt) controller.abort();
        },
      });
      await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    }
  });

  it('a spooled run (ripgrep writing to a private file) reads as a piped one, time limit and cancel included, and leaves no file', async () => {
    const spoolDir = path.join(dir, 'spool');
    await mkdir(spoolDir);
    const lines = async (spool: boolean) => {
      const seen: string[] = [];
      const result = await runRipgrep(['--json', 'TODO', 'big.log'], {
        cwd: dir,
        spool,
        spoolDir,
        onLine: (line) => void seen.push(line),
      });
      return { result, seen };
    };
    const piped = await lines(false);
    const spooled = await lines(true);
    expect(spooled.result).toEqual(piped.result);
    expect(spooled.seen.length).toBe(piped.seen.length);
    expect(spooled.seen.slice(0, 1000)).toEqual(piped.seen.slice(0, 1000));
    expect(await readdir(spoolDir)).toEqual([]);
    // Killed at its time limit: what ripgrep wrote before the kill is read (whole records only). The
    // walk of / takes seconds here; 300 ms was too short for ripgrep to write anything at all while the
    // other packages' tests held both cores (a CI run's only failure, 2026-11-29).
    const names: string[] = [];
    const timed = await runRipgrep(['--files', '--null', '/'], {
      cwd: dir,
      separator: '\0',
      timeoutMs: 1000,
      spool: true,
      spoolDir,
      onLine: (name) => void names.push(name),
    });
    expect(timed.timedOut).toBe(true);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith('/'))).toBe(true);
    expect(await readdir(spoolDir)).toEqual([]);
    const controller = new AbortController();
    const cancelled = runRipgrep(['--files', '/'], {
      cwd: dir,
      spool: true,
      spoolDir,
      signal: controller.signal,
      onLine: () => true,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(cancelled).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await readdir(spoolDir)).toEqual([]);
    // No temporary file can be made there: the run reads a pipe instead, with the same records.
    const seen: string[] = [];
    const fallback = await runRipgrep(['--json', 'TODO', 'big.log'], {
      cwd: dir,
      spool: true,
      spoolDir: path.join(dir, 'no-such-folder'),
      onLine: (line) => void seen.push(line),
    });
    expect(fallback).toEqual(piped.result);
    expect(seen.length).toBe(piped.seen.length);
  });

  it('an exception thrown by the reader fails the run instead of escaping as an uncaught exception', async () => {
    const run = runRipgrep(['--json', 'TODO', 'big.log'], {
      cwd: dir,
      onLine: () => {
        throw new Error('reader broke');
      },
    });
    await expect(run).rejects.toThrow('reader broke');
  });
});
