import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as engine from '../src/engine.js';
import * as worker from '../src/worker.js';

describe('the worker entry (@mcp-workbench/core/worker)', () => {
  it('is a part of the engine entry: the same classes and functions, so errors keep their codes', () => {
    for (const [name, value] of Object.entries(worker))
      expect(engine[name as keyof typeof engine], name).toBe(value);
    const error = new worker.ToolError('NOT_FOUND', 'Gone.');
    expect(error).toBeInstanceOf(engine.ToolError);
    expect(engine.isToolError(error)).toBe(true);
  });

  it('leaves out what only the server thread needs (path policy, globs, logger)', () => {
    expect(Object.keys(worker).filter((name) => /^(PathPolicy|DenyGlobs|createLogger)$/.test(name))).toEqual(
      [],
    );
    const exports = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).exports;
    expect(exports['./worker']).toEqual({ types: './dist/worker.d.ts', default: './dist/worker.js' });
  });
});
