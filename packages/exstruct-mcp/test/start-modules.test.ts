// The built server loads the `yaml` package (72 CommonJS modules) on the first YAML output it writes or
// reads, not at start: most callers ask for JSON or TOON.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commonJsModulesLoadedBy } from '@mcp-workbench/core/testing';

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));

describe('modules loaded at start', () => {
  it('loading the server does not load yaml', async () => {
    const loaded = await commonJsModulesLoadedBy(SERVER);
    expect(loaded.length).toBeGreaterThan(0); // the check sees CommonJS modules at all
    expect(loaded.filter((file) => /[\\/]yaml[\\/]/.test(file))).toEqual([]);
  });
});

describe('module layering', () => {
  it('the server sits on top: no module under src imports server.ts but the bin', async () => {
    // The bin (index.ts) loads stdio-server.ts, which starts the server, once V8 is set up for the start.
    const src = fileURLToPath(new URL('../src/', import.meta.url));
    const files = (await readdir(src, { recursive: true })).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(50);
    const importers: string[] = [];
    for (const file of files) {
      const text = await readFile(src + file, 'utf8');
      // Static imports and dynamic ones (the bin loads the server after starting its job thread).
      if (/(from |import\()'(\.\.?\/)+server\.js'/.test(text)) importers.push(file.replaceAll('\\', '/'));
    }
    expect(importers).toEqual(['stdio-server.ts']);
  });
});
