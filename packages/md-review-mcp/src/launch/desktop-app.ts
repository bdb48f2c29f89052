import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A program to run with the review URL as its last argument. */
export interface LaunchCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log and for errors. */
  source: 'MD_REVIEW_APP' | 'PATH' | 'workspace';
}

export const DESKTOP_BIN = 'md-review-desktop';

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string, envPath: string | undefined): Promise<string | undefined> {
  const extensions = process.platform === 'win32' ? ['.cmd', '.exe', ''] : [''];
  for (const dir of (envPath ?? '').split(path.delimiter).filter(Boolean)) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The desktop app of this repository (apps/md-review-desktop), when the server runs from a checkout
 * where the app is built and Electron's binary is installed. Electron's binary is located through
 * `electron/path.txt`, exactly as the electron package does it, without loading the package: the
 * server never requires `electron`.
 */
async function workspaceApp(): Promise<LaunchCommand | undefined> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const app = path.resolve(here, '../../../../apps/md-review-desktop');
  const electron = path.join(app, 'node_modules', 'electron');
  try {
    await access(path.join(app, 'dist', 'main.js'));
    const relative = (await readFile(path.join(electron, 'path.txt'), 'utf8')).trim();
    const binary = path.join(electron, 'dist', relative);
    if (!(await isExecutable(binary))) return undefined;
    return { command: binary, args: [app], source: 'workspace' };
  } catch {
    return undefined;
  }
}

/**
 * Which desktop app opens a review: the program named by `MD_REVIEW_APP`, else an installed
 * `md-review-desktop` on PATH, else this repository's built app; undefined means "use the browser".
 */
export async function findDesktopApp(env: NodeJS.ProcessEnv): Promise<LaunchCommand | undefined> {
  const named = env.MD_REVIEW_APP?.trim();
  if (named) return { command: named, args: [], source: 'MD_REVIEW_APP' };
  const installed = await onPath(DESKTOP_BIN, env.PATH);
  if (installed) return { command: installed, args: [], source: 'PATH' };
  return workspaceApp();
}
