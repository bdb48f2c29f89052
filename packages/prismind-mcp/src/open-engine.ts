import type { Logger } from '@mcp-workbench/core/engine';
import { loadConfig, type ConfigSources } from './config/config.js';
import { openBackend } from './store/open-backend.js';
import type { Engine } from './engine/engine.js';

/** An engine without a server (the CLI, benchmarks): config, store, clock. Close its backend when done. */
export async function openEngine(sources: ConfigSources, logger: Logger): Promise<Engine> {
  const config = loadConfig(sources);
  const backend = await openBackend(config, logger);
  return { backend, config, logger, now: () => new Date(), active: undefined, served: new Map() };
}
