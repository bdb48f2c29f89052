import { createToolServer, ToolError, type AnyTool, type Logger, type PathPolicy } from '@mcp-workbench/core';
import { silentLogger } from '@mcp-workbench/core/engine';
import { loadConfig, type PrismindConfig } from './config/config.js';
import { checkConfined, type Confinement } from './config/confinement.js';
import { configuredLogger, type LogFlags } from './config/logging.js';
import type { Engine } from './engine/engine.js';
import { SaveTriggers } from './engine/save-triggers.js';
import { registerResources } from './resources.js';
import { openBackend } from './store/open-backend.js';
import { allTools } from './tools/index.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

export interface PrismindServerOptions {
  paths: PathPolicy;
  logger?: Logger;
  /** `--config FILE` (default: $PRISMIND_HOME/config.toml). */
  configFile?: string | undefined;
  /** Environment for PRISMIND_HOME / PRISMIND_BACKEND / PRISMIND_DATABASE_URL (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The clock (tests move it). */
  now?: () => Date;
  /**
   * The bin passes the log flags given on its command line: the server then logs as `[log]` of
   * config.toml says, except where a flag was given (flags win). Without it, `logger` is used as is.
   */
  logFlags?: LogFlags;
  /** Where log lines go when the server builds its own logger (default: stderr). */
  logWrite?: (line: string) => void;
  /**
   * `--root` / `--deny-glob` of the command line: the store must lie inside and its files are checked
   * (see config/confinement.ts). A store outside makes createServer throw: the server does not start.
   */
  confinement?: Confinement | undefined;
}

const INSTRUCTIONS =
  "Prismind keeps a project's knowledge across sessions. Start every conversation with start_session (it " +
  'returns where the last session ended, blockers and documents to read), record progress with update_progress, ' +
  'write design/procedure documents with create_document, store insights with add_knowledge (after asking the ' +
  'user), look things up with get_document / search_catalog / search_knowledge, and finish with end_session ' +
  '(summary + next_action). Answers are JSON; messages are in Japanese.';

/**
 * One server: opens the store named by config.toml (a missing file means the local store in
 * $PRISMIND_HOME) and registers the spec's 17 tools, update_knowledge and the document resources. A broken config.toml or an
 * unusable store does not stop the server: every tool answers with that error and how to fix it.
 */
export async function createServer(options: PrismindServerOptions) {
  let logger = options.logger ?? silentLogger;
  let engine: Engine | undefined;
  let failure: ToolError | undefined;
  let config: PrismindConfig | undefined;
  try {
    config = loadConfig({ configFile: options.configFile, ...(options.env ? { env: options.env } : {}) });
  } catch (error) {
    // Reported below, with a store that cannot be opened.
    failure =
      error instanceof ToolError
        ? error
        : new ToolError('BACKEND_UNAVAILABLE', `The store could not be opened: ${String(error)}`);
  }
  // Not caught: a store outside the given roots is refused before anything of it is opened.
  if (config && options.confinement) checkConfined(config, options.confinement);
  try {
    if (failure) throw failure;
    if (!config) throw new ToolError('BACKEND_UNAVAILABLE', 'The configuration could not be read.');
    if (options.logFlags) logger = configuredLogger(config, options.logFlags, options.logWrite);
    const confinement = options.confinement;
    const backend = await openBackend(config, logger, confinement && ((file) => confinement.permits(file)));
    engine = { backend, config, logger, now: options.now ?? (() => new Date()), active: undefined };
    logger.info(
      `Store: ${backend.kind} at ${backend.location}${config.config_found ? ` (config ${config.config_file})` : ''}`,
    );
  } catch (error) {
    failure =
      error instanceof ToolError
        ? error
        : new ToolError('BACKEND_UNAVAILABLE', `The store could not be opened: ${String(error)}`);
    logger.error(`prismind-mcp cannot serve: ${failure.message}`, failure.hint);
  }
  // Without a store the tools keep their names and schemas, and each answers with the failure.
  const unused = undefined as unknown as Engine;
  const tools: AnyTool[] = engine
    ? allTools(engine, new SaveTriggers(engine, logger))
    : allTools(unused, new SaveTriggers(unused, logger)).map((tool) => ({
        ...tool,
        run: () => Promise.reject(failure!),
      }));
  const mcp = createToolServer(
    {
      name: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      title: 'Prismind — project knowledge across sessions',
      instructions: INSTRUCTIONS,
    },
    tools,
    { paths: options.paths, logger },
  );
  registerResources(mcp, async () => {
    if (!engine) throw failure!;
    return engine;
  });
  const close = mcp.close.bind(mcp);
  mcp.close = async () => {
    await close();
    await engine?.backend.close();
    engine = undefined;
    failure ??= new ToolError('BACKEND_UNAVAILABLE', 'The server is shutting down.');
  };
  return mcp;
}
