import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isToolError, ToolError, toToolError } from '../src/index.js';

function errno(code: string, path?: string) {
  return Object.assign(new Error(`${code}: failed`), { code, ...(path ? { path } : {}) });
}

describe('ToolError', () => {
  it('serialises code, message, hint and details, omitting what is absent', () => {
    expect(new ToolError('CONFLICT', 'Changed.').toJSON()).toEqual({ code: 'CONFLICT', message: 'Changed.' });
    expect(new ToolError('CONFLICT', 'Changed.', { hint: 'Reload.', details: { n: 1 } }).toJSON()).toEqual({
      code: 'CONFLICT',
      message: 'Changed.',
      hint: 'Reload.',
      details: { n: 1 },
    });
  });

  it('documents every core code', () => {
    expect(Object.keys(ERROR_CODES)).toEqual(
      expect.arrayContaining([
        'PATH_OUTSIDE_ROOT',
        'NOT_FOUND',
        'INVALID_ARGUMENT',
        'LIMIT_EXCEEDED',
        'CONFLICT',
        'BACKEND_UNAVAILABLE',
        'INTERNAL',
      ]),
    );
  });
});

describe('toToolError', () => {
  it('passes ToolErrors through unchanged', () => {
    const original = new ToolError('LIMIT_EXCEEDED', 'Too big.');
    expect(toToolError(original)).toBe(original);
    expect(isToolError(original)).toBe(true);
    expect(isToolError(new Error('x'))).toBe(false);
  });

  it.each([
    ['ENOENT', 'NOT_FOUND'],
    ['ENOTDIR', 'NOT_FOUND'],
    ['EISDIR', 'INVALID_ARGUMENT'],
    ['EACCES', 'PERMISSION_DENIED'],
    ['EPERM', 'PERMISSION_DENIED'],
    ['EEXIST', 'ALREADY_EXISTS'],
    ['ENAMETOOLONG', 'INVALID_ARGUMENT'],
    ['ENOSPC', 'LIMIT_EXCEEDED'],
  ])('maps %s to %s with a hint', (code, expected) => {
    const mapped = toToolError(errno(code, '/data/x.txt'));
    expect(mapped.code).toBe(expected);
    expect(mapped.hint).toBeTruthy();
  });

  it('names the path of a missing file', () => {
    expect(toToolError(errno('ENOENT', '/data/x.txt')).message).toBe(
      'No such file or directory: /data/x.txt',
    );
  });

  it('maps aborts to CANCELLED', () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(toToolError(abort).code).toBe('CANCELLED');
  });

  it('turns anything else into INTERNAL without echoing the original message', () => {
    for (const thrown of [
      new TypeError('x is undefined at secret.ts:12'),
      'a string',
      null,
      errno('EWEIRD'),
    ]) {
      const mapped = toToolError(thrown);
      expect(mapped.code).toBe('INTERNAL');
      expect(mapped.message).not.toContain('secret');
      expect(mapped.cause).toBe(thrown);
    }
  });
});

describe('the engine entry point', () => {
  it('offers the MCP-free API and never imports the MCP SDK (engines and CLIs start fast)', async () => {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    const path = await import('node:path');
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = async (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await readFile(file, 'utf8');
      for (const [, spec] of source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        if (spec!.startsWith('.')) await visit(path.resolve(path.dirname(file), spec!));
        else bare.add(spec!);
      }
    };
    await visit(fileURLToPath(new URL('../dist/engine.js', import.meta.url)));
    expect(seen.size).toBeGreaterThan(5);
    expect([...bare].filter((spec) => spec.startsWith('@modelcontextprotocol/'))).toEqual([]);
    const engine = await import('../src/engine.js');
    expect(Object.keys(engine)).toEqual(
      expect.arrayContaining(['ToolError', 'PathPolicy', 'formatOutput', 'withAtomicFile']),
    );
    expect(Object.keys(engine)).not.toContain('createToolServer');
  });
});
