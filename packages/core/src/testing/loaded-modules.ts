import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The CommonJS modules a fresh Node process has loaded once it has imported `entry` (an ES module
 * file): what a server pays for at start. ES modules are not listed; most heavy dependencies
 * (yaml, ajv) ship CommonJS builds for Node.
 */
export async function commonJsModulesLoadedBy(entry: string): Promise<string[]> {
  const script = `import(${JSON.stringify(entry)}).then(() => console.log(JSON.stringify(Object.keys(require.cache))))`;
  const { stdout } = await run(process.execPath, ['-e', script]);
  return JSON.parse(stdout) as string[];
}
