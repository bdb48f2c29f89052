import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import type { PathPolicy } from '../paths/path-policy.js';

/**
 * How long the server waits for the client's answer to `roots/list`. Tool calls wait for the roots, so
 * a client that never answers must not hold every call for the SDK's 60 s default: after this, the
 * roots in force stay.
 */
export const ROOTS_LIST_TIMEOUT_MS = 3000;

/**
 * The local directory a root URI names, or a reason to skip it. Only `file:` URIs on this machine are
 * roots, and a `.` or `..` segment (written plainly or percent-encoded, `%2e%2e`) is refused rather than
 * folded: `file:///work/app/%2e%2e` must not become `/work`.
 */
export function rootUriToPath(
  uri: string,
  platform: NodeJS.Platform = process.platform,
): { path: string } | { skip: string } {
  const match = /^file:\/\/([^/]*)(\/.*)?$/i.exec(uri);
  if (!match) return { skip: 'not a file:// URI' };
  const host = match[1]!.toLowerCase();
  // On Windows a host names a share, as local as a drive: `file://server/share/x` is `\\server\share\x`
  // (network shares, and WSL's `file://wsl.localhost/Ubuntu/…`).
  const share = platform === 'win32' && host !== '' && host !== 'localhost';
  if (host !== '' && host !== 'localhost' && !share) return { skip: `a file on another host (${host})` };
  const rawPath = (match[2] ?? '/').replace(/[?#].*$/s, '');
  for (const segment of rawPath.split(/\/|%2f|%5c|\\/i)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { skip: 'a malformed percent-encoding' };
    }
    if (decoded === '.' || decoded === '..') return { skip: 'a "." or ".." segment' };
  }
  try {
    if (share) return { path: `\\\\${host}${decodeURIComponent(rawPath).replaceAll('/', '\\')}` };
    return { path: fileURLToPath(uri) };
  } catch (error) {
    return { skip: (error as Error).message };
  }
}

/**
 * When the client offers MCP roots, they are applied (and `roots/list_changed` followed): they narrow
 * the user's `--root` directories, or replace the implicit working-directory root (see
 * `PathPolicy.applyClientRoots`). Roots that are not local directories are skipped; an empty or
 * unusable list, or a client that does not answer in time, keeps the current roots; roots that all lie
 * outside the user's leave none.
 */
export function followClientRoots(server: Server, paths: PathPolicy, logger: Logger): void {
  const load = async (): Promise<string[] | undefined> => {
    if (!server.getClientCapabilities()?.roots) return undefined;
    const { roots } = await server.listRoots(undefined, { timeout: ROOTS_LIST_TIMEOUT_MS });
    const local: string[] = [];
    for (const root of roots) {
      const parsed = rootUriToPath(root.uri);
      if ('path' in parsed) local.push(parsed.path);
      else logger.warn(`Skipped the client root ${root.uri}: ${parsed.skip}.`);
    }
    if (local.length === 0) {
      logger.warn('The client offered no usable file:// roots; keeping the configured roots.');
      return undefined;
    }
    return local;
  };
  const refresh = () => {
    paths
      .updateRootsAsync(load)
      .then(() => {
        if (paths.roots.length > 0) logger.info(`Roots: ${paths.roots.join(', ')}`);
        else logger.warn(paths.missingRootMessage());
      })
      .catch((error: unknown) => {
        logger.warn('Could not apply the client roots; keeping the configured roots.', error);
      });
  };
  const previous = server.oninitialized;
  server.oninitialized = () => {
    previous?.();
    refresh();
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    refresh();
  });
}
