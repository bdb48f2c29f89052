// A stand-in for the `electron` module: Electron's binary cannot be downloaded on these machines, and
// the main process's logic (which window shows what, what is refused) needs no real window to be tested.
import { EventEmitter } from 'node:events';
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
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeWindow.created.push(this);
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
    this.destroyed = true;
    this.emit('closed');
  }
}

export function fakeElectron(options: { lock?: boolean } = {}) {
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
  };
}
