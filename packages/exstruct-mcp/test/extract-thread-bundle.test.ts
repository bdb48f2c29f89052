// The built extraction thread loads its code as one file (issue 26 §1, first calls): the build bundles
// src/jobs/extract-thread.ts with everything it imports but core (scripts/bundle-extract-thread.mjs), and
// the thread loads that bundle instead of ~80 modules. Every extraction through the built bin (the stdio
// tests) runs the bundle; this checks that it is the one loaded and that it shares core with the package.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './extract-helpers.js';

const DIST = path.join(FIXTURES, '..', '..', 'dist');
const BUNDLE = path.join(DIST, 'extract', 'extract-thread.bundle.js');

interface ExtractThread {
  extractJob: unknown;
  warmUp: unknown;
}

describe('the extraction thread of the built package', () => {
  it('loads the bundle, not the separate modules', async () => {
    const jobs = (await import(pathToFileURL(path.join(DIST, 'jobs', 'jobs.js')).href)) as {
      loadExtractThread: () => Promise<ExtractThread>;
      loadJob: (name: string) => Promise<unknown>;
    };
    const bundle = (await import(pathToFileURL(BUNDLE).href)) as ExtractThread;
    const separate = (await import(
      pathToFileURL(path.join(DIST, 'jobs', 'extract-job.js')).href
    )) as ExtractThread;
    const loaded = await jobs.loadExtractThread();
    expect(typeof bundle.extractJob).toBe('function');
    expect(loaded.extractJob).toBe(bundle.extractJob);
    expect(loaded.warmUp).toBe(bundle.warmUp);
    expect(await jobs.loadJob('extract')).toBe(bundle.extractJob);
    expect(loaded.extractJob).not.toBe(separate.extractJob);
  });

  it("imports only Node builtins and core's worker entry: one ToolError class, one call-signal store", async () => {
    const text = await readFile(BUNDLE, 'utf8');
    const specifiers = [...text.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
    // Not the engine entry: its path policy, globs and logger cost a fresh thread ~20 ms of CPU.
    expect(specifiers).toContain('@mcp-workbench/core/worker');
    expect(specifiers.filter((s) => !s.startsWith('node:') && s !== '@mcp-workbench/core/worker')).toEqual(
      [],
    );
    expect(text).not.toMatch(/\bimport\(\s*['"]\./);
  });
});
