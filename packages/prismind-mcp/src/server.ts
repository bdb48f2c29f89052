import { createToolServer, ToolError, type AnyTool, type Logger, type PathPolicy } from '@mcp-workbench/core';
import { silentLogger } from '@mcp-workbench/core/engine';
import { loadConfig, type PrismindConfig } from './config/config.js';
import { checkConfined, type Confinement } from './config/confinement.js';
import { configuredLogger, type LogFlags } from './config/logging.js';
import type { Engine } from './engine/engine.js';
import type { Backend } from './store/backend.js';
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

/** Any failure to start serving, as the error every tool answers with. */
function asFailure(error: unknown): ToolError {
  return error instanceof ToolError
    ? error
    : new ToolError('BACKEND_UNAVAILABLE', `The store could not be opened: ${String(error)}`);
}

/**
 * One server: opens the store named by config.toml (a missing file means the local store in
 * $PRISMIND_HOME) and registers the spec's 17 tools, update_knowledge and the document resources. A broken config.toml or an
 * unusable store does not stop the server: every tool answers with that error and how to fix it. A store
 * that could not be reached (BACKEND_UNAVAILABLE: a database server that was down when this server
 * started) is opened again by the next call, at most once a call, so the server recovers without a
 * restart; other failures (a bad config) stay until the config is fixed and the server restarted.
 */
export async function createServer(options: PrismindServerOptions) {
  let logger = options.logger ?? silentLogger;
  let failure: ToolError | undefined;
  let config: PrismindConfig | undefined;
  try {
    config = loadConfig({ configFile: options.configFile, ...(options.env ? { env: options.env } : {}) });
  } catch (error) {
    // Reported below, with a store that cannot be opened.
    failure = asFailure(error);
  }
  // Not caught: a store outside the given roots is refused before anything of it is opened.
  if (config && options.confinement) checkConfined(config, options.confinement);
  if (config && options.logFlags) logger = configuredLogger(config, options.logFlags, options.logWrite);
  // The tools hold this object; its backend is set once the store opens (maybe only on a later call).
  const engine = {
    backend: undefined as unknown as Backend,
    config,
    logger,
    now: options.now ?? (() => new Date()),
    active: undefined,
    served: new Map(),
  } as Engine;
  let opened = false;
  let retry = false;
  let closed = false;
  let attempt: Promise<void> | undefined;
  const open = async () => {
    try {
      // No config: its failure (from loadConfig) is the answer.
      if (!config)
        throw failure ?? new ToolError('BACKEND_UNAVAILABLE', 'The configuration could not be read.');
      const confinement = options.confinement;
      const backend = await openBackend(config, logger, confinement && ((file) => confinement.permits(file)));
      if (closed) {
        await backend.close();
        return;
      }
      engine.backend = backend;
      opened = true;
      failure = undefined;
      logger.info(
        `Store: ${backend.kind} at ${backend.location}${config.config_found ? ` (config ${config.config_file})` : ''}`,
      );
    } catch (error) {
      failure = asFailure(error);
      retry = !!config && failure.code === 'BACKEND_UNAVAILABLE';
      logger.error(
        `prismind-mcp cannot serve: ${failure.message}${retry ? ' (the next call tries again)' : ''}`,
        failure.hint,
      );
    }
  };
  await open();
  /** The engine once the store is open; a call made before that opens it (once) or answers the failure. */
  const ready = async (): Promise<Engine> => {
    if (!opened && retry && !closed) {
      // Calls that come together share one attempt.
      attempt ??= open().finally(() => (attempt = undefined));
      await attempt;
    }
    if (!opened) throw failure!;
    return engine;
  };
  const all = allTools(engine, new SaveTriggers(engine, logger));
  // Without a store the tools keep their names and schemas, and each answers with the failure.
  const tools: AnyTool[] = opened
    ? all
    : all.map((tool) => ({
        ...tool,
        run: async (args: never, context: Parameters<AnyTool['run']>[1]) => {
          await ready();
          return tool.run(args, context);
        },
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
  registerResources(mcp, ready);
  const close = mcp.close.bind(mcp);
  mcp.close = async () => {
    closed = true;
    await close();
    await attempt;
    if (opened) await engine.backend.close();
    opened = false;
    failure ??= new ToolError('BACKEND_UNAVAILABLE', 'The server is shutting down.');
  };
  return mcp;
}
