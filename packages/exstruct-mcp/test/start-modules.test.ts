// The built server loads the `yaml` package (72 CommonJS modules) on the first YAML output it writes or
// reads, not at start: most callers ask for JSON or TOON.
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
