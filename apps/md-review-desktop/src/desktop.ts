import type * as Electron from 'electron';
import { isExternalLink, isSameOrigin, reviewUrlFromArgv } from './review-url.js';
import { CONTENT_SECURITY_POLICY, WEB_PREFERENCES } from './security.js';
import { placeWindow, WindowStateFile, type Bounds } from './window-state.js';

/** The parts of the `electron` module the app uses (tests pass a stand-in). */
export type ElectronApi = Pick<typeof Electron, 'app' | 'BrowserWindow' | 'session' | 'shell' | 'screen'>;

export interface DesktopOptions {
  /** Where messages for a person at a terminal go. */
  log?: (line: string) => void;
}

export interface Desktop {
  /** Shows a review: focuses its window when it is already open, else opens one. */
  show(url: URL): Electron.BrowserWindow;
  windows(): Electron.BrowserWindow[];
}

const USAGE = 'usage: md-review-desktop http://127.0.0.1:<port>/review/<key>#token=<token>';

/**
 * The main process: one instance per user (a second launch hands its URL to the first and quits), one
 * window per review, each locked to its review server's origin; links open in the system browser,
 * new windows, other origins, webviews and permission requests are refused.
 */
export function startDesktop(
  electron: ElectronApi,
  argv: readonly string[],
  options: DesktopOptions = {},
): Desktop | undefined {
  const { app, BrowserWindow, session, shell, screen } = electron;
  const log = options.log ?? ((line: string) => console.error(line));
  if (!app.requestSingleInstanceLock()) {
    app.quit(); // the running app got our argv in its 'second-instance' event
    return undefined;
  }
  const open = new Map<string, Electron.BrowserWindow>();
  let windowState: WindowStateFile | undefined;
  const stateFile = () => (windowState ??= new WindowStateFile(app.getPath('userData')));
  /** Bounds are usable when most of the window's top is on some display (a monitor may be unplugged). */
  const onScreen = (bounds: Bounds) =>
    screen.getAllDisplays().some(({ workArea: a }) => {
      const overlap = Math.min(bounds.x + bounds.width, a.x + a.width) - Math.max(bounds.x, a.x);
      return overlap >= Math.min(200, bounds.width) && bounds.y >= a.y && bounds.y < a.y + a.height - 40;
    });

  const show = (url: URL): Electron.BrowserWindow => {
    const id = `${url.origin}${url.pathname}`;
    const existing = open.get(id);
    if (existing && !existing.isDestroyed()) {
      if (existing.webContents.getURL() !== url.href) void existing.loadURL(url.href); // a fresh token
      if (existing.isMinimized()) existing.restore();
      existing.focus();
      return existing;
    }
    const saved = stateFile().load();
    const window = new BrowserWindow({
      ...placeWindow(saved, open.size, onScreen),
      minWidth: 420,
      minHeight: 400,
      title: 'md-review',
      show: false,
      autoHideMenuBar: true,
      webPreferences: { ...WEB_PREFERENCES },
    });
    open.set(id, window);
    window.once('ready-to-show', () => {
      if (saved?.maximized && open.size === 1) window.maximize();
      window.show();
    });
    // The review's title is the window's (the page names itself "<title> — md-review").
    window.on('page-title-updated', (event, title) => {
      event.preventDefault();
      window.setTitle(title || 'md-review');
    });
    // Size and place are remembered when the window closes (the last one closed wins).
    window.on('close', () =>
      stateFile().save({ bounds: window.getNormalBounds(), maximized: window.isMaximized() }),
    );
    window.on('closed', () => open.delete(id));
    lockDown(window.webContents, url.origin);
    void window.loadURL(url.href);
    return window;
  };

  const lockDown = (contents: Electron.WebContents, origin: string) => {
    contents.on('will-navigate', (event, target) => {
      if (isSameOrigin(target, origin)) return;
      event.preventDefault();
      if (isExternalLink(target)) void shell.openExternal(target);
    });
    contents.on('will-redirect', (event, target) => {
      if (!isSameOrigin(target, origin)) event.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      if (isExternalLink(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  };

  app.on('second-instance', (_event, secondArgv) => {
    const url = reviewUrlFromArgv(secondArgv);
    if (url) show(url);
    else log(USAGE);
  });
  app.on('window-all-closed', () => app.quit());

  void app.whenReady().then(() => {
    const ses = session.defaultSession;
    ses.webRequest.onHeadersReceived((details, callback) => {
      callback({
        responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
      });
    });
    ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    const url = reviewUrlFromArgv(argv);
    if (url) show(url);
    else {
      log(USAGE);
      app.quit();
    }
  });

  return { show, windows: () => [...open.values()] };
}
