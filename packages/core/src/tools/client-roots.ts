import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import type { PathPolicy } from '../paths/path-policy.js';

/**
 * When the client offers MCP roots, they replace the CLI roots (and follow `roots/list_changed`).
 * Roots that are not local directories are skipped; an empty or unusable list keeps the current roots.
 */
export function followClientRoots(server: Server, paths: PathPolicy, logger: Logger): void {
  const load = async (): Promise<string[] | undefined> => {
    if (!server.getClientCapabilities()?.roots) return undefined;
    const { roots } = await server.listRoots();
    const local = roots.filter((root) => root.uri.startsWith('file:')).map((root) => fileURLToPath(root.uri));
    if (local.length === 0) {
      logger.warn('The client offered no file:// roots; keeping the configured roots.');
      return undefined;
    }
    logger.info(`Using the client's roots: ${local.join(', ')}`);
    return local;
  };
  const refresh = () => {
    paths.updateRootsAsync(load).catch((error: unknown) => {
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
