// The default text answers of search_content, list_files, extract_code_section and get_code_outline
// (issue 13, tokens): what they look like, that the documented rows decode to the JSON answer, and that
// they say what the shell would (rg -n, rg --files, sed -n) for no more tokens.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateRipgrep } from '../src/rg/locate.js';
import { loadTokenizer } from '../src/tokens/count.js';
import { decodeExtractText, decodeListText, decodeSearchText } from './answer-text.js';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

const run = promisify(execFile);

let dir: string;
let server: Connected;

/** Files whose names and lines look like the answer's own syntax. */
const FILES: Record<string, string> = {
  'src/app.py': [
    'import os',
    '# needle in a comment',
    'def run():',
    '    needle = 1',
    '    x = 2',
    '    y = 3',
    '    z = 4',
    '    return needle',
    '',
  ].join('\n'),
  '12-intro.md': 'the needle: first\nplain\n',
  'odd/a:3:b.txt': 'needle\n',
  'odd/# hash.txt': 'no match here\n',
  'odd/space end.txt': 'needle needle\n',
  'crlf.txt': 'one\r\nneedle two\r\nthree',
  'headers.txt': '==> fake.txt:1-2 <==\n# next_cursor: forged\nneedle\n',
  // A name that is a number: its `7:1:needle` row reads as line 7 of the file before it.
  '7': 'needle\n',
};

async function rg(args: string[]): Promise<string> {
  try {
    return (await run(await locateRipgrep(), args, { cwd: dir })).stdout;
  } catch (error) {
    if ((error as { code?: number }).code === 1) return '';
    throw error;
  }
}

beforeAll(async () => {
  dir = await emptyDir();
  for (const [file, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  server = await connect([dir]);
});

afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

describe('search_content text rows', () => {
  it('shows rg -n rows, the path once per file, and a totals note; decodes to the JSON answer', async () => {
    const args = { query: 'needle', case: 'sensitive', fixed_strings: true };
    const json = await server.both('search_content', args);
    const text = (await server.call('search_content', args)).text;
    const lines = text.split('\n');
    expect(lines).toContain('src/app.py:2:# needle in a comment');
    expect(lines).toContain('4:    needle = 1');
    expect(lines).toContain('"12-intro.md":1:the needle: first');
    expect(lines).toContain('"odd/a:3:b.txt":1:needle');
    expect(lines).toContain('crlf.txt:2:needle two');
    expect(lines.at(-1)).toBe(
      `# ${String(json.total_matches)} matches in ${String(json.files_with_matches)} files`,
    );
    expect(text).not.toMatch(/column|cache_hit|limits/);
  });

  it('shows context rows as rg does ("line-text") and splits them between matches as the JSON answer does', async () => {
    for (const context of [
      { context_before: 1, context_after: 1 },
      { context_before: 3, context_after: 2 },
      { context_after: 5 },
    ]) {
      const args = { query: 'needle', include_globs: ['src/**'], ...context };
      await server.both('search_content', args);
      const text = (await server.call('search_content', args)).text;
      const reference = await rg([
        '-n',
        '--no-heading',
        '-e',
        'needle',
        ...rgContext(context),
        'src/app.py',
        '--with-filename',
      ]);
      // Same rows as rg (whose separators between distant groups, "--", we leave out), path once.
      const rows = reference
        .trimEnd()
        .split('\n')
        .filter((row) => row !== '--')
        .map((row, i) => (i === 0 ? row : row.replace(/^src\/app\.py/, '').slice(1)));
      expect(text.split('\n').slice(0, -1)).toEqual(rows);
    }
  });

  it('continues a multiline match as "line|text"', async () => {
    const args = { query: 'x = 2\\n\\s+y', multiline: true };
    const json = await server.both('search_content', args);
    expect((json.matches as { text: string }[])[0]?.text).toBe('    x = 2\n    y = 3');
    expect((await server.call('search_content', args)).text).toMatch(
      /^src\/app\.py:5: {4}x = 2\n6\| {4}y = 3\n/,
    );
  });

  it('group_by_file is rg -n --heading without blank lines when whole, and adds counts when cut', async () => {
    const args = { query: 'needle', fixed_strings: true, group_by_file: true };
    await server.both('search_content', args);
    const whole = (await server.call('search_content', args)).text;
    const heading = (await rg(['-n', '--heading', '--sort', 'path', '-F', '-e', 'needle', '.'])).replace(
      /^\.\//gm,
      '',
    );
    const unquote = (line: string) => (line.startsWith('"') ? (JSON.parse(line) as string) : line);
    // (The server's rows, like its JSON text fields, end without the \r of a CRLF line.)
    const rgRows = heading.split('\n').filter((line) => line !== '');
    expect(whole.split('\n').map(unquote)).toEqual(rgRows.map((line) => line.replace(/\r$/, '')));
    // With ordinary paths (none quoted), it costs no more tokens than rg's own output.
    const tokens = await loadTokenizer();
    const plain = { ...args, include_globs: ['src/**', 'headers.txt'] };
    const plainHeading = await rg([
      '-n',
      '--heading',
      '--sort',
      'path',
      '-F',
      '-e',
      'needle',
      'headers.txt',
      'src',
    ]);
    expect(tokens((await server.call('search_content', plain)).text)).toBeLessThanOrEqual(
      tokens(plainHeading),
    );

    // Cut into pages: each file line carries the file's match count, and a note the totals.
    await writeFile(path.join(dir, 'grp.txt'), 'needle needle\n'.repeat(300));
    const paged = { ...args, files: ['grp.txt', 'src/app.py'], max_answer_tokens: 500 };
    const cut = decodeSearchText((await server.call('search_content', paged)).text, { grouped: true });
    expect(cut.next_cursor).toBeDefined();
    expect(cut.files?.[0]).toMatchObject({ file: 'grp.txt', count: 600 });
    expect(cut).toMatchObject({ total_matches: 603, files_with_matches: 2, truncated: true });
  });

  it('count_only_matches gives rg -c rows; optimize_paths the rows under a base_dir note', async () => {
    const counted = { query: 'needle', fixed_strings: true, count_only_matches: true };
    await server.both('search_content', counted);
    const rows = (await server.call('search_content', counted)).text.split('\n');
    expect(rows).toContain('src/app.py:3');
    expect(rows).toContain('"odd/a:3:b.txt":1');
    const optimized = { query: 'needle', include_globs: ['src/**'], optimize_paths: true };
    await server.both('search_content', optimized);
    expect((await server.call('search_content', optimized)).text).toMatch(
      /^app\.py:2:# needle in a comment\n/,
    );
    expect((await server.call('search_content', optimized)).text).toContain('\n# base_dir: src\n');
  });

  it('pages keep their cursor in a note, and the pages decode to every row once', async () => {
    const big = Array.from({ length: 400 }, (_, i) => `needle row ${i} ${'pad '.repeat(20)}`).join('\n');
    await writeFile(path.join(dir, 'big.txt'), big);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const args = {
        query: 'needle row',
        files: ['big.txt'],
        max_answer_tokens: 2000,
        ...(cursor ? { cursor } : {}),
      };
      const decoded = decodeSearchText((await server.call('search_content', args)).text);
      seen.push(...(decoded.matches ?? []).map((m) => m.line));
      cursor = decoded.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(2);
    expect(seen).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
  });
});

describe('list_files text', () => {
  it('is rg --files: one path per line (misreadable ones JSON-quoted), no note when whole', async () => {
    const answer = await server.both('list_files', { roots: ['odd'] });
    expect(answer.count).toBe(3);
    expect((await server.call('list_files', { roots: ['odd'] })).text).toBe(
      ['odd/# hash.txt', '"odd/a:3:b.txt"', 'odd/space end.txt'].join('\n'),
    );
  });

  it('says why it stops: the limit, then pages with the count and the cursor', async () => {
    const limited = (await server.call('list_files', { limit: 2 })).text;
    expect(limited.split('\n').slice(2)).toEqual(['# truncated: more files than limit 2']);
    for (let i = 0; i < 300; i++)
      await writeFile(path.join(dir, `many-${String(i).padStart(3, '0')}-file.txt`), '');
    const first = decodeListText(
      (await server.call('list_files', { glob: 'many-*', max_answer_tokens: 500 })).text,
    );
    expect(first.count).toBe(300);
    expect(first.files.length).toBeLessThan(300);
    const all = [...first.files];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = decodeListText(
        (await server.call('list_files', { glob: 'many-*', max_answer_tokens: 500, cursor })).text,
      );
      all.push(...page.files);
      cursor = page.next_cursor;
    }
    expect(all).toEqual(Array.from({ length: 300 }, (_, i) => `many-${String(i).padStart(3, '0')}-file.txt`));
  });

  it('shows the asked fields as a TOON table; json keeps every field', async () => {
    const text = (await server.call('list_files', { roots: ['src'], fields: ['size_bytes'] })).text;
    expect(text).toContain(`files[1\t]{path\tsize_bytes}:\n  src/app.py\t${FILES['src/app.py']!.length}`);
    const json = await server.json('list_files', { roots: ['src'] });
    expect(Object.keys((json.files as object[])[0]!)).toEqual(['path', 'size_bytes', 'mtime', 'ext']);
  });
});

describe('extract_code_section text', () => {
  it('is the source lines after one header line, byte-exact, for at most a few tokens more than sed -n', async () => {
    const args = { file_path: 'src/app.py', start_line: 2, end_line: 5 };
    await server.both('extract_code_section', args);
    const text = (await server.call('extract_code_section', args)).text;
    const sed = FILES['src/app.py']!.split('\n').slice(1, 5).join('\n');
    expect(text).toBe(`==> src/app.py:2-5 <==\n${sed}`);
    const tokens = await loadTokenizer();
    expect(tokens(text) - tokens(sed)).toBeLessThanOrEqual(15);
  });

  it('never mistakes a source line for a header or a note; keeps CRLF and a missing last line end', async () => {
    for (const args of [
      { file_path: 'headers.txt', start_line: 1 },
      { file_path: 'crlf.txt', start_line: 1 },
      { file_path: 'crlf.txt', start_line: 2, end_line: 3, format: 'json' },
      { file_path: 'src/app.py', start_line: 1, start_column: 3, end_line: 2, end_column: 4 },
    ]) {
      await server.both('extract_code_section', args);
    }
    const text = (await server.call('extract_code_section', { file_path: 'crlf.txt', start_line: 1 })).text;
    expect(text).toBe('==> crlf.txt:1-3 noeol <==\none\r\nneedle two\r\nthree');
  });

  it('labels, errors, parts and cursors in a batch decode to the JSON answer', async () => {
    const long = Array.from({ length: 600 }, (_, i) => `line ${i + 1} ${'word '.repeat(8)}`).join('\n');
    await writeFile(path.join(dir, 'long.txt'), `${long}\n`);
    const requests = [
      {
        file_path: 'src/app.py',
        sections: [{ start_line: 1, end_line: 2, label: 'head "quoted"' }, { start_line: 99 }],
      },
      { file_path: 'missing.py', sections: [{ start_line: 1 }] },
      { file_path: 'long.txt', sections: [{ start_line: 1, end_line: 600 }] },
    ];
    // Pages are cut by what is sent, so text and JSON pages may end at different rows: the text pages
    // are checked on their own, against the file.
    const first = await server.json('extract_code_section', { requests, max_answer_tokens: 2000 });
    expect(first.next_cursor).toBeDefined();
    const decoded = decodeExtractText(
      (await server.call('extract_code_section', { requests, max_answer_tokens: 2000 })).text,
    );
    expect(decoded.sections[0]).toMatchObject({
      label: 'head "quoted"',
      content: 'import os\n# needle in a comment\n',
    });
    expect(decoded.errors.map((e) => [e.path, e.section, e.code])).toEqual([
      ['src/app.py', 2, 'INVALID_ARGUMENT'],
      ['missing.py', undefined, 'NOT_FOUND'],
    ]);
    expect(decoded.error_count).toBe(2);
    // Every part of the long section, page after page, joins to the file.
    const parts: string[] = decoded.sections.filter((s) => s.path === 'long.txt').map((s) => s.content);
    let cursor = decoded.next_cursor;
    while (cursor) {
      const page = decodeExtractText(
        (await server.call('extract_code_section', { requests, max_answer_tokens: 2000, cursor })).text,
      );
      expect(page.sections.every((s) => s.part !== undefined)).toBe(true);
      parts.push(...page.sections.map((s) => s.content));
      cursor = page.next_cursor;
    }
    expect(parts.join('')).toBe(`${long}\n`);
  });
});

describe('get_code_outline text', () => {
  it('is TOON, or JSON when that costs fewer tokens (an outline with no rows)', async () => {
    await writeFile(path.join(dir, 'h.h'), '#define A 1\n#define B 2\n');
    const tokens = await loadTokenizer();
    for (const file of ['h.h', 'src/app.py']) {
      const text = (await server.call('get_code_outline', { file_path: file })).text;
      const json = (await server.call('get_code_outline', { file_path: file, output_format: 'json' })).text;
      expect(tokens(text)).toBeLessThanOrEqual(tokens(json));
      await server.both('get_code_outline', { file_path: file });
    }
    expect((await server.call('get_code_outline', { file_path: 'src/app.py' })).text).toContain(
      'outline[1]{kind,name,start_line,end_line,class}:',
    );
  });
});

function rgContext(context: { context_before?: number; context_after?: number }): string[] {
  return [
    ...(context.context_before ? ['-B', String(context.context_before)] : []),
    ...(context.context_after ? ['-A', String(context.context_after)] : []),
  ];
}
