import { ToolError, type Logger } from '@mcp-workbench/core/engine';
import type { PrismindConfig } from '../config/config.js';
import { LocalBackend } from './local/local-backend.js';
import { Embedder } from '../search/embedder.js';
import type { Backend } from './backend.js';
import { loadBackend } from './optional-packages.js';

/** The optional embeddings endpoint of `[search]`, or undefined when none is configured. */
export function embedderOf(config: PrismindConfig, logger: Logger): Embedder | undefined {
  const { embeddings_url: url, embeddings_model: model, embeddings_api_key_env: keyEnv } = config.search;
  if (!url) return undefined;
  if (!model) {
    throw new ToolError(
      'CONFIG_INVALID',
      `${config.config_file}: search.embeddings_url is set but search.embeddings_model is not.`,
      {
        hint: 'Set search.embeddings_model (e.g. "text-embedding-3-small", "nomic-embed-text"), or remove embeddings_url.',
        details: { key: 'search.embeddings_model' },
      },
    );
  }
  return new Embedder({
    url,
    model,
    apiKey: keyEnv ? process.env[keyEnv] : undefined,
    timeoutMs: config.search.embeddings_timeout_ms,
    logger,
  });
}

/** Opens the backend chosen by `storage.backend` (or PRISMIND_BACKEND). */
export async function openBackend(
  config: PrismindConfig,
  logger: Logger,
  permits?: (file: string) => boolean,
): Promise<Backend> {
  const backend = config.storage.backend;
  if (backend === 'local') {
    return LocalBackend.open({
      permits,
      home: config.home,
      busyTimeoutMs: config.storage.busy_timeout_ms,
      maxDocumentBytes: config.limits.max_document_bytes,
      embedder: embedderOf(config, logger),
      logger,
    });
  }
  if (backend === 'postgres') {
    // Loaded on demand: a local store never loads the PostgreSQL client (nor needs it installed).
    const { PostgresBackend } = await loadBackend('postgres', () => import('./postgres/postgres-backend.js'));
    return PostgresBackend.open({
      url: config.storage.url,
      schema: config.storage.schema,
      poolSize: config.storage.pool_size,
      pgvector: config.storage.pgvector,
      embedder: embedderOf(config, logger),
      logger,
    });
  }
  if (backend === 'google') {
    // Loaded on demand too: the Google clients are large and a local store never needs them.
    const { GoogleBackend } = await loadBackend('google', () => import('./google/google-backend.js'));
    const { googleSettings } = await import('./google/settings.js');
    return GoogleBackend.open({
      home: config.home,
      busyTimeoutMs: config.storage.busy_timeout_ms,
      settings: googleSettings(config),
      embedder: embedderOf(config, logger),
      logger,
    });
  }
  throw new ToolError(
    'BACKEND_UNAVAILABLE',
    `storage.backend = "${String(backend)}" is not available in this version of prismind-mcp.`,
    {
      hint: 'Use backend = "local" (the default), "google" or "postgres" in config.toml, or unset PRISMIND_BACKEND.',
      details: { key: 'storage.backend', backend },
    },
  );
}
