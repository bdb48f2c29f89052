// The CLI continues a paged answer (spec 001: CLI parity): --cursor takes the next_cursor the previous
// page printed, --max-answer-tokens the page size, and stderr says when the output is partial.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli/args.js';
import { runCli } from '../src/cli/run.js';
import { emptyDir, removeDir } from './helpers.js';

const LINES = Array.from({ length: 3000 }, (_, i) => `def f${i}(a): return a + ${i}  # a line of Python\n`);
let dir: string;

beforeAll(async () => {
  dir = await emptyDir();
  await mkdir(path.join(dir, 'src'));
  await writeFile(path.join(dir, 'src', 'big.py'), LINES.join(''));
  for (let i = 0; i < 40; i++) await writeFile(path.join(dir, 'src', `m${i}.py`), `x = ${i}\n`);
});
afterAll(async () => removeDir(dir));

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(parseCliArgs(args), {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    cwd: dir,
  });
  return { code, stdout, stderr };
}

/** Runs `args`, then again with each --cursor the partial-output note gives, until none. */
async function allPages(args: string[]): Promise<{ stdout: string; stderr: string }[]> {
  const pages: { stdout: string; stderr: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await cli([...args, ...(cursor ? ['--cursor', cursor] : [])]);
    expect(page.code, page.stderr).toBe(0);
    pages.push(page);
    cursor = /--cursor (\S+)/.exec(page.stderr)?.[1];
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return pages;
}

describe('code-reader --cursor', () => {
  it('reads every page of a partial read, byte-exact', async () => {
    const args = ['src/big.py', '--partial-read', '--start-line', '1', '--end-line', '3000'];
    const pages = await allPages([...args, '--output-format', 'json']);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]?.stderr).toMatch(/^code-reader: the output is partial; .* --cursor \S+\n$/);
    expect(pages.at(-1)?.stderr).toBe('');
    const content = pages
      .flatMap((p) => (JSON.parse(p.stdout) as { results: { sections: { content: string }[] }[] }).results)
      .flatMap((r) => r.sections.map((s) => s.content))
      .join('');
    expect(content).toBe(LINES.join(''));
  });

  it('pages a metrics batch with --max-answer-tokens', async () => {
    const files = Array.from({ length: 40 }, (_, i) => `src/m${i}.py`);
    const pages = await allPages([
      '--metrics-only',
      '--max-answer-tokens',
      '500',
      '--output-format',
      'json',
      '--file-paths',
      ...files,
    ]);
    expect(pages.length).toBeGreaterThan(1);
    const seen = pages.flatMap((p) =>
      (JSON.parse(p.stdout) as { files: { file_path: string }[] }).files.map((f) => f.file_path),
    );
    expect(seen).toEqual(files);
  });

  it('refuses a bad --max-answer-tokens as a usage error', () => {
    expect(() => parseCliArgs(['--max-answer-tokens', 'x'])).toThrow(/positive integer/);
  });
});
