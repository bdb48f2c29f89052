// Which URLs the window may show: md-review pages on this machine's loopback, nothing else.

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A review page URL (`http://127.0.0.1:<port>/review/<key>#token=…`), or undefined. */
export function asReviewUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || !url.port) return undefined;
  if (!/^\/review\/[^/]+$/.test(url.pathname) || url.username || url.password) return undefined;
  return url;
}

/** The last review URL among command-line arguments (Electron puts its own arguments first). */
export function reviewUrlFromArgv(argv: readonly string[]): URL | undefined {
  for (let i = argv.length - 1; i >= 0; i--) {
    const url = asReviewUrl(argv[i]!);
    if (url) return url;
  }
  return undefined;
}

/** Navigation stays on the page's own origin (its server); anything else is refused. */
export function isSameOrigin(target: string, origin: string): boolean {
  try {
    return new URL(target).origin === origin;
  } catch {
    return false;
  }
}

/** Links the page opens (http, https, mailto) go to the system's browser, never into the app. */
export function isExternalLink(target: string): boolean {
  try {
    return ['http:', 'https:', 'mailto:'].includes(new URL(target).protocol);
  } catch {
    return false;
  }
}
