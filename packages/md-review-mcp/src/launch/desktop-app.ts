import { constants } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A program to run with the review URL as its last argument. */
export interface LaunchCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log and for errors. */
  source: 'MD_REVIEW_APP' | 'PATH' | 'installed' | 'workspace';
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

/** Where this machine's installers put the app (apps/md-review-desktop/electron-builder.yml: product "md-review"). */
export interface InstallPlaces {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The system's own folder for apps: /Applications on macOS, /opt on Linux (tests point it elsewhere). */
  systemApps?: string;
}

const PRODUCT = 'md-review';

/**
 * The installed desktop app's program, in each platform's usual place: macOS `/Applications` and
 * `~/Applications` (`md-review.app`), Windows `%LOCALAPPDATA%\Programs\md-review` (the per-user NSIS
 * installer) and `%ProgramFiles%\md-review`, Linux the .deb's `/opt/md-review` and an AppImage saved in
 * `~/Applications`, `~/.local/bin`, `~/bin` or `~/Downloads` (newest name first).
 */
export async function installedApp(places: InstallPlaces): Promise<string | undefined> {
  const { platform, home, env } = places;
  const candidates: string[] = [];
  if (platform === 'darwin') {
    for (const dir of [places.systemApps ?? '/Applications', path.join(home, 'Applications')])
      candidates.push(path.join(dir, `${PRODUCT}.app`, 'Contents', 'MacOS', PRODUCT));
  } else if (platform === 'win32') {
    for (const base of [
      env.LOCALAPPDATA && path.join(env.LOCALAPPDATA, 'Programs'),
      env.ProgramFiles,
      env['ProgramFiles(x86)'],
    ])
      if (base) candidates.push(path.join(base, PRODUCT, `${PRODUCT}.exe`));
  } else {
    candidates.push(path.join(places.systemApps ?? '/opt', PRODUCT, DESKTOP_BIN));
    for (const dir of ['Applications', '.local/bin', 'bin', 'Downloads'].map((d) => path.join(home, d))) {
      const images = await readdir(dir).catch(() => [] as string[]);
      candidates.push(
        ...images
          .filter((name) => name.startsWith(`${PRODUCT}`) && name.endsWith('.AppImage'))
          .sort()
          .reverse()
          .map((name) => path.join(dir, name)),
      );
    }
  }
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

/**
 * Which desktop app opens a review: the program named by `MD_REVIEW_APP`, else `md-review-desktop` on
 * PATH, else the app installed in the platform's usual place, else this repository's built app;
 * undefined means "use the browser".
 */
export async function findDesktopApp(
  env: NodeJS.ProcessEnv,
  places: Omit<InstallPlaces, 'env'> = { platform: process.platform, home: os.homedir() },
): Promise<LaunchCommand | undefined> {
  const named = env.MD_REVIEW_APP?.trim();
  if (named) return { command: named, args: [], source: 'MD_REVIEW_APP' };
  const onThePath = await onPath(DESKTOP_BIN, env.PATH);
  if (onThePath) return { command: onThePath, args: [], source: 'PATH' };
  const installed = await installedApp({ ...places, env });
  if (installed) return { command: installed, args: [], source: 'installed' };
  return workspaceApp();
}
