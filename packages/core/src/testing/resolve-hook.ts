// A module hook for a process the tests spawn: it notes every module URL that process resolves, so a
// test can say which modules a step loaded (`node --import <register> …`).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ResolveLog {
  /** The module to pass to `node --import`, which registers the hook. */
  register: string;
  /** The file the hook appends each resolved URL to (one per line). */
  file: string;
  /** The URLs resolved so far. */
  urls(): Promise<string[]>;
}

/** Writes the hook and its register module into `dir`. */
export async function writeResolveHook(dir: string): Promise<ResolveLog> {
  const file = path.join(dir, 'resolved.txt');
  await writeFile(file, '');
  const hooks = path.join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(file)}, result.url + '\\n');
  return result;
}
`,
  );
  const register = path.join(dir, 'register.mjs');
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return {
    register,
    file,
    urls: async () => (await readFile(file, 'utf8')).split('\n').filter(Boolean),
  };
}
