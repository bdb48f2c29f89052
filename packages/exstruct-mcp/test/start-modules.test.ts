// The built server loads the `yaml` package (72 CommonJS modules) on the first YAML output it writes or
// reads, not at start: most callers ask for JSON or TOON.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const run = promisify(execFile);

describe('modules loaded at start', () => {
  it('loading the server does not load yaml', async () => {
    const script = `import(${JSON.stringify(SERVER)}).then(() => console.log(JSON.stringify(Object.keys(require.cache))))`;
    const { stdout } = await run(process.execPath, ['-e', script]);
    const loaded = JSON.parse(stdout) as string[];
    expect(loaded.length).toBeGreaterThan(0); // the check sees CommonJS modules at all
    expect(loaded.filter((file) => /[\\/]yaml[\\/]/.test(file))).toEqual([]);
  });
});
