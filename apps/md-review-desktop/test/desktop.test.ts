import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDesktop } from '../src/desktop.js';
import { asReviewUrl, reviewUrlFromArgv } from '../src/review-url.js';
import { fakeElectron, FakeWindow } from './fake-electron.js';

const REVIEW = 'http://127.0.0.1:41234/review/0b5a1c3e-8a2f-4f7e-9a11-3c0d6c2e7f10#token=abc';
const quiet = { log: () => undefined };

describe('review URLs', () => {
  it('accepts only md-review pages on loopback', () => {
    expect(asReviewUrl(REVIEW)?.port).toBe('41234');
    expect(asReviewUrl('http://localhost:5/review/k')).toBeDefined();
    for (const bad of [
      'https://127.0.0.1:41234/review/k',
      'http://example.com:80/review/k',
      'http://127.0.0.1/review/k',
      'http://127.0.0.1:1/other',
      'file:///etc/passwd',
      'http://user:pw@127.0.0.1:1/review/k',
      'not a url',
    ]) {
      expect(asReviewUrl(bad), bad).toBeUndefined();
    }
    expect(reviewUrlFromArgv(['/usr/bin/electron', '/app', '--flag', REVIEW])?.href).toBe(REVIEW);
    expect(reviewUrlFromArgv(['/usr/bin/electron', '/app'])).toBeUndefined();
  });
});

describe('the main process (with a stand-in for electron)', () => {
  it('opens the URL in a sandboxed, isolated window without Node, and sets a CSP on every response', async () => {
    const fake = fakeElectron();
    startDesktop(fake.electron, ['electron', '.', REVIEW], quiet);
    await fake.ready();
    const [window] = FakeWindow.created;
    expect(window?.loaded).toEqual([REVIEW]);
    expect(window?.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    });
    window!.emit('ready-to-show');
    expect(window!.shown).toBe(true);
    const headers = await new Promise<Record<string, string[]>>((resolve) =>
      fake.headerHooks[0]!({ responseHeaders: { 'X-Other': ['1'] } }, (r) => resolve(r.responseHeaders)),
    );
    expect(headers['Content-Security-Policy']![0]).toMatch(/^default-src 'none'; script-src 'self'/);
    expect(headers['X-Other']).toEqual(['1']);
    expect(await fake.permission('media')).toBe(false);
  });

  it('refuses navigation to other origins and new windows; web links go to the system browser', async () => {
    const fake = fakeElectron();
    startDesktop(fake.electron, ['electron', '.', REVIEW], quiet);
    await fake.ready();
    const contents = FakeWindow.created[0]!.webContents;
    expect(contents.tryEvent('will-navigate', 'http://127.0.0.1:41234/review/other#token=x')).toBe(false);
    expect(contents.tryEvent('will-navigate', 'https://evil.example/')).toBe(true);
    expect(contents.tryEvent('will-navigate', 'http://127.0.0.1:9999/review/x')).toBe(true); // another server
    expect(contents.tryEvent('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.tryEvent('will-redirect', 'https://evil.example/')).toBe(true);
    expect(contents.tryEvent('will-attach-webview')).toBe(true);
    expect(contents.openHandler!({ url: 'https://docs.example/spec' })).toEqual({ action: 'deny' });
    expect(contents.openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(fake.opened).toEqual([
      'https://evil.example/',
      'http://127.0.0.1:9999/review/x',
      'https://docs.example/spec',
    ]);
  });

  it('is single-instance: a second launch quits, and its URL opens in the running app', async () => {
    const second = fakeElectron({ lock: false });
    expect(startDesktop(second.electron, ['electron', '.', REVIEW], quiet)).toBeUndefined();
    expect(second.app.quitCalls).toBe(1);

    const fake = fakeElectron();
    const desktop = startDesktop(fake.electron, ['electron', '.', REVIEW], quiet)!;
    await fake.ready();
    const other = 'http://127.0.0.1:50000/review/another#token=t2';
    fake.app.emit('second-instance', {}, ['electron', '.', other], '/');
    expect(FakeWindow.created.map((w) => w.loaded[0])).toEqual([REVIEW, other]);
    // The same review again: its window is focused (with the fresh token), not duplicated.
    const again = REVIEW.replace('token=abc', 'token=fresh');
    fake.app.emit('second-instance', {}, ['electron', '.', again], '/');
    expect(FakeWindow.created).toHaveLength(2);
    expect(FakeWindow.created[0]!.loaded).toEqual([REVIEW, again]);
    expect(FakeWindow.created[0]!.focused).toBe(1);
    // A closed window is forgotten; the app quits when the last one closes.
    FakeWindow.created[0]!.close();
    expect(desktop.windows()).toHaveLength(1);
    fake.app.emit('window-all-closed');
    expect(fake.app.quitCalls).toBe(1);
  });

  it('without a review URL it prints the usage and quits', async () => {
    const lines: string[] = [];
    const fake = fakeElectron();
    startDesktop(fake.electron, ['electron', '.', 'https://example.com/'], { log: (l) => lines.push(l) });
    await fake.ready();
    expect(FakeWindow.created).toEqual([]);
    expect(lines[0]).toMatch(/^usage: md-review-desktop http:\/\/127\.0\.0\.1/);
    expect(fake.app.quitCalls).toBe(1);
  });

  it("remembers the window's size and place, and restores them only where a screen still is", async () => {
    const first = fakeElectron();
    startDesktop(first.electron, ['electron', '.', REVIEW], quiet);
    await first.ready();
    const window = FakeWindow.created[0]!;
    expect(window.options).toMatchObject({ width: 1280, height: 860 }); // nothing remembered yet
    window.bounds = { x: 300, y: 120, width: 1000, height: 700 };
    window.maximized = true;
    window.close();
    const state = JSON.parse(readFileSync(path.join(first.userData, 'window-state.json'), 'utf8')) as unknown;
    expect(state).toEqual({ bounds: { x: 300, y: 120, width: 1000, height: 700 }, maximized: true });

    // The next launch opens where the last window was, maximized again.
    const next = fakeElectron({ userData: first.userData });
    startDesktop(next.electron, ['electron', '.', REVIEW], quiet);
    await next.ready();
    const reopened = FakeWindow.created[0]!;
    expect(reopened.options).toMatchObject({ x: 300, y: 120, width: 1000, height: 700 });
    reopened.emit('ready-to-show');
    expect(reopened.maximized).toBe(true);

    // That monitor is gone: the default size, placed by the system.
    const elsewhere = fakeElectron({
      userData: first.userData,
      displays: [{ workArea: { x: 2000, y: 0, width: 1280, height: 800 } }],
    });
    startDesktop(elsewhere.electron, ['electron', '.', REVIEW], quiet);
    await elsewhere.ready();
    expect(FakeWindow.created[0]!.options).toMatchObject({ width: 1280, height: 860 });
    expect(FakeWindow.created[0]!.options.x).toBeUndefined();
  });

  it('a second review opens a new window of the same instance, cascaded, with the same hardened settings', async () => {
    const fake = fakeElectron();
    startDesktop(fake.electron, ['electron', '.', REVIEW], quiet);
    await fake.ready();
    FakeWindow.created[0]!.bounds = { x: 200, y: 100, width: 1100, height: 760 };
    FakeWindow.created[0]!.close(); // remembered
    startDesktop(fakeElectron({ userData: fake.userData }).electron, ['electron', '.', REVIEW], quiet);
    const again = fakeElectron({ userData: fake.userData });
    startDesktop(again.electron, ['electron', '.', REVIEW], quiet);
    await again.ready();
    again.app.emit(
      'second-instance',
      {},
      ['electron', '.', 'http://127.0.0.1:50000/review/other#token=t'],
      '/',
    );
    const [one, two] = FakeWindow.created.slice(-2);
    expect(one!.options).toMatchObject({ x: 200, y: 100 });
    expect(two!.options).toMatchObject({ x: 228, y: 128, width: 1100, height: 760 });
    for (const window of [one!, two!]) {
      expect(window.options.webPreferences).toEqual({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: true,
      });
      // Navigation stays on the window's own review server; new windows are never opened.
      const origin = new URL(window.loaded[0]!).origin;
      expect(window.webContents.tryEvent('will-navigate', `${origin}/review/x#token=y`)).toBe(false);
      expect(window.webContents.tryEvent('will-navigate', 'http://127.0.0.1:1/review/x')).toBe(true);
      expect(window.webContents.tryEvent('will-redirect', 'https://example.com/')).toBe(true);
      expect(window.webContents.openHandler!({ url: `${origin}/review/x` })).toEqual({ action: 'deny' });
    }
  });

  it("shows the review's title in the window title", async () => {
    const fake = fakeElectron();
    startDesktop(fake.electron, ['electron', '.', REVIEW], quiet);
    await fake.ready();
    const window = FakeWindow.created[0]!;
    expect(window.tryEvent('page-title-updated', 'Migration plan review — md-review', true)).toBe(true);
    expect(window.title).toBe('Migration plan review — md-review');
  });
});
