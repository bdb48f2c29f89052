import { createToolServer, trackCalls, type ServerRuntime } from '@mcp-workbench/core';
import { IdleStart } from './jobs/idle-start.js';
import type { OnConflict } from './output/on-conflict.js';
import { closeToolDeps, createToolDeps, warmToolDeps } from './tools/deps.js';
import { editTools } from './tools/edit-tools.js';
import { readTools } from './tools/read-tools.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';
import { restoreYoungGeneration } from './young-generation.js';

export interface ExstructServerOptions extends Pick<ServerRuntime, 'paths' | 'logger'> {
  /** Also send structuredContent and declare outputSchema (`--structured-output`). */
  structuredOutput?: boolean;
  /** Default conflict policy for written files; a tool's `on_conflict` argument wins (spec 11.1). */
  onConflict?: OnConflict;
}

export type { ExstructToolDeps } from './tools/deps.js';

export function createServer(options: ExstructServerOptions) {
  const deps = createToolDeps(options.onConflict);
  // The extraction thread starts (and warms up) once the server is idle after the handshake.
  const idle = new IdleStart(() => warmToolDeps(deps));
  const server = createToolServer(
    {
      name: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      title: 'ExStruct — Excel workbooks for agents',
      instructions:
        'Read Excel workbooks as structured data and edit them safely. Recommended flow: ' +
        'exstruct_validate_input → exstruct_extract (mode "standard") → exstruct_read_json_chunk / read_range.',
    },
    [...readTools(deps), ...editTools(deps)].map((tool) => trackCalls(tool, idle)),
    {
      paths: options.paths,
      ...(options.logger ? { logger: options.logger } : {}),
      structuredOutput: options.structuredOutput === true,
    },
  );
  // The start is over: the young generation the bin kept small while loading may grow again. The
  // extraction thread warms up while the client's model picks a first call.
  const onInitialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    onInitialized?.();
    restoreYoungGeneration();
    idle.handshakeDone();
  };
  // The job threads end with the server (its transport closed, whoever closed it): none outlives it.
  const onClose = server.server.onclose;
  server.server.onclose = () => {
    onClose?.();
    idle.close();
    closeToolDeps(deps);
  };
  return server;
}
