// Issue 28 §5: a default install leaves the Google clients and the PostgreSQL driver out (the local
// store needs neither); a backend whose packages are missing says what to install, not a stack.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };

const LOADER = pathToFileURL(
  fileURLToPath(new URL('../dist/store/optional-packages.js', import.meta.url)),
).href;

/** Loads a module through the built loadBackend in a plain Node process (Node's own resolution). */
function loadInNode(backend: string, module: string): Record<string, unknown> {
  const script = `import { loadBackend } from '${LOADER}';
try { await loadBackend('${backend}', () => import('${module}')); console.log('{}'); }
catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, hint: e.hint })); }`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as Record<string, unknown>;
}

describe('optional backend packages', () => {
  it('are optional peers, and a missing one is named with the npx arguments that bring it', async () => {
    const peers = packageJson.peerDependencies as Record<string, string>;
    const meta = packageJson.peerDependenciesMeta as Record<string, { optional: boolean }>;
    for (const name of [
      'pg',
      '@googleapis/sheets',
      '@googleapis/drive',
      '@googleapis/docs',
      'google-auth-library',
    ]) {
      expect(packageJson.dependencies, name).not.toHaveProperty(name);
      expect(peers[name], name).toBeDefined();
      expect(meta[name]?.optional, name).toBe(true);
    }
    // Modules outside the workspace, where node_modules holds none of them: real resolution failures.
    const dir = path.join(os.tmpdir(), `prismind-optional-${process.pid}`);
    await mkdir(dir, { recursive: true });
    try {
      const module = async (name: string, text: string) => {
        const file = path.join(dir, name);
        await writeFile(file, text);
        return pathToFileURL(file).href;
      };
      const needsPg = await module('pg.mjs', "import pg from 'pg';\nexport default pg;\n");
      expect(loadInNode('postgres', needsPg)).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: expect.stringContaining('needs the package pg'),
        hint: expect.stringContaining('npx -y -p pg -p prismind-mcp prismind-mcp'),
      });
      const needsGoogle = await module(
        'google.mjs',
        "import { sheets_v4 } from '@googleapis/sheets';\nexport { sheets_v4 };\n",
      );
      expect(loadInNode('google', needsGoogle)).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: expect.stringContaining('@googleapis/sheets'),
      });
      // Any other failure is not dressed up as a missing package.
      const broken = await module('broken.mjs', "throw new Error('broken module');\n");
      expect(loadInNode('postgres', broken)).toMatchObject({ message: 'broken module' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
