// Issue 28 §4: md-review-mcp finds the desktop app where each platform's installer puts it
// (apps/md-review-desktop/electron-builder.yml: product "md-review", Linux executable md-review-desktop).
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDesktopApp, installedApp } from '../src/launch/desktop-app.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'md-review-app-'));
});
afterEach(async () => rm(base, { recursive: true, force: true }));

async function program(...parts: string[]): Promise<string> {
  const file = path.join(base, ...parts);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '#!/bin/sh\n');
  await chmod(file, 0o755);
  return file;
}

describe('the installed desktop app', () => {
  it('macOS: /Applications/md-review.app, else ~/Applications/md-review.app', async () => {
    const home = path.join(base, 'home');
    const places = {
      platform: 'darwin' as const,
      home,
      env: {},
      systemApps: path.join(base, 'Applications'),
    };
    expect(await installedApp(places)).toBeUndefined();
    const mine = await program('home', 'Applications', 'md-review.app', 'Contents', 'MacOS', 'md-review');
    expect(await installedApp(places)).toBe(mine);
    const system = await program('Applications', 'md-review.app', 'Contents', 'MacOS', 'md-review');
    expect(await installedApp(places)).toBe(system);
  });

  it('Windows: %LOCALAPPDATA%\\Programs\\md-review (per-user NSIS), else Program Files', async () => {
    const env = { LOCALAPPDATA: path.join(base, 'Local'), ProgramFiles: path.join(base, 'Program Files') };
    const places = { platform: 'win32' as const, home: base, env };
    const machine = await program('Program Files', 'md-review', 'md-review.exe');
    expect(await installedApp(places)).toBe(machine);
    const user = await program('Local', 'Programs', 'md-review', 'md-review.exe');
    expect(await installedApp(places)).toBe(user);
  });

  it('Linux: the .deb in /opt/md-review, else the newest md-review AppImage in the usual folders', async () => {
    const home = path.join(base, 'home');
    const places = { platform: 'linux' as const, home, env: {}, systemApps: path.join(base, 'opt') };
    await program('home', 'Downloads', 'notes.AppImage');
    expect(await installedApp(places)).toBeUndefined();
    await program('home', 'Applications', 'md-review-0.1.0-linux-x86_64.AppImage');
    const newer = await program('home', 'Applications', 'md-review-0.2.0-linux-x86_64.AppImage');
    expect(await installedApp(places)).toBe(newer);
    const deb = await program('opt', 'md-review', 'md-review-desktop');
    expect(await installedApp(places)).toBe(deb);
  });

  it('MD_REVIEW_APP and PATH come first, then the installed app', async () => {
    const home = path.join(base, 'home');
    const app = await program('home', 'Applications', 'md-review.app', 'Contents', 'MacOS', 'md-review');
    const places = { platform: 'darwin' as const, home, systemApps: path.join(base, 'none') };
    expect(await findDesktopApp({ PATH: '' }, places)).toEqual({
      command: app,
      args: [],
      source: 'installed',
    });
    const onPath = await program('bin', 'md-review-desktop');
    expect((await findDesktopApp({ PATH: path.dirname(onPath) }, places))?.source).toBe('PATH');
    expect((await findDesktopApp({ MD_REVIEW_APP: '/x/app', PATH: '' }, places))?.command).toBe('/x/app');
  });
});
