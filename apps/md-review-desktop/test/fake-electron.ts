// A stand-in for the `electron` module: Electron's binary cannot be downloaded on these machines, and
// the main process's logic (which window shows what, what is refused) needs no real window to be tested.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { ElectronApi } from '../src/desktop.js';

type Handler = (details: { url: string }) => { action: 'allow' | 'deny' };

export class FakeWebContents extends EventEmitter {
  url = '';
  openHandler: Handler | undefined;
  setWindowOpenHandler(handler: Handler) {
    this.openHandler = handler;
  }
  getURL() {
    return this.url;
  }
  /** Emits an event whose default the app may prevent; answers whether it did. */
  tryEvent(name: string, ...args: unknown[]): boolean {
    let prevented = false;
    this.emit(name, { preventDefault: () => (prevented = true) }, ...args);
    return prevented;
  }
}

export class FakeWindow extends EventEmitter {
  static created: FakeWindow[] = [];
  readonly webContents = new FakeWebContents();
  loaded: string[] = [];
  focused = 0;
  shown = false;
  destroyed = false;
  title = '';
  maximized = false;
  bounds: { x: number; y: number; width: number; height: number };
  constructor(readonly options: Record<string, unknown>) {
    super();
    const o = options as { x?: number; y?: number; width: number; height: number };
    this.bounds = { x: o.x ?? 100, y: o.y ?? 100, width: o.width, height: o.height };
    FakeWindow.created.push(this);
  }
  setTitle(title: string) {
    this.title = title;
  }
  getNormalBounds() {
    return { ...this.bounds };
  }
  isMaximized() {
    return this.maximized;
  }
  maximize() {
    this.maximized = true;
  }
  /** Emits an event whose default the app may prevent; answers whether it did. */
  tryEvent(name: string, ...args: unknown[]): boolean {
    let prevented = false;
    this.emit(name, { preventDefault: () => (prevented = true) }, ...args);
    return prevented;
  }
  loadURL(url: string) {
    this.loaded.push(url);
    this.webContents.url = url;
    return Promise.resolve();
  }
  show() {
    this.shown = true;
  }
  focus() {
    this.focused++;
  }
  isMinimized() {
    return false;
  }
  restore() {}
  isDestroyed() {
    return this.destroyed;
  }
  close() {
    this.emit('close', { preventDefault: () => undefined });
    this.destroyed = true;
    this.emit('closed');
  }
}

/** A 1920×1080 display at the origin, unless the test says otherwise. */
export const ONE_DISPLAY = [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }];

/** A userData folder of its own, removed when the test ends (the test's later launches may reuse it). */
function tempUserData(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'md-review-desktop-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function fakeElectron(
  options: { lock?: boolean; userData?: string; displays?: typeof ONE_DISPLAY } = {},
) {
  const userData = options.userData ?? tempUserData();
  FakeWindow.created = [];
  let ready!: () => void;
  const whenReady = new Promise<void>((resolve) => (ready = resolve));
  const app = Object.assign(new EventEmitter(), {
    quitCalls: 0,
    requestSingleInstanceLock: () => options.lock ?? true,
    quit() {
      app.quitCalls++;
    },
    whenReady: () => whenReady,
    getPath: (name: string) => {
      if (name !== 'userData') throw new Error(`unexpected app.getPath(${name})`);
      return userData;
    },
  });
  const headerHooks: Array<
    (
      details: { responseHeaders: Record<string, string[]> },
      cb: (r: { responseHeaders: Record<string, string[]> }) => void,
    ) => void
  > = [];
  let permissionHandler: ((c: unknown, p: string, cb: (ok: boolean) => void) => void) | undefined;
  const opened: string[] = [];
  const electron = {
    app,
    BrowserWindow: FakeWindow,
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (hook: (typeof headerHooks)[number]) => headerHooks.push(hook) },
        setPermissionRequestHandler: (handler: typeof permissionHandler) => (permissionHandler = handler),
      },
    },
    shell: { openExternal: async (url: string) => void opened.push(url) },
    screen: { getAllDisplays: () => options.displays ?? ONE_DISPLAY },
  };
  return {
    electron: electron as unknown as ElectronApi,
    app,
    ready: async () => {
      ready();
      await whenReady;
      await new Promise((r) => setImmediate(r));
    },
    headerHooks,
    permission: (name: string) => new Promise<boolean>((resolve) => permissionHandler!({}, name, resolve)),
    opened,
    userData,
  };
}
