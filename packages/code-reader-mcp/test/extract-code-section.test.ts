import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { decodeToonText } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../src/tokens/count.js';
import { connect, copyFixture, removeDir, type Connected } from './helpers.js';
import { decodeExtractText } from './answer-text.js';

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
  resolved_path?: string;
  sections: Section[];
  errors?: { section?: number; label?: string; code: string; message: string }[];
}

async function linesOf(file: string, start: number, end: number): Promise<string> {
  const text = await readFile(path.join(dir, file), 'utf8');
  return text
    .split(/(?<=\n)/)
    .slice(start - 1, end)
    .join('');
}

/** Every page of a JSON answer, following next_cursor. */
async function allPages(args: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await server.json('extract_code_section', { ...args, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.next_cursor as string | undefined;
  } while (cursor && pages.length < 50);
  return pages;
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
  // 6000 lines of 310 bytes (1.8 MiB): 1 MiB is reached at line 3382, before the 5000-line limit.
  await writeFile(path.join(dir, 'big', 'rows.txt'), `${'r'.repeat(309)}\n`.repeat(6000));
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
      resolved_path: 'src/py/inventory.py',
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

    it('allow_truncate keeps the first 50 sections of a file (max_sections_per_file)', async () => {
      const sections = Array.from({ length: 51 }, (_, i) => ({ start_line: i + 1, end_line: i + 1 }));
      const cut = await server.both('extract_code_section', {
        requests: [{ file_path: 'big/long.txt', sections }],
        allow_truncate: true,
      });
      expect(cut).toMatchObject({
        success: true,
        count_files: 1,
        count_sections: 50,
        truncated: true,
        truncated_by: ['max_sections_per_file'],
        error_count: 0,
      });
      const kept = (cut.results as FileResult[])[0]?.sections ?? [];
      expect(kept.map((s) => s.start_line)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(kept.every((s) => s.truncated === undefined)).toBe(true);
    });

    it('truncated_by names the limit that cut: 1 MiB is reached before 5000 lines', async () => {
      const pages = await allPages({
        requests: [{ file_path: 'big/rows.txt', sections: [{ start_line: 1, end_line: 6000 }] }],
        allow_truncate: true,
        max_answer_tokens: 20_000,
      });
      expect(pages[0]).toMatchObject({
        truncated: true,
        truncated_by: ['max_total_bytes'],
        count_sections: 1,
      });
      const parts = pages.flatMap((p) => (p.results as FileResult[])[0]?.sections ?? []);
      // The output stops where 1 MiB is full: 3382 lines of 310 bytes, far from 5000 lines.
      expect(parts.at(-1)).toMatchObject({ end_line: 3382, truncated: true });
      expect(parts.map((p) => p.content).join('').length).toBe(3382 * 310);
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
    expect(answer.error_codes).toEqual({ INVALID_ARGUMENT: 2, NOT_FOUND: 1, PATH_OUTSIDE_ROOT: 1 });
    expect(answer.errors_truncated).toBeUndefined();
    // Each file's own errors sit in its results[] entry; a file that did not resolve has no resolved_path.
    const results = answer.results as FileResult[];
    expect(answer.count_files).toBe(results.length);
    expect(results.map((r) => [r.file_path, r.resolved_path, r.sections.length, r.errors?.length])).toEqual([
      ['notes.txt', 'notes.txt', 1, 2],
      ['missing.txt', undefined, 0, 1],
      ['/etc/passwd', undefined, 0, 1],
      ['README.md', 'README.md', 1, undefined],
    ]);
    expect(results[0]?.errors?.map((e) => [e.section, e.code])).toEqual([
      [1, 'INVALID_ARGUMENT'],
      [3, 'INVALID_ARGUMENT'],
    ]);
    const failFast = await server.fail('extract_code_section', { requests, fail_fast: true });
    expect(failFast.code).toBe('INVALID_ARGUMENT');
    expect(failFast.message).toContain('start_line 99');
  });

  it('AC4: 196 failing sections do not sink the 4 good ones; errors are paged, the summary stays small', async () => {
    // 4 files × 50 sections (within every limit): line 1 exists, lines 100–148 are past the end.
    const requests = Array.from({ length: 4 }, (_, i) => ({
      file_path: `big/f${i}.txt`,
      sections: [
        { start_line: 1, end_line: 1 },
        ...Array.from({ length: 49 }, (_, j) => ({ start_line: 100 + j })),
      ],
    }));
    const first = await server.both('extract_code_section', { requests });
    expect(first).toMatchObject({
      success: true,
      count_files: 4,
      count_sections: 4,
      error_count: 196,
      error_codes: { INVALID_ARGUMENT: 196 },
      errors_truncated: true,
    });
    expect(first.errors).toHaveLength(5);
    // The default text answer (as the model reads it) carries the same short summary, and the errors
    // of its page one per line.
    const text = decodeExtractText((await server.call('extract_code_section', { requests })).text);
    expect(text).toMatchObject({ error_count: 196, error_codes: { INVALID_ARGUMENT: 196 } });
    expect(text.errors.slice(0, 5).map(({ path, ...e }) => ({ file_path: path, ...e }))).toEqual(
      first.errors,
    );
    // Following the cursor yields every section and every error once, each under its file.
    const pages = await allPages({ requests, max_answer_tokens: 1500 });
    expect(pages.length).toBeGreaterThan(2);
    const tokens = await loadTokenizer();
    for (const page of pages) expect(tokens(JSON.stringify(page))).toBeLessThanOrEqual(1500);
    const seen = pages.flatMap((p) =>
      (p.results as FileResult[]).flatMap((r) => [
        ...r.sections.map((s) => `${r.file_path}:ok:${s.start_line}`),
        ...(r.errors ?? []).map((e) => `${r.file_path}:error:${e.section}`),
      ]),
    );
    expect(new Set(seen).size).toBe(200);
    expect(seen.filter((k) => k.includes(':ok:'))).toEqual([0, 1, 2, 3].map((i) => `big/f${i}.txt:ok:1`));
  });

  it('AC5: with --structured-output, a TOON answer carries counts, limits and errors as fields and toon_content only the results, nothing twice', async () => {
    const args = {
      requests: [{ file_path: 'notes.txt', sections: [{ start_line: 1 }, { start_line: 50 }] }],
    };
    const structuredServer = await connect([dir], { structuredOutput: true });
    const toon = await structuredServer.call('extract_code_section', args);
    await structuredServer.close();
    const structured = toon.structuredContent as Record<string, unknown>;
    expect(structured.format).toBe('toon');
    expect(structured.results).toBeUndefined();
    expect(Object.keys(structured).sort()).toEqual([
      'count_files',
      'count_sections',
      'error_codes',
      'error_count',
      'errors',
      'format',
      'limits',
      'mode',
      'success',
      'toon_content',
      'truncated',
    ]);
    const json = await server.json('extract_code_section', args);
    // toon_content decodes to the results alone: no field beside it is repeated inside it.
    const inner = decodeToonText(structured.toon_content as string) as Record<string, unknown>;
    expect(Object.keys(inner)).toEqual(['results']);
    expect(inner.results).toEqual(json.results);
    const { toon_content: _content, format: _format, ...fields } = structured;
    const { results: _results, ...summary } = json;
    expect(fields).toEqual(summary);
    // The file's text appears once in what a structuredContent client reads.
    expect(JSON.stringify(structured).split('A plain text file').length - 1).toBe(1);
    // The text block (for clients that read text) is the documented line form of the whole answer.
    const text = decodeExtractText(toon.text);
    expect(text.sections.map((s) => s.content)).toEqual(
      (json.results as FileResult[]).flatMap((r) => r.sections.map((s) => s.content)),
    );
    expect(text).toMatchObject({ error_count: 1, error_codes: json.error_codes });
    expect(json.toon_content).toBeUndefined();
  });
});

describe('extract_code_section results[]: one entry per request', () => {
  it('echoes file_path as requested and shows resolved_path root-relative (spec 001 FileResult)', async () => {
    const answer = await server.both('extract_code_section', {
      requests: [
        { file_path: path.join(dir, 'notes.txt'), sections: [{ start_line: 1, end_line: 1 }] },
        { file_path: './src/../notes.txt', sections: [{ start_line: 2 }] },
        { file_path: 'gone.txt', sections: [{ start_line: 1 }] },
      ],
    });
    expect((answer.results as FileResult[]).map((r) => [r.file_path, r.resolved_path])).toEqual([
      [path.join(dir, 'notes.txt'), 'notes.txt'],
      ['./src/../notes.txt', 'notes.txt'],
      ['gone.txt', undefined],
    ]);
  });

  it('20 requests for one file: the file is read once, count_files and results agree', async () => {
    const requests = Array.from({ length: 20 }, (_, i) => ({
      file_path: 'notes.txt',
      sections: [{ start_line: 1 + (i % 2), end_line: 1 + (i % 2), label: `r${i}` }],
    }));
    const answer = await server.both('extract_code_section', { requests });
    const results = answer.results as FileResult[];
    expect(answer).toMatchObject({ count_files: 20, count_sections: 20, error_count: 0 });
    expect(results).toHaveLength(20);
    expect(results.map((r) => r.sections[0]?.label)).toEqual(requests.map((_, i) => `r${i}`));
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

  it('fails with the reason when the only section fails, keeping its hint and details', async () => {
    const pastEnd = await server.fail('extract_code_section', { file_path: 'notes.txt', start_line: 9 });
    expect(pastEnd).toMatchObject({ code: 'INVALID_ARGUMENT', hint: 'Use a start_line from 1 to 2.' });
    const missing = await server.fail('extract_code_section', { file_path: 'nope.txt', start_line: 1 });
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.hint).toMatch(/Check the name/);
    const huge = await server.fail('extract_code_section', { file_path: 'big/huge.txt', start_line: 1 });
    expect(huge.code).toBe('LIMIT_EXCEEDED');
    expect(huge.details).toEqual({ limit: 'max_file_size', value: 6 * 1_048_576, max: 5 * 1_048_576 });
    expect(huge.hint).toMatch(/search_content/);
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

  it('reads a line longer than a page in pieces by columns, through the pages; asked columns come back', async () => {
    // Minified code on one line (about 12,000 tokens), between two short lines.
    const minified = Array.from(
      { length: 1500 },
      (_, i) => `function f${i}(a){return a.toLowerCase()+${i}}`,
    ).join('');
    await writeFile(path.join(dir, 'big', 'min.js'), `// head\n${minified}\n// tail\n`);
    const args = { file_path: 'big/min.js', start_line: 1, end_line: 3, max_answer_tokens: 2000 };
    const sections: ReturnType<typeof decodeExtractText>['sections'] = [];
    let cursor: string | undefined;
    do {
      const page = await server.call('extract_code_section', { ...args, ...(cursor ? { cursor } : {}) });
      expect(page.error, JSON.stringify(page.error)).toBeUndefined();
      const decoded = decodeExtractText(page.text);
      sections.push(...decoded.sections);
      cursor = decoded.next_cursor;
    } while (cursor && sections.length < 200);
    const pieces = sections.filter((s) => s.start_line === 2);
    expect(pieces.length).toBeGreaterThan(5);
    // The pieces are the line, in order, each header naming its columns.
    expect(pieces.map((p) => p.content).join('')).toBe(`${minified}\n`);
    let column = 1;
    for (const piece of pieces) {
      expect(piece.start_column).toBe(column);
      column = (piece.end_column as number) + 1;
    }
    expect(column - 1).toBe(minified.length);
    expect(sections.map((s) => s.content).join('')).toBe(`// head\n${minified}\n// tail\n`);
    // The columns a header names, asked for in a batch, give the same text.
    const third = pieces[2]!;
    const asked = await server.call('extract_code_section', {
      requests: [
        {
          file_path: 'big/min.js',
          sections: [
            { start_line: 2, end_line: 2, start_column: third.start_column, end_column: third.end_column },
          ],
        },
      ],
    });
    expect(decodeExtractText(asked.text).sections).toEqual(
      [{ ...third, part: undefined, content: third.content }].map(({ part: _part, ...rest }) => rest),
    );
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

describe('extract_code_section text decoding and columns', () => {
  const contentOf = (answer: Record<string, unknown>) =>
    (answer.results as FileResult[])[0]?.sections[0]?.content;

  beforeAll(async () => {
    await mkdir(path.join(dir, 'enc'));
    await writeFile(path.join(dir, 'enc', 'mb.txt'), '😀😀 needle\n');
    await writeFile(path.join(dir, 'enc', 'bom.py'), '\uFEFFdef f():\n    return 1\n');
    await writeFile(path.join(dir, 'enc', 'tool'), '\uFEFF#!/usr/bin/env python3\ndef g():\n    return 1\n');
    const utf16 = Buffer.from('hello needle\nzweite Zeile\n', 'utf16le');
    await writeFile(path.join(dir, 'enc', 'le.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), utf16]));
    await writeFile(
      path.join(dir, 'enc', 'be.txt'),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(utf16).swap16()]),
    );
    await writeFile(
      path.join(dir, 'enc', 'bin.dat'),
      Buffer.from('\x00\x01needle\x00\xff'.repeat(20), 'latin1'),
    );
    await writeFile(path.join(dir, 'enc', 'empty.txt'), '');
  });

  it('counts columns in characters and never splits a surrogate pair', async () => {
    const emoji = await server.both('extract_code_section', {
      file_path: 'enc/mb.txt',
      start_line: 1,
      start_column: 2,
      end_column: 2,
    });
    expect(contentOf(emoji)).toBe('😀');
    const word = await server.json('extract_code_section', {
      file_path: 'enc/mb.txt',
      start_line: 1,
      start_column: 4,
      end_column: 9,
    });
    expect(contentOf(word)).toBe('needle');
  });

  it('drops a UTF-8 BOM: columns agree with search_content, a BOM shebang still names the language', async () => {
    const whole = await server.json('extract_code_section', {
      file_path: 'enc/bom.py',
      start_line: 1,
      end_line: 1,
    });
    expect(contentOf(whole)).toBe('def f():\n');
    const search = await server.json('search_content', {
      query: 'f(',
      fixed_strings: true,
      files: ['enc/bom.py'],
    });
    const column = (search.matches as { column: number }[])[0]?.column as number;
    const cut = await server.json('extract_code_section', {
      file_path: 'enc/bom.py',
      start_line: 1,
      end_line: 1,
      start_column: column,
      end_column: column + 1,
    });
    expect(contentOf(cut)).toBe('f(');
    const tool = await server.json('analyze_code_structure', { file_path: 'enc/tool' });
    expect(tool.language).toBe('python');
  });

  it('decodes UTF-16 files with a BOM and refuses binary files (UNSUPPORTED_FORMAT)', async () => {
    for (const file of ['enc/le.txt', 'enc/be.txt']) {
      const answer = await server.json('extract_code_section', { file_path: file, start_line: 1 });
      expect(contentOf(answer), file).toBe('hello needle\nzweite Zeile\n');
    }
    const scale = await server.json('check_code_scale', { file_path: 'enc/le.txt' });
    expect(scale).toMatchObject({ file_path: 'enc/le.txt' });
    const binary = await server.fail('extract_code_section', { file_path: 'enc/bin.dat', start_line: 1 });
    expect(binary).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      message: 'enc/bin.dat looks like a binary file.',
    });
  });

  it('refuses columns past the line or reversed on one line, with the line length', async () => {
    const past = await server.fail('extract_code_section', {
      file_path: 'enc/mb.txt',
      start_line: 1,
      start_column: 10,
    });
    expect(past.code).toBe('INVALID_ARGUMENT');
    expect(past.hint).toMatch(/from 1 to 9/);
    const reversed = await server.fail('extract_code_section', {
      file_path: 'enc/mb.txt',
      start_line: 1,
      start_column: 5,
      end_column: 3,
    });
    expect(reversed.code).toBe('INVALID_ARGUMENT');
    expect(reversed.hint).toMatch(/9 characters/);
  });

  it('reads line 1 of an empty file as an empty section; line 2 says the file is empty', async () => {
    const empty = await server.both('extract_code_section', { file_path: 'enc/empty.txt', start_line: 1 });
    expect((empty.results as FileResult[])[0]?.sections).toEqual([
      { start_line: 1, end_line: 0, content: '' },
    ]);
    expect(empty.success).toBe(true);
    const past = await server.fail('extract_code_section', { file_path: 'enc/empty.txt', start_line: 2 });
    expect(past.code).toBe('INVALID_ARGUMENT');
    expect(past.message).toMatch(/the file is empty/);
    expect(past.hint).not.toMatch(/from 1 to 0/);
  });

  it('refuses a forged cursor whose offset is past the end', async () => {
    const args = { file_path: 'big/long.txt', start_line: 1, end_line: 3000, max_answer_tokens: 2000 };
    const first = await server.json('extract_code_section', args);
    const payload = JSON.parse(Buffer.from(first.next_cursor as string, 'base64url').toString()) as {
      o: number;
    };
    const forged = Buffer.from(JSON.stringify({ ...payload, o: 9999 })).toString('base64url');
    const error = await server.fail('extract_code_section', {
      ...args,
      cursor: forged,
      output_format: 'json',
    });
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'The cursor does not belong to this result.',
    });
  });
});
