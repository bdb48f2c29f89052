import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callTool, decodeToonText, pingLatencyDuring, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli/args.js';
import { runCli } from '../src/cli/run.js';
import { connect, copyFixture, removeDir } from './helpers.js';
import { decodeExtractText } from './answer-text.js';

const run = promisify(execFile);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await copyFixture();
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

describe('code-reader CLI (spec 001 parity flags)', () => {
  it('--partial-read FILE --start-line/--end-line', async () => {
    const { code, stdout } = await cli([
      'src/go/server.go',
      '--partial-read',
      '--start-line',
      '2',
      '--end-line',
      '2',
      '--output-format',
      'json',
    ]);
    expect(code).toBe(0);
    const answer = JSON.parse(stdout) as { results: { sections: { content: string }[] }[] };
    expect(answer.results[0]?.sections[0]?.content).toBe('package server\n');
  });

  it("--partial-read --partial-read-requests-json / -file, the tool's text by default", async () => {
    const requests = JSON.stringify([
      { file_path: 'notes.txt', sections: [{ start_line: 2, end_line: 2, label: 'todo' }] },
    ]);
    const inline = await cli(['--partial-read', '--partial-read-requests-json', requests]);
    expect(inline.code).toBe(0);
    // The tool's default text: one header line, the source line, nothing else.
    expect(decodeExtractText(inline.stdout.replace(/\n$/, ''))).toMatchObject({
      sections: [{ path: 'notes.txt', start_line: 2, end_line: 2, label: 'todo' }],
      errors: [],
    });
    const file = path.join(dir, 'requests.json');
    await writeFile(file, JSON.stringify({ requests: JSON.parse(requests) as unknown }));
    const fromFile = await cli([
      '--partial-read',
      `--partial-read-requests-file=${file}`,
      '--output-format',
      'json',
    ]);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ count_sections: 1 });
  });

  it('--metrics-only --file-paths a b … and --files-from list.txt', async () => {
    const listed = await cli([
      '--metrics-only',
      '--file-paths',
      'src/c/buffer.c',
      'src/rust/lib.rs',
      '--output-format',
      'json',
    ]);
    expect(
      (JSON.parse(listed.stdout) as { files: { file_path: string }[] }).files.map((f) => f.file_path),
    ).toEqual(['src/c/buffer.c', 'src/rust/lib.rs']);
    await writeFile(path.join(dir, 'list.txt'), '# files\nsrc/c/buffer.c\n\nnotes.txt\n');
    const fromList = await cli([
      '--metrics-only',
      '--files-from',
      path.join(dir, 'list.txt'),
      '--output-format',
      'json',
    ]);
    expect((JSON.parse(fromList.stdout) as { count_files: number }).count_files).toBe(2);
    const single = await cli(['src/c/buffer.c', '--metrics-only', '--output-format', 'json']);
    expect(JSON.parse(single.stdout)).toMatchObject({
      file_path: 'src/c/buffer.c',
      metrics: { total_lines: 17 },
    });
    const full = await cli(['src/c/buffer.c', '--include-details']);
    expect(decodeToonText(full.stdout.trimEnd())).toMatchObject({ functions: [{ name: 'buffer_grow' }] });
  });

  it('"--" ends the options, so a file may start with "-"', async () => {
    await writeFile(path.join(dir, '-rf.txt'), 'dash needle\n');
    const { code, stdout } = await cli([
      '--partial-read',
      '--start-line',
      '1',
      '--output-format',
      'json',
      '--',
      '-rf.txt',
    ]);
    expect(code).toBe(0);
    const answer = JSON.parse(stdout) as { results: { sections: { content: string }[] }[] };
    expect(answer.results[0]?.sections[0]?.content).toBe('dash needle\n');
    expect(parseCliArgs(['--', '--help']).file).toBe('--help');
  });

  it('reports tool errors as JSON on stderr (exit 1) and usage errors with exit 2', async () => {
    const outside = await cli(['/etc/passwd', '--partial-read', '--start-line', '1']);
    expect(outside.code).toBe(1);
    expect(JSON.parse(outside.stderr)).toMatchObject({ error: { code: 'PATH_OUTSIDE_ROOT' } });
    for (const args of [
      ['--bogus'],
      ['--start-line', 'x'],
      ['--partial-read'],
      ['--metrics-only'],
      [],
      ['a', 'b'],
      ['--output-format', 'xml'],
      ['--partial-read', '--partial-read-requests-json', '{'],
    ]) {
      const result = await cli(args).catch((error: Error) => ({
        code: 2,
        stdout: '',
        stderr: error.message,
      }));
      expect(result.code, args.join(' ')).toBe(2);
    }
  });

  it('runs as the built binary', async () => {
    const { stdout } = await run(
      process.execPath,
      [path.join(DIST, 'cli.js'), '--metrics-only', '--file-paths', 'notes.txt', '--output-format', 'json'],
      { cwd: dir },
    );
    expect(JSON.parse(stdout)).toMatchObject({
      count_files: 1,
      files: [{ file_path: 'notes.txt', total_lines: 2 }],
    });
    // Every file failing: the answer lists them, and the command ends (it used to hang) with code 1.
    const failed = await run(
      process.execPath,
      [
        path.join(DIST, 'cli.js'),
        '--metrics-only',
        '--file-paths',
        'nope1.py',
        'nope2.py',
        '--output-format',
        'json',
      ],
      { cwd: dir, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code?: number; killed?: boolean; stdout?: string }) => ({
        code: error.killed ? 'killed' : error.code,
        stdout: error.stdout ?? '',
      }),
    );
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      count_files: 0,
      errors: [
        { file_path: 'nope1.py', code: 'NOT_FOUND' },
        { file_path: 'nope2.py', code: 'NOT_FOUND' },
      ],
    });
    const help = await run(process.execPath, [path.join(DIST, 'cli.js'), '--help']);
    expect(help.stdout).toContain('--partial-read-requests-json');
    // Two cold starts of the built CLI: seconds each on a loaded 2-core machine.
  }, 120_000);
});

describe('stdio server (dist/index.cjs, the bin)', () => {
  // How fast it starts is measured by `pnpm bench` (startup), not here: a loaded machine has no time to offer.
  it('answers tools/list and a TOON tool call over stdio', async () => {
    const client = await spawnStdioClient(process.execPath, [path.join(DIST, 'index.cjs'), '--root', dir]);
    try {
      const { tools } = await client.client.listTools();
      expect(tools).toHaveLength(8);
      const result = await callTool(client.client, 'search_content', {
        query: 'TODO',
        total_only: true,
      });
      expect(decodeToonText(result.text)).toEqual(result.structured);
      expect(result.structured).toMatchObject({ total_matches: 2 });
      // And a text-row answer: rg -c's rows.
      const counted = await callTool(client.client, 'search_content', {
        query: 'TODO',
        count_only_matches: true,
      });
      expect(counted.text.split('\n')).toEqual(['README.md:1', 'notes.txt:1', '# 2 matches in 2 files']);
      // A tree-sitter #match? runs on the linear-time engine: on JavaScript's, (a+)+$ against a
      // 48-character identifier never ends, ping goes unanswered and SIGTERM is ignored (issue 25).
      await writeFile(path.join(dir, 'slow.js'), `const ${'a'.repeat(47)}b = 1;\n`);
      const slow = await pingLatencyDuring(
        client.client,
        callTool(
          client.client,
          'query_code',
          { file_path: 'slow.js', query_string: '((identifier) @id (#match? @id "^(a+)+$"))' },
          { timeout: 20_000 },
        ),
      );
      expect(slow.result.error).toBeUndefined();
      expect(slow.result.structured).toMatchObject({ count: 0 });
      expect(slow.slowestPingMs).toBeLessThan(5_000);
      const backreference = await callTool(client.client, 'query_code', {
        file_path: 'slow.js',
        query_string: '((identifier) @id (#match? @id "(a)\\\\1"))',
      });
      expect(backreference.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(backreference.error?.hint).toContain('RE2');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('lists the schemas the build wrote: the same as converting the zod schemas at start', async () => {
    // dist/tool-schemas.json saves the start that conversion; a stale one would mislead clients.
    for (const structured of [false, true]) {
      const flags = structured ? ['--structured-output'] : [];
      const bin = await spawnStdioClient(process.execPath, [
        path.join(DIST, 'index.cjs'),
        '--root',
        dir,
        ...flags,
      ]);
      const inMemory = await connect([dir], { structuredOutput: structured });
      try {
        const served = (await bin.client.listTools()).tools;
        expect(served.every((tool) => (tool.outputSchema !== undefined) === structured)).toBe(true);
        expect(served).toEqual((await inMemory.client.listTools()).tools);
        // Calls are still checked against the zod schema.
        const bad = await callTool(bin.client, 'list_files', { limit: 'ten' });
        expect(bad.error?.code).toBe('INVALID_ARGUMENT');
      } finally {
        await bin.close();
        await inMemory.close();
      }
    }
  }, 120_000);
});
