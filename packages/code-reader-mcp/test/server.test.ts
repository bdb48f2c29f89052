import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, copyFixture, emptyDir, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await copyFixture();
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

const TOOLS = [
  'list_files',
  'search_content',
  'extract_code_section',
  'check_code_scale',
  'analyze_code_structure',
  'get_code_outline',
  'query_code',
  'set_project_path',
];

describe('the server', () => {
  it('lists every tool with a title, description, schemas and all four annotations', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description?.length, tool.name).toBeGreaterThan(100);
      // Text-first: no output schema unless the server runs with --structured-output.
      expect(tool.outputSchema, tool.name).toBeUndefined();
      const hints = tool.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof hints[hint], `${tool.name}.${hint}`).toBe('boolean');
      }
    }
    expect(tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name)).toEqual([
      'set_project_path',
    ]);
  });

  it('declares the lower bound of each numeric argument in its schema, and refuses below it as the schema says', async () => {
    const { tools } = await server.client.listTools();
    const property = (tool: string, name: string) =>
      (tools.find((t) => t.name === tool)?.inputSchema.properties as Record<string, Record<string, unknown>>)[
        name
      ];
    for (const [tool, name, minimum] of [
      ['list_files', 'limit', 1],
      ['list_files', 'max_answer_tokens', 500],
      ['search_content', 'context_before', 0],
      ['search_content', 'context_after', 0],
      ['search_content', 'timeout_ms', 100],
      ['search_content', 'max_answer_tokens', 500],
    ] as const) {
      expect(property(tool, name), `${tool}.${name}`).toMatchObject({ type: 'integer', minimum });
    }
    const below = await server.fail('list_files', { max_answer_tokens: 400 });
    expect(below.code).toBe('INVALID_ARGUMENT');
    expect(below.message).toContain('max_answer_tokens must be an integer from 500 to 20000');
    // Above the maximum is clamped, as the description says, not refused.
    expect(
      (await server.client.callTool({ name: 'list_files', arguments: { limit: 50_000 } })).isError,
    ).toBeFalsy();
  });

  it('rejects unknown arguments with the list of valid ones', async () => {
    const error = await server.fail('list_files', { colour: 'red' });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.hint).toContain('extensions');
  });
});

describe('set_project_path', () => {
  it('makes relative paths and answers relative to the project directory', async () => {
    const s = await connect([dir]);
    try {
      // (both: the TOON answer decodes to the JSON one; setting the same absolute directory twice is a no-op.)
      const set = await s.both('set_project_path', { project_path: path.join(dir, 'src/ts') });
      // Shown root-relative like every path (no absolute path in the answer).
      expect(set).toEqual({ project_path: 'src/ts', roots: ['.'] });
      const files = await s.json('list_files');
      expect((files.files as { path: string }[]).map((f) => f.path)).toEqual([
        'legacy.js',
        'service.ts',
        'types.ts',
        'view.tsx',
      ]);
      const outline = await s.json('get_code_outline', { file_path: 'types.ts' });
      expect(outline.file_path).toBe('types.ts');
      const search = await s.json('search_content', { query: 'interface' });
      expect((search.matches as { file: string }[]).map((m) => m.file)).toEqual(['types.ts']);
      // Absolute paths elsewhere in the root still work and show relative to the project ("../../notes.txt"),
      // so a shown path passed back names the same file.
      const notes = await s.json('extract_code_section', {
        file_path: path.join(dir, 'notes.txt'),
        start_line: 1,
        end_line: 1,
      });
      const shown = (notes.results as { resolved_path: string }[])[0]?.resolved_path as string;
      expect(shown).toBe('../../notes.txt');
      const again = await s.json('extract_code_section', { file_path: shown, start_line: 1, end_line: 1 });
      expect((again.results as { resolved_path: string }[])[0]?.resolved_path).toBe(shown);
      const found = await s.json('search_content', { query: 'TODO', roots: [dir] });
      const shownFiles = (found.matches as { file: string }[]).map((m) => m.file);
      expect(shownFiles).toContain('../../notes.txt');
      for (const file of shownFiles) {
        const back = await s.json('extract_code_section', { file_path: file, start_line: 1 });
        expect((back.results as { resolved_path: string }[])[0]?.resolved_path).toBe(file);
      }
    } finally {
      await s.close();
    }
  });

  it('refuses directories outside the roots, files and missing directories', async () => {
    expect((await server.fail('set_project_path', { project_path: '/' })).code).toBe('PATH_OUTSIDE_ROOT');
    expect((await server.fail('set_project_path', { project_path: '..' })).code).toBe('PATH_OUTSIDE_ROOT');
    expect((await server.fail('set_project_path', { project_path: 'notes.txt' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await server.fail('set_project_path', { project_path: 'nowhere' })).code).toBe('NOT_FOUND');
  });

  it('follows the client roots (narrowing the user root) and keeps the project inside them', async () => {
    const outer = await emptyDir();
    const other = path.join(outer, 'other');
    await mkdir(path.join(other, 'pkg'), { recursive: true });
    await mkdir(path.join(outer, 'elsewhere'));
    await writeFile(path.join(other, 'pkg', 'a.py'), 'x = 1\n');
    const s = await connect([outer], { clientRoots: [other] });
    try {
      const files = await s.json('list_files');
      expect((files.files as { path: string }[]).map((f) => f.path)).toEqual(['pkg/a.py']);
      expect((await s.fail('list_files', { roots: [path.join(outer, 'elsewhere')] })).code).toBe(
        'PATH_OUTSIDE_ROOT',
      );
      expect((await s.json('set_project_path', { project_path: 'pkg' })).project_path).toBe('pkg');
      expect((await s.fail('set_project_path', { project_path: outer })).code).toBe('PATH_OUTSIDE_ROOT');
    } finally {
      await s.close();
      await removeDir(outer);
    }
  });

  it('with several roots, every path shown comes back to the same file (root name prefix)', async () => {
    const second = await emptyDir();
    await mkdir(path.join(second, 'src'));
    // Same relative name as a file of the first root: without the prefix it would resolve there.
    await mkdir(path.join(second, 'src', 'ts'), { recursive: true });
    await writeFile(path.join(second, 'src', 'ts', 'service.ts'), 'export const second = "TODO";\n');
    const s = await connect([dir, second]);
    try {
      const name = path.basename(second);
      const listed = await s.json('list_files', { roots: [second] });
      expect((listed.files as { path: string }[]).map((f) => f.path)).toEqual([`${name}/src/ts/service.ts`]);
      const found = await s.json('search_content', { query: 'TODO', roots: [dir, second] });
      const shown = (found.matches as { file: string }[]).map((m) => m.file);
      expect(shown).toContain(`${name}/src/ts/service.ts`);
      expect(shown).toContain(`${path.basename(dir)}/notes.txt`);
      for (const file of shown) {
        const back = await s.json('extract_code_section', { file_path: file, start_line: 1, end_line: 1 });
        const result = (back.results as { resolved_path: string; sections: { content: string }[] }[])[0];
        expect(result?.resolved_path).toBe(file);
      }
      const second1 = await s.json('extract_code_section', {
        file_path: `${name}/src/ts/service.ts`,
        start_line: 1,
      });
      expect(JSON.stringify(second1)).toContain('export const second');
      const outline = await s.json('get_code_outline', { file_path: `${name}/src/ts/service.ts` });
      expect(outline.file_path).toBe(`${name}/src/ts/service.ts`);
      // The project directory does not change how several roots are shown.
      await s.json('set_project_path', { project_path: 'src' });
      const again = await s.json('search_content', { query: 'second', roots: [second] });
      expect((again.matches as { file: string }[]).map((m) => m.file)).toEqual([`${name}/src/ts/service.ts`]);
    } finally {
      await s.close();
      await removeDir(second);
    }
  });

  it('opens nothing when the client roots lie outside the user root (README: they only narrow)', async () => {
    const other = await emptyDir();
    const s = await connect([dir], { clientRoots: [other] });
    try {
      // Every tool answers the policy's error naming both sets of roots, never the user root's files.
      const calls: [string, Record<string, unknown>][] = [
        ['list_files', { extensions: ['md'] }],
        ['list_files', { roots: [other] }],
        ['search_content', { query: 'TODO' }],
        ['extract_code_section', { file_path: 'notes.txt', start_line: 1 }],
        ['get_code_outline', { file_path: 'src/ts/service.ts' }],
        ['check_code_scale', { file_path: 'notes.txt' }],
      ];
      for (const [name, args] of calls) {
        const error = await s.fail(name, args);
        expect(error.code, name).toBe('INVALID_ARGUMENT');
        expect(error.message, name).toMatch(/client's roots .* lie outside the server's --root directories/);
      }
    } finally {
      await s.close();
      await removeDir(other);
    }
  });
});

describe('list_files, then search_content over the files it found (what find_and_grep did)', () => {
  it('searches only the files the filters select, with the paths list_files shows', async () => {
    const listed = await server.json('list_files', { extensions: ['py', 'rb'] });
    const files = (listed.files as { path: string }[]).map((f) => f.path);
    expect(files).toEqual(['src/py/inventory.py', 'src/ruby/report.rb']); // src/py/tool has no extension
    const answer = await server.both('search_content', { files, query: 'def ' });
    expect((answer.matches as { file: string }[]).map((m) => m.file)).toEqual([
      'src/py/inventory.py',
      'src/py/inventory.py',
      'src/ruby/report.rb',
      'src/ruby/report.rb',
    ]);
    const counted = await server.json('search_content', { files, query: 'def ', count_only_matches: true });
    expect(counted.file_counts).toEqual([
      { file: 'src/py/inventory.py', count: 2 },
      { file: 'src/ruby/report.rb', count: 2 },
    ]);
  });
});
