// A file above max_file_size (5 MiB) is read in narrow line ranges, streamed, and refused whole (spec
// 001; audit t24: both tools refused it and each hint pointed at the other).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

// 120,000 lines of ~52 bytes: 6.2 MB, and the last line has no newline.
const LINES = 120_000;
const lineOf = (n: number) => `const value${n} = ${'x'.repeat(30)}; // line ${n}`;

interface Section {
  start_line: number;
  end_line: number;
  content: string;
}

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await emptyDir();
  const lines = Array.from({ length: LINES }, (_, i) => lineOf(i + 1));
  await writeFile(path.join(dir, 'big.js'), `\uFEFF${lines.join('\n')}`);
  await writeFile(path.join(dir, 'big.bin'), Buffer.alloc(6 * 1_048_576));
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

const section = async (args: Record<string, unknown>) =>
  (
    (await server.json('extract_code_section', { file_path: 'big.js', ...args })).results as {
      sections: Section[];
    }[]
  )[0]!.sections[0]!;

describe('extract_code_section on a file above max_file_size', () => {
  it('reads a narrow line range, byte-exact', async () => {
    expect(await section({ start_line: 100, end_line: 105 })).toMatchObject({
      start_line: 100,
      end_line: 105,
      content: [100, 101, 102, 103, 104, 105].map((n) => `${lineOf(n)}\n`).join(''),
    });
    // The first line (BOM dropped, as ripgrep reads it) and the last one (no newline).
    expect((await section({ start_line: 1, end_line: 1 })).content).toBe(`${lineOf(1)}\n`);
    expect(await section({ start_line: LINES - 1 })).toMatchObject({
      end_line: LINES,
      content: `${lineOf(LINES - 1)}\n${lineOf(LINES)}`,
    });
  });

  it('serves several ranges of one request from one read', async () => {
    const answer = await server.json('extract_code_section', {
      requests: [
        {
          file_path: 'big.js',
          sections: [
            { start_line: 7, end_line: 7 },
            { start_line: 90_000, end_line: 90_001 },
          ],
        },
      ],
    });
    const sections = (answer.results as { sections: Section[] }[])[0]!.sections;
    expect(sections.map((s) => s.content)).toEqual([
      `${lineOf(7)}\n`,
      `${lineOf(90_000)}\n${lineOf(90_001)}\n`,
    ]);
  });

  it('still refuses the whole file, pointing at line ranges', async () => {
    const whole = await server.fail('extract_code_section', { file_path: 'big.js', start_line: 1 });
    expect(whole.code).toBe('LIMIT_EXCEEDED');
    expect(whole.hint).toMatch(/start_line and end_line/);
  });

  it('says how many lines there are when a range starts past the end', async () => {
    const past = await server.fail('extract_code_section', { file_path: 'big.js', start_line: LINES + 1 });
    expect(past).toMatchObject({ code: 'INVALID_ARGUMENT', hint: `Use a start_line from 1 to ${LINES}.` });
  });

  it('refuses a big binary file as binary', async () => {
    const binary = await server.fail('extract_code_section', {
      file_path: 'big.bin',
      start_line: 1,
      end_line: 2,
    });
    expect(binary.code).toBe('UNSUPPORTED_FORMAT');
  });

  it('get_code_outline refuses it with a hint that leads to a read that works', async () => {
    const outline = await server.fail('get_code_outline', { file_path: 'big.js' });
    expect(outline.code).toBe('LIMIT_EXCEEDED');
    expect(outline.hint).toMatch(/extract_code_section with start_line and end_line/);
  });
});
