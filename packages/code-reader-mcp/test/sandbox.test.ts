// A hostile tree, a hostile environment and hostile arguments (issue 14): nothing escapes the roots,
// nothing hangs or kills the server, every refusal has a code.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient, startLinkFlipper } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli/args.js';
import { runCli } from '../src/cli/run.js';
import { parseSource, retiredInstances } from '../src/code/parser.js';
import { MAX_QUERY_DEPTH, runQueryString } from '../src/code/query.js';
import { fitPage } from '../src/paging/budget.js';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const posix = process.platform !== 'win32';

let base: string;
let root: string;
let outside: string;
let config: string;

beforeAll(async () => {
  base = await emptyDir();
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(path.join(root, 'secrets'));
  await mkdir(outside);
  await writeFile(path.join(root, 'src', 'app.ts'), 'export const needle = 1;\n');
  await writeFile(path.join(root, 'secrets', 'key.txt'), 'needle: private key\n');
  await writeFile(path.join(outside, 'secret.txt'), 'needle: outside the root\n');
  await symlink(outside, path.join(root, 'out-link'));
  await symlink(path.join(root, 'secrets'), path.join(root, 'secrets-link'));
  // A user's ripgrep config that follows links (and a server started with it in its environment).
  config = path.join(base, 'ripgreprc');
  await writeFile(config, '--follow\n--hidden\n--no-ignore\n');
});
afterAll(async () => removeDir(base));

function filesOf(answer: Record<string, unknown>): string[] {
  const rows = (answer.files ?? answer.matches ?? []) as { path?: string; file?: string }[];
  return rows.map((row) => row.path ?? row.file ?? '').sort();
}

describe('ripgrep under a hostile config', () => {
  let server: Connected;
  let previous: string | undefined;
  beforeAll(async () => {
    previous = process.env.RIPGREP_CONFIG_PATH;
    process.env.RIPGREP_CONFIG_PATH = config;
    server = await connect([root], { denyGlobs: ['secrets/'] });
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.RIPGREP_CONFIG_PATH;
    else process.env.RIPGREP_CONFIG_PATH = previous;
    await server.close();
  });

  it('list_files and search_content never follow links out of the root or into denied folders', async () => {
    expect(filesOf(await server.json('list_files'))).toEqual(['src/app.ts']);
    expect(filesOf(await server.json('search_content', { query: 'needle' }))).toEqual(['src/app.ts']);
    // Asking for hidden and ignored files changes nothing about links.
    const all = await server.json('search_content', { query: 'needle', hidden: true, no_ignore: true });
    expect(filesOf(all)).toEqual(['src/app.ts']);
  });

  it('names only the path asked for when a link leads out of the root, never its target', async () => {
    for (const [tool, args] of [
      ['extract_code_section', { file_path: 'out-link/secret.txt', start_line: 1 }],
      ['get_code_outline', { file_path: 'out-link/secret.txt' }],
      ['list_files', { roots: ['out-link'] }],
    ] as const) {
      const error = await server.fail(tool, args);
      expect(error.code, tool).toBe('PATH_OUTSIDE_ROOT');
      expect(error.message).toContain('"out-link');
      expect(JSON.stringify(error)).not.toContain(outside);
    }
  });

  it('checks every result against the policy even without deny globs', async () => {
    const open = await connect([root]);
    try {
      expect(filesOf(await open.json('search_content', { query: 'needle' }))).toEqual([
        'secrets/key.txt',
        'src/app.ts',
      ]);
      // A count checks no file (it shows none): the links out are not walked, so it counts the two.
      expect((await open.json('list_files', { count_only: true })).count).toBe(2);
      expect((await open.json('list_files', { count_only: true, pattern: 'secret' })).count).toBe(0);
    } finally {
      await open.close();
    }
  });

  it('holds for the built server started with the config in its environment', async () => {
    const spawned = await spawnStdioClient(process.execPath, [path.join(DIST, 'index.cjs'), '--root', root], {
      env: { RIPGREP_CONFIG_PATH: config },
    });
    try {
      const answer = await callTool(spawned.client, 'search_content', {
        query: 'needle',
        output_format: 'json',
      });
      expect(filesOf(answer.structured)).toEqual(['secrets/key.txt', 'src/app.ts']);
    } finally {
      await spawned.close();
    }
  });
});

describe('special files', () => {
  it.skipIf(!posix)('refuses a named pipe at once in every tool that reads files', async () => {
    const dir = await emptyDir();
    execFileSync('mkfifo', [path.join(dir, 'pipe.ts')]);
    await writeFile(path.join(dir, 'ok.ts'), 'export const ok = true;\n');
    const server = await connect([dir]);
    try {
      const started = Date.now();
      for (const [tool, args] of [
        ['extract_code_section', { file_path: 'pipe.ts', start_line: 1 }],
        ['check_code_scale', { file_path: 'pipe.ts' }],
        ['get_code_outline', { file_path: 'pipe.ts' }],
        ['query_code', { file_path: 'pipe.ts', query_key: 'functions' }],
        ['search_content', { query: 'x', files: ['pipe.ts'] }],
      ] as const) {
        expect((await server.fail(tool, args)).code, tool).toBe('INVALID_ARGUMENT');
      }
      // Listing and searching the folder skip it and still answer.
      expect(filesOf(await server.json('search_content', { query: 'ok' }))).toEqual(['ok.ts']);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await server.close();
      await removeDir(dir);
    }
  });
});

describe('the check-then-open race', () => {
  it.skipIf(!posix)('extract_code_section never returns content from outside the root', async () => {
    const ws = await emptyDir();
    const inRoot = path.join(ws, 'root');
    const out = path.join(ws, 'outside');
    await mkdir(path.join(inRoot, 'flip'), { recursive: true });
    await mkdir(out);
    await writeFile(path.join(inRoot, 'flip', 'f.ts'), 'inside\n');
    await writeFile(path.join(out, 'f.ts'), 'OUTSIDE\n');
    const server = await connect([inRoot]);
    const flipper = await startLinkFlipper(path.join(inRoot, 'flip'), out);
    const seen = { inside: 0, leaked: 0, refused: new Set<string>() };
    try {
      const deadline = Date.now() + 1500;
      while (Date.now() < deadline) {
        const answer = await server.call('extract_code_section', {
          file_path: 'flip/f.ts',
          start_line: 1,
          output_format: 'json',
        });
        if (answer.isError) {
          seen.refused.add(answer.error!.code);
          continue;
        }
        const text = JSON.stringify(answer.structured);
        if (text.includes('OUTSIDE')) seen.leaked++;
        else if (text.includes('inside')) seen.inside++;
        else {
          const failure = (answer.structured as { errors?: { code: string }[] }).errors?.[0];
          if (failure) seen.refused.add(failure.code);
        }
      }
    } finally {
      await flipper.stop();
      await server.close();
    }
    expect(flipper.flips()).toBeGreaterThan(50);
    expect(seen.leaked).toBe(0);
    expect(seen.inside).toBeGreaterThan(0);
    expect(
      [...seen.refused].filter((c) => !['PATH_OUTSIDE_ROOT', 'NOT_FOUND', 'CONFLICT'].includes(c)),
    ).toEqual([]);
    await removeDir(ws);
  });
});

describe('one enormous line', () => {
  // 24 MB on one line: before lines were clipped while streaming, the server held the record, its
  // string, its parse and its characters at once (far over this 64 MB heap) and died.
  it('is clipped while it streams in: the server answers and stays up', async () => {
    const dir = await emptyDir();
    const size = 24 * 1024 * 1024;
    const line = Buffer.alloc(size, 'a');
    line.write('needle', 1000);
    line.write('needle', size - 100);
    await writeFile(path.join(dir, 'bundle.min.js'), Buffer.concat([line, Buffer.from('\nlast needle\n')]));
    // A match only past the kept start of a long line: shown by its text, column counted on.
    await writeFile(path.join(dir, 'tail.min.js'), `${'b'.repeat(2 * 1024 * 1024)}needle\n`);
    const spawned = await spawnStdioClient(process.execPath, [path.join(DIST, 'index.cjs'), '--root', dir], {
      env: { NODE_OPTIONS: '--max-old-space-size=64' },
    });
    try {
      const answer = await callTool(spawned.client, 'search_content', {
        query: 'needle',
        output_format: 'json',
      });
      expect(answer.isError, answer.text.slice(0, 300)).toBe(false);
      const body = answer.structured as {
        total_matches: number;
        matches: { file: string; line: number; column: number; text: string }[];
        warnings?: string[];
      };
      expect(body.total_matches).toBe(4);
      expect(body.matches.map((m) => [m.file, m.line, m.column])).toEqual([
        ['bundle.min.js', 1, 1001],
        ['bundle.min.js', 2, 6],
        ['tail.min.js', 1, 2 * 1024 * 1024 + 1],
      ]);
      expect(body.matches[2]!.text).toBe(`…needle…[line of ${2 * 1024 * 1024 + 6} bytes, clipped]`);
      expect(body.matches[0]!.text.length).toBeLessThan(1000);
      expect(body.matches[0]!.text).toContain('needle');
      expect(body.warnings?.join(' ')).toContain('too long to read whole');
      const after = await callTool(spawned.client, 'list_files', { output_format: 'json' });
      expect(after.isError).toBe(false);
    } finally {
      await spawned.close();
      await removeDir(dir);
    }
  });
});

describe('tree-sitter queries', () => {
  let dir: string;
  let server: Connected;
  beforeAll(async () => {
    dir = await emptyDir();
    await writeFile(path.join(dir, 'a.js'), 'function main() { return 1; }\n');
    server = await connect([dir]);
  });
  afterAll(async () => {
    await server.close();
    await removeDir(dir);
  });

  it('refuses a query nested 3,000 deep before tree-sitter sees it, and keeps working', async () => {
    const deep = `${'('.repeat(3000)}identifier${')'.repeat(3000)} @x`;
    const refused = await server.fail('query_code', { file_path: 'a.js', query_string: deep });
    expect(refused).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { max: MAX_QUERY_DEPTH } });
    const after = await server.json('query_code', { file_path: 'a.js', query_key: 'functions' });
    expect(after.count).toBe(1);
    const tooLong = await server.fail('query_code', { file_path: 'a.js', query_string: 'x'.repeat(140_000) });
    expect(tooLong.code).toBe('LIMIT_EXCEEDED');
  });

  it('recovers from a trap inside tree-sitter with a fresh instance', async () => {
    const retired = retiredInstances();
    const parsed = await parseSource('javascript', 'function main() { return 1; }\n');
    let failure: unknown;
    try {
      // Bypasses the depth check on purpose: this is what used to poison every later parse.
      parsed.query(`${'('.repeat(3000)}identifier${')'.repeat(3000)}`);
    } catch (error) {
      failure = parsed.fail(error);
    } finally {
      parsed.release();
    }
    expect(failure).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('restarted') });
    expect(retiredInstances()).toBe(retired + 1);
    const fresh = await parseSource('javascript', 'function other() {}\n');
    try {
      expect(runQueryString(fresh.tree, fresh.query, '(identifier) @name').map((h) => h.name)).toEqual([
        'other',
      ]);
    } finally {
      fresh.release();
    }
    const after = await server.json('query_code', { file_path: 'a.js', query_string: '(identifier) @x' });
    expect(after.count).toBe(1);
  });
});

describe('oversized arguments get codes, not INTERNAL', () => {
  it('a 140 KB query, glob or pattern is LIMIT_EXCEEDED and the server keeps serving', async () => {
    const server = await connect([root]);
    try {
      const big = 'a'.repeat(140 * 1024);
      expect((await server.fail('search_content', { query: big })).code).toBe('LIMIT_EXCEEDED');
      expect((await server.fail('search_content', { query: 'x', include_globs: big })).code).toBe(
        'LIMIT_EXCEEDED',
      );
      expect((await server.fail('list_files', { pattern: big })).code).toBe('LIMIT_EXCEEDED');
      expect(filesOf(await server.json('list_files'))).toEqual(['secrets/key.txt', 'src/app.ts']);
    } finally {
      await server.close();
    }
  });
});

describe('answer size', () => {
  it('caps bytes as well as tokens: text of very long tokens cannot make a huge answer', async () => {
    // 50,000 spaces are ~400 tokens but 50 KB: a 2,000-token budget allows 64 KB, so one row fits a page.
    const rows = Array.from({ length: 10 }, () => ' '.repeat(50_000));
    const page = await fitPage(rows, 0, 2000, (candidate) => candidate.join('\n'));
    expect(page.rows).toHaveLength(1);
    expect(page.nextOffset).toBe(1);
    await expect(fitPage([' '.repeat(100_000)], 0, 2000, (c) => c.join(''))).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
    });
  });
});

describe('CLI --deny-glob', () => {
  it('refuses denied files and leaves them out of listings', async () => {
    const run = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(parseCliArgs(args), {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        cwd: root,
      });
      return { code, stdout, stderr };
    };
    const refused = await run([
      'secrets/key.txt',
      '--partial-read',
      '--start-line',
      '1',
      '--deny-glob',
      'secrets/',
    ]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'PATH_DENIED' } });
    const allowed = await run(['secrets/key.txt', '--partial-read', '--start-line', '1']);
    expect(allowed.code).toBe(0);
    expect(parseCliArgs(['--deny-glob=*.pem', '--deny-glob', '.env']).denyGlobs).toEqual(['*.pem', '.env']);
  });
});

describe('deny globs and Unicode names', () => {
  it('leave out a folder stored in NFD when the glob was typed in NFC', async () => {
    const dir = await emptyDir();
    await mkdir(path.join(dir, 'café'.normalize('NFD')));
    await writeFile(path.join(dir, 'café'.normalize('NFD'), 'menu.txt'), 'needle\n');
    await writeFile(path.join(dir, 'open.txt'), 'needle\n');
    const server = await connect([dir], { denyGlobs: ['café/'.normalize('NFC')] });
    try {
      expect(filesOf(await server.json('list_files'))).toEqual(['open.txt']);
      expect(filesOf(await server.json('search_content', { query: 'needle' }))).toEqual(['open.txt']);
      const nfd = `${'café'.normalize('NFD')}/menu.txt`;
      expect((await server.fail('extract_code_section', { file_path: nfd, start_line: 1 })).code).toBe(
        'PATH_DENIED',
      );
    } finally {
      await server.close();
      await removeDir(dir);
    }
  });
});
