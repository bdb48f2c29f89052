// Start time (issue 13): the built server loads only what answering needs. The `yaml` package (72
// modules, CommonJS) is for YAML answers, which this server never writes.
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
