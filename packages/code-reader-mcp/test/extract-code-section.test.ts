import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { decodeToonText } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, copyFixture, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;

interface Section {
  label?: string;
  start_line?: number;
  end_line?: number;
  content?: string;
  lines?: { line: number; text: string }[];
  truncated?: boolean;
  part?: string;
}
interface FileResult {
  file_path: string;
  sections: Section[];
}

async function linesOf(file: string, start: number, end: number): Promise<string> {
  const text = await readFile(path.join(dir, file), 'utf8');
  return text
    .split(/(?<=\n)/)
    .slice(start - 1, end)
    .join('');
}

beforeAll(async () => {
  dir = await copyFixture();
  await mkdir(path.join(dir, 'big'));
  // 30 small files, a 6000-line file, a file of long lines (1.2 MB in 300 lines), a 6 MB file.
  for (let i = 0; i < 30; i++) await writeFile(path.join(dir, 'big', `f${i}.txt`), `file ${i}\nsecond\n`);
  await writeFile(
    path.join(dir, 'big', 'long.txt'),
    Array.from({ length: 6000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
  );
  await writeFile(
    path.join(dir, 'big', 'wide.txt'),
    Array.from({ length: 300 }, () => 'x'.repeat(4000)).join('\n') + '\n',
  );
  await writeFile(path.join(dir, 'big', 'huge.txt'), 'y'.repeat(6 * 1_048_576));
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

describe('extract_code_section batch mode (spec 001 acceptance criteria)', () => {
  it('AC1: extracts several ranges of several files in one call', async () => {
    const answer = await server.both('extract_code_section', {
      requests: [
        {
          file_path: 'src/ts/service.ts',
          sections: [{ start_line: 8, end_line: 10, label: 'class head' }, { start_line: 31 }],
        },
        { file_path: 'src/py/inventory.py', sections: [{ start_line: 1, end_line: 3 }] },
      ],
    });
    expect(answer).toMatchObject({
      success: true,
      mode: 'batch',
      count_files: 2,
      count_sections: 3,
      truncated: false,
      error_count: 0,
    });
    const results = answer.results as FileResult[];
    expect(results[0]?.sections).toEqual([
      {
        label: 'class head',
        start_line: 8,
        end_line: 10,
        content: await linesOf('src/ts/service.ts', 8, 10),
      },
      { start_line: 31, end_line: 33, content: await linesOf('src/ts/service.ts', 31, 33) },
    ]);
    expect(results[1]).toEqual({
      file_path: 'src/py/inventory.py',
      sections: [{ start_line: 1, end_line: 3, content: await linesOf('src/py/inventory.py', 1, 3) }],
    });
  });

  it('AC2: refuses requests together with single-mode arguments', async () => {
    const error = await server.fail('extract_code_section', {
      file_path: 'notes.txt',
      start_line: 1,
      requests: [{ file_path: 'notes.txt', sections: [{ start_line: 1 }] }],
    });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/mutually exclusive/);
    expect(error.message).toContain('file_path, start_line');
    expect((await server.fail('extract_code_section', {})).code).toBe('INVALID_ARGUMENT');
  });

  describe('AC3: limits fail by default and truncate only with allow_truncate', () => {
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        file_path: `big/f${i}.txt`,
        sections: [{ start_line: 1, end_line: 1 }],
      }));

    it('max_files (20)', async () => {
      const error = await server.fail('extract_code_section', { requests: files(21) });
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.message).toContain('max_files');
      expect(error.details).toEqual({ limit: 'max_files', value: 21, max: 20 });
      const cut = await server.json('extract_code_section', { requests: files(21), allow_truncate: true });
      expect(cut).toMatchObject({ count_files: 20, truncated: true, truncated_by: ['max_files'] });
    });

    it('max_sections_per_file (50) and max_sections_total (200)', async () => {
      const many = (n: number) => Array.from({ length: n }, () => ({ start_line: 1, end_line: 1 }));
      const perFile = await server.fail('extract_code_section', {
        requests: [{ file_path: 'big/long.txt', sections: many(51) }],
      });
      expect(perFile.message).toContain('max_sections_per_file');
      const total = Array.from({ length: 5 }, (_, i) => ({ file_path: `big/f${i}.txt`, sections: many(45) }));
      const error = await server.fail('extract_code_section', { requests: total });
      expect(error.message).toContain('max_sections_total');
      const cut = await server.json('extract_code_section', { requests: total, allow_truncate: true });
      expect(cut).toMatchObject({
        count_sections: 200,
        truncated: true,
        truncated_by: ['max_sections_total'],
      });
    });

    it('max_total_lines (5000)', async () => {
      const request = {
        requests: [{ file_path: 'big/long.txt', sections: [{ start_line: 1, end_line: 6000 }] }],
      };
      const error = await server.fail('extract_code_section', request);
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.message).toContain('max_total_lines');
      const cut = await server.json('extract_code_section', {
        ...request,
        allow_truncate: true,
        max_answer_tokens: 20_000,
      });
      expect(cut).toMatchObject({ truncated: true, truncated_by: ['max_total_lines'], count_sections: 1 });
      const first = (cut.results as FileResult[])[0]?.sections[0];
      expect(first?.start_line).toBe(1);
      expect(first?.truncated).toBe(true);
    });

    it('max_total_bytes (1 MiB)', async () => {
      const request = {
        requests: [{ file_path: 'big/wide.txt', sections: [{ start_line: 1, end_line: 300 }] }],
      };
      const error = await server.fail('extract_code_section', request);
      expect(error.message).toContain('max_total_bytes');
      const cut = await server.json('extract_code_section', { ...request, allow_truncate: true });
      expect(cut).toMatchObject({ truncated: true, truncated_by: ['max_total_bytes'] });
    });

    it('max_file_size (5 MiB): the big file fails, the others continue', async () => {
      const answer = await server.json('extract_code_section', {
        requests: [
          { file_path: 'big/huge.txt', sections: [{ start_line: 1, end_line: 1 }] },
          { file_path: 'notes.txt', sections: [{ start_line: 1, end_line: 1 }] },
        ],
      });
      expect(answer.count_sections).toBe(1);
      expect(answer.errors).toEqual([
        expect.objectContaining({
          file_path: 'big/huge.txt',
          code: 'LIMIT_EXCEEDED',
          message: expect.stringContaining('max_file_size') as unknown,
        }),
      ]);
    });
  });

  it('AC4: a failing section or file goes to errors[] and the rest continue; fail_fast stops', async () => {
    const requests = [
      {
        file_path: 'notes.txt',
        sections: [
          { start_line: 99 },
          { start_line: 1, end_line: 1, label: 'ok' },
          { start_line: 2, end_line: 1 },
        ],
      },
      { file_path: 'missing.txt', sections: [{ start_line: 1 }] },
      { file_path: '/etc/passwd', sections: [{ start_line: 1 }] },
      { file_path: 'README.md', sections: [{ start_line: 1, end_line: 1 }] },
    ];
    const answer = await server.both('extract_code_section', { requests });
    expect(answer).toMatchObject({ success: true, count_sections: 2, error_count: 4 });
    expect(
      (answer.errors as { file_path: string; section?: number; code: string }[]).map((e) => [
        e.file_path,
        e.section,
        e.code,
      ]),
    ).toEqual([
      ['notes.txt', 1, 'INVALID_ARGUMENT'],
      ['notes.txt', 3, 'INVALID_ARGUMENT'],
      ['missing.txt', undefined, 'NOT_FOUND'],
      ['/etc/passwd', undefined, 'PATH_OUTSIDE_ROOT'],
    ]);
    const failFast = await server.fail('extract_code_section', { requests, fail_fast: true });
    expect(failFast.code).toBe('INVALID_ARGUMENT');
    expect(failFast.message).toContain('start_line 99');
  });

  it('AC5: the TOON answer is toon_content plus counts, limits and errors only', async () => {
    const args = {
      requests: [{ file_path: 'notes.txt', sections: [{ start_line: 1 }, { start_line: 50 }] }],
    };
    const toon = await server.call('extract_code_section', args);
    const structured = toon.structured as Record<string, unknown>;
    expect(structured.format).toBe('toon');
    expect(structured.results).toBeUndefined();
    expect(Object.keys(structured).sort()).toEqual([
      'count_files',
      'count_sections',
      'error_count',
      'errors',
      'format',
      'limits',
      'mode',
      'success',
      'toon_content',
      'truncated',
    ]);
    expect(toon.text).toBe(structured.toon_content);
    const json = await server.json('extract_code_section', args);
    expect(decodeToonText(toon.text)).toEqual(json);
    expect(json.results).toBeDefined();
    expect(json.toon_content).toBeUndefined();
  });
});

describe('extract_code_section single mode', () => {
  it('reads a line range, and columns on the first and last line', async () => {
    const answer = await server.both('extract_code_section', {
      file_path: 'src/go/server.go',
      start_line: 15,
      end_line: 16,
    });
    expect((answer.results as FileResult[])[0]?.sections[0]?.content).toBe(
      await linesOf('src/go/server.go', 15, 16),
    );
    const cols = await server.json('extract_code_section', {
      file_path: 'src/go/server.go',
      start_line: 15,
      end_line: 15,
      start_column: 6,
      end_column: 16,
    });
    expect((cols.results as FileResult[])[0]?.sections[0]?.content).toBe('(s *Server)');
  });

  it('reads to the end of the file without end_line, and clamps end_line', async () => {
    const answer = await server.json('extract_code_section', {
      file_path: 'notes.txt',
      start_line: 2,
      end_line: 40,
    });
    expect((answer.results as FileResult[])[0]?.sections[0]).toEqual({
      start_line: 2,
      end_line: 2,
      content: 'TODO: nothing here.\n',
    });
  });

  it('formats sections as numbered lines (json) or bare content (raw)', async () => {
    const json = await server.both('extract_code_section', {
      file_path: 'notes.txt',
      start_line: 1,
      format: 'json',
    });
    expect((json.results as FileResult[])[0]?.sections[0]?.lines).toEqual([
      { line: 1, text: 'A plain text file: no grammar, line metrics only.' },
      { line: 2, text: 'TODO: nothing here.' },
    ]);
    const raw = await server.json('extract_code_section', {
      file_path: 'notes.txt',
      start_line: 2,
      format: 'raw',
    });
    expect((raw.results as FileResult[])[0]?.sections[0]).toEqual({ content: 'TODO: nothing here.\n' });
  });

  it('fails with the reason when the only section fails', async () => {
    expect((await server.fail('extract_code_section', { file_path: 'notes.txt', start_line: 9 })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await server.fail('extract_code_section', { file_path: 'nope.txt', start_line: 1 })).code).toBe(
      'NOT_FOUND',
    );
    expect((await server.fail('extract_code_section', { file_path: 'notes.txt', start_line: 0 })).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('pages a big section under the token budget, splitting it at line boundaries', async () => {
    const args = { file_path: 'big/long.txt', start_line: 1, end_line: 3000 };
    let cursor: string | undefined;
    let text = '';
    let pages = 0;
    do {
      const page = await server.json('extract_code_section', {
        ...args,
        max_answer_tokens: 2000,
        ...(cursor ? { cursor } : {}),
      });
      for (const section of (page.results as FileResult[])[0]?.sections ?? []) {
        expect(section.part).toMatch(/^\d+\/\d+$/);
        text += section.content;
      }
      cursor = page.next_cursor as string | undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(3);
    expect(text).toBe(await linesOf('big/long.txt', 1, 3000));
  });

  it('refuses a cursor after the file changed', async () => {
    const file = path.join(dir, 'big', 'changing.txt');
    await writeFile(file, Array.from({ length: 2000 }, (_, i) => `row ${i}`).join('\n'));
    const args = { file_path: 'big/changing.txt', start_line: 1, max_answer_tokens: 1000 };
    const first = await server.json('extract_code_section', args);
    await writeFile(file, Array.from({ length: 2000 }, (_, i) => `changed ${i}`).join('\n'));
    const error = await server.fail('extract_code_section', { ...args, cursor: first.next_cursor });
    expect(error.code).toBe('CONFLICT');
  });
});
