// The `exstruct` command line (built dist/cli.js): same engine, output to stdout or a file.
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToonText } from '@mcp-workbench/core/testing';
import { fromToonLayout } from '../src/output/toon-layout.js';
import { FIXTURES, tempDir, type TempDir } from './extract-helpers.js';

const cli = path.join(FIXTURES, '..', '..', 'dist', 'cli.js');
const run = promisify(execFile);
let tmp: TempDir;
beforeAll(async () => {
  tmp = await tempDir('exstruct-cli-');
});
afterAll(() => tmp.remove());

async function exstruct(...args: string[]) {
  return run(process.execPath, [cli, ...args], { maxBuffer: 64 * 1024 * 1024 });
}

describe('exstruct CLI', () => {
  it('prints compact JSON to stdout by default', async () => {
    const { stdout } = await exstruct(path.join(FIXTURES, 'basic__sample.xlsx'));
    const data = JSON.parse(stdout);
    expect(data.book_name).toBe('basic__sample.xlsx');
    expect(data.sheets.Sheet1.table_candidates).toEqual(['B3:E9']);
  });

  it('writes a file with -o, in the chosen format and mode, with letter keys', async () => {
    const out = path.join(tmp.dir, 'f.toon');
    await exstruct(
      path.join(FIXTURES, 'formula__formula.xlsx'),
      '-o',
      out,
      '-f',
      'toon',
      '-m',
      'verbose',
      '--alpha-col',
    );
    const data = fromToonLayout(decodeToonText(await readFile(out, 'utf8'))) as {
      sheets: Record<string, Record<string, unknown>>;
    };
    expect(data.sheets.Sheet1!.merged_ranges).toEqual(['A5:B5']);
    expect(Object.keys(data.sheets.Sheet1!.formulas_map as object)).toHaveLength(5);
  });

  it('writes pretty JSON and one file per sheet with --sheets-dir', async () => {
    const dir = path.join(tmp.dir, 'sheets');
    const { stdout } = await exstruct(
      path.join(FIXTURES, 'basic__sample.xlsx'),
      '--pretty',
      '--sheets-dir',
      dir,
    );
    expect(stdout.startsWith('{\n  "book_name"')).toBe(true);
    expect(await readdir(dir)).toEqual(['Sheet1.json']);
  });

  it('fails with the error code and hint on bad input, and with usage on bad flags', async () => {
    await expect(exstruct(path.join(FIXTURES, 'assets__sample.xls'))).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('UNSUPPORTED_FORMAT'),
    });
    await expect(exstruct(path.join(FIXTURES, 'basic__sample.xlsx'), '-m', 'full')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown mode'),
    });
    const { stdout } = await exstruct('--help');
    expect(stdout).toContain('--sheets-dir');
  });
});
