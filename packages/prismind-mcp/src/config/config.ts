import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import envPaths from 'env-paths';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { ToolError } from '@mcp-workbench/core/engine';

/**
 * `config.toml`: the spec's sections (`[google]`, `[services]`, `[log]`, `[session]`) plus `[storage]`
 * (which backend) and `[search]` (an optional embeddings endpoint) and `[limits]`. Every key has a
 * default, so a missing file means a working local store. Unknown keys are refused: a typo must not be
 * silently ignored.
 */
const ConfigSchema = z
  .object({
    google: z
      .object({
        credentials_path: z.string().default('credentials.json'),
        token_path: z.string().default('token.json'),
        // The narrowest that work: files Prismind makes (drive.file) and the project's spreadsheet.
        scopes: z
          .array(z.string().min(1))
          .min(1)
          .default([
            'https://www.googleapis.com/auth/drive.file',
            'https://www.googleapis.com/auth/spreadsheets',
          ]),
        // A proxy or a test double in front of the Google APIs (PRISMIND_GOOGLE_API_URL overrides it).
        api_url: z.string().default(''),
        max_retry_seconds: z.number().min(0).max(600).default(30),
        retry_initial_delay_ms: z.number().int().min(1).max(60_000).default(500),
        request_timeout_ms: z.number().int().min(1000).max(600_000).default(30_000),
      })
      .strict()
      .prefault({}),
    services: z
      .object({
        memory_server_url: z.string().default('http://localhost:8080'),
        rag_server_url: z.string().default('http://localhost:8000'),
      })
      .strict()
      .prefault({}),
    log: z
      .object({
        level: z.enum(['DEBUG', 'INFO', 'WARNING', 'ERROR']).default('INFO'),
        file: z.string().default(''),
        format: z.enum(['text', 'json']).default('text'),
      })
      .strict()
      .prefault({}),
    session: z
      .object({
        auto_save_interval: z.number().int().min(0).max(100_000).default(20),
        // Empty: PRISMIND_USER, else the OS account (see identityOf).
        default_user: z.string().max(200).default(''),
        context_budget_tokens: z.number().int().min(0).default(150_000),
      })
      .strict()
      .prefault({}),
    storage: z
      .object({
        backend: z.enum(['local', 'google', 'postgres']).default('local'),
        url: z.string().default(''),
        /** PostgreSQL schema of the tables (a URL's `?schema=` wins), so several stores can share a database. */
        schema: z
          .string()
          .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _ (a PostgreSQL identifier)')
          .default('prismind'),
        /** Connections each server process keeps to PostgreSQL. */
        pool_size: z.number().int().min(1).max(100).default(5),
        /** Use pgvector (HNSW over n-gram vectors) when the extension is installed; false = pg_trgm only. */
        pgvector: z.boolean().default(true),
        busy_timeout_ms: z.number().int().min(0).max(600_000).default(5000),
      })
      .strict()
      .prefault({}),
    search: z
      .object({
        // Only http(s): the endpoint gets the texts and, with a key, the key.
        embeddings_url: z
          .string()
          .refine((url) => url === '' || /^https?:\/\/[^/]/i.test(url), 'must be an http:// or https:// URL')
          .default(''),
        embeddings_model: z.string().default(''),
        // The variable must be named for the purpose: a store's config must not be able to send another
        // secret of the environment (a database password, a cloud token) to the endpoint.
        embeddings_api_key_env: z
          .string()
          .regex(
            /^$|^[A-Z][A-Z0-9_]*_API_KEY$/,
            'must name an environment variable ending in _API_KEY (e.g. PRISMIND_EMBEDDINGS_API_KEY, OPENAI_API_KEY)',
          )
          .default(''),
        embeddings_timeout_ms: z.number().int().min(100).max(120_000).default(5000),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        max_document_bytes: z
          .number()
          .int()
          .min(1024)
          .max(64 * 1024 * 1024)
          .default(1024 * 1024),
        max_knowledge_bytes: z
          .number()
          .int()
          .min(256)
          .max(16 * 1024 * 1024)
          .default(64 * 1024),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type FileConfig = z.output<typeof ConfigSchema>;

export interface PrismindConfig extends FileConfig {
  /** The store folder ($PRISMIND_HOME). */
  home: string;
  /** The config file that was read, or would be read if it existed. */
  config_file: string;
  config_found: boolean;
  /** GOOGLE_APPLICATION_CREDENTIALS of the environment (Application Default Credentials), if set. */
  google_adc_file: string;
  /** Where `session.default_user` came from (shown by start_session). */
  user_source: UserSource;
}

/** `config`: session.default_user; `env`: PRISMIND_USER; `os`: the OS account; `fallback`: none of them. */
export type UserSource = 'config' | 'env' | 'os' | 'fallback';

/** The user sessions were saved under before identities (and still, where nothing else is known). */
export const LEGACY_USER = 'default';

/**
 * Who this server works for when a tool names no user: `session.default_user`, else PRISMIND_USER, else
 * the OS account — something that differs between the people of a team, so two people on one shared
 * store never share a session state.
 */
export function identityOf(
  configured: string,
  env: NodeJS.ProcessEnv,
  account: () => string = () => os.userInfo().username,
): { user: string; source: UserSource } {
  if (configured.trim()) return { user: configured.trim(), source: 'config' };
  const fromEnv = env.PRISMIND_USER?.trim();
  if (fromEnv) return { user: fromEnv.slice(0, 200), source: 'env' };
  try {
    const name = account().trim();
    if (name) return { user: name.slice(0, 200), source: 'os' };
  } catch {
    // no passwd entry (a container's anonymous uid): fall through
  }
  return { user: LEGACY_USER, source: 'fallback' };
}

export interface ConfigSources {
  /** `--config FILE` */
  configFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** The OS's per-user data folder: ~/.local/share/prismind, ~/Library/Application Support/prismind, %LOCALAPPDATA%\prismind\Data. */
export function defaultHome(): string {
  return envPaths('prismind', { suffix: '' }).data;
}

function configError(file: string, message: string, key?: string): ToolError {
  return new ToolError('CONFIG_INVALID', `${file}: ${message}`, {
    hint: key
      ? `Fix or remove "${key}" in ${file} (see the README's config keys), then restart the server.`
      : `Fix the TOML syntax of ${file}, then restart the server.`,
    details: { file, ...(key ? { key } : {}) },
  });
}

/** The real path of a folder that may not exist yet (its nearest existing parent's, with the rest). */
function realFolder(folder: string): string {
  try {
    // The spelling on disk (drive letter and case on Windows and macOS), as the store's files are checked.
    return realpathSync.native(folder);
  } catch {
    const parent = path.dirname(folder);
    return parent === folder ? folder : path.join(realFolder(parent), path.basename(folder));
  }
}

/**
 * Refuses a store folder that is the home folder or the file system's root, as core refuses such a
 * root: the store makes its folder private (0700) and writes Projects/ and its database into it.
 */
function checkHome(home: string): void {
  const real = realFolder(home);
  const userHome = os.homedir() ? realFolder(os.homedir()) : '';
  const what =
    real === path.parse(real).root ? 'the filesystem root' : real === userHome ? 'your home folder' : '';
  if (!what) return;
  throw new ToolError(
    'CONFIG_INVALID',
    `PRISMIND_HOME is ${real} (${what}); the store needs a folder of its own.`,
    {
      hint: `Unset PRISMIND_HOME (the default is ${defaultHome()}), or set it to a new folder such as ${path.join(real, '.prismind')}.`,
      details: { key: 'PRISMIND_HOME', home: real },
    },
  );
}

/**
 * Whether a path from config.toml stays inside the config file's folder (relative, no `..` out). The
 * files the server writes (its log, a rotated Google token) are named by the config; a config copied
 * into a store must not make the server write anywhere else. The command line's --log-file may.
 */
function insideFolder(folder: string, value: string): boolean {
  if (path.isAbsolute(value) || path.win32.isAbsolute(value)) return false;
  const resolved = path.resolve(folder, value);
  return resolved.startsWith(path.resolve(folder) + path.sep);
}

/** Reads config.toml (missing → defaults), validates it, and applies the environment overrides. */
export function loadConfig(sources: ConfigSources = {}): PrismindConfig {
  const env = sources.env ?? process.env;
  const home = path.resolve(env.PRISMIND_HOME?.trim() || defaultHome());
  checkHome(home);
  const file = path.resolve(sources.configFile ?? path.join(home, 'config.toml'));
  let raw: unknown = {};
  let found = false;
  try {
    raw = parse(readFileSync(file, 'utf8'));
    found = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && sources.configFile === undefined) {
      raw = {};
    } else if (error instanceof TomlError) {
      throw configError(
        file,
        `invalid TOML at line ${error.line}, column ${error.column}: ${error.message.split('\n')[0]}`,
      );
    } else {
      throw configError(file, `cannot be read (${code ?? String(error)})`);
    }
  }
  const checked = ConfigSchema.safeParse(raw);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const key = [...issue.path, ...keys.slice(0, 1)].map(String).join('.');
    const what = issue.code === 'unrecognized_keys' ? `unknown key "${key}"` : `"${key}": ${issue.message}`;
    throw configError(file, what, key);
  }
  for (const [key, value] of [
    ['log.file', checked.data.log.file],
    ['google.token_path', checked.data.google.token_path],
  ] as const) {
    if (value && !insideFolder(path.dirname(file), value)) {
      throw configError(
        file,
        `"${key}": ${value} leaves the config file's folder; files the server writes stay beside its config.`,
        key,
      );
    }
  }
  const identity = identityOf(checked.data.session.default_user, env);
  const config: PrismindConfig = {
    ...checked.data,
    session: { ...checked.data.session, default_user: identity.user },
    home,
    config_file: file,
    config_found: found,
    google_adc_file: env.GOOGLE_APPLICATION_CREDENTIALS?.trim() ?? '',
    user_source: identity.source,
  };
  const backend = env.PRISMIND_BACKEND?.trim();
  if (backend) {
    if (backend !== 'local' && backend !== 'google' && backend !== 'postgres') {
      throw new ToolError('CONFIG_INVALID', `PRISMIND_BACKEND="${backend}" is not a backend.`, {
        hint: 'Set PRISMIND_BACKEND to local, google or postgres (or unset it).',
        details: { key: 'PRISMIND_BACKEND' },
      });
    }
    config.storage = { ...config.storage, backend };
  }
  const url = env.PRISMIND_DATABASE_URL?.trim();
  if (url) config.storage = { ...config.storage, url };
  const googleUrl = env.PRISMIND_GOOGLE_API_URL?.trim();
  if (googleUrl) config.google = { ...config.google, api_url: googleUrl };
  return config;
}
