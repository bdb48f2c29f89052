import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from '@mcp-workbench/core/engine';
import type { PrismindConfig } from './config.js';

/** `--log-level` / `--log-file` as given on the command line (undefined: not given). */
export interface LogFlags {
  level?: LogLevel | undefined;
  file?: string | undefined;
}

const FROM_CONFIG: Record<PrismindConfig['log']['level'], LogLevel> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
};

/** The `--log-level` / `--log-file` values present in argv (either `--flag value` or `--flag=value`). */
export function logFlagsOf(argv: readonly string[]): LogFlags {
  const value = (flag: string): string | undefined => {
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!;
      if (arg === `--${flag}`) return argv[i + 1];
      if (arg.startsWith(`--${flag}=`)) return arg.slice(flag.length + 3);
    }
    return undefined;
  };
  const level = value('log-level');
  return {
    level: (LOG_LEVELS as readonly string[]).includes(level ?? '') ? (level as LogLevel) : undefined,
    file: value('log-file'),
  };
}

/**
 * The server's logger from `[log]` of config.toml — level (DEBUG/INFO/WARNING/ERROR), file (relative to
 * the config file's folder) and format (text, or one JSON object per line) — with the command line's
 * `--log-level` / `--log-file` taking precedence. Lines go to stderr (stdout is the protocol) and to the
 * file when there is one.
 */
export function configuredLogger(
  config: PrismindConfig,
  flags: LogFlags,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const level = flags.level ?? FROM_CONFIG[config.log.level];
  const file =
    flags.file ??
    (config.log.file ? path.resolve(path.dirname(config.config_file), config.log.file) : undefined);
  const name = 'prismind-mcp';
  if (file) {
    try {
      // `file = "logs/prismind.log"` should just work: make its folder.
      mkdirSync(path.dirname(file), { recursive: true });
    } catch {
      // Lines still go to stderr; the file is retried on every line.
    }
  }
  if (config.log.format === 'text') {
    return createLogger({ level, name, write, ...(file ? { file } : {}) });
  }
  const threshold = LOG_LEVELS.indexOf(level);
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string, extra?: unknown) => {
    if (LOG_LEVELS.indexOf(at) < threshold) return;
    const detail =
      extra === undefined ? {} : { extra: extra instanceof Error ? (extra.stack ?? extra.message) : extra };
    let line: string;
    try {
      line = `${JSON.stringify({ time: new Date().toISOString(), level: at, name, message, ...detail })}\n`;
    } catch {
      line = `${JSON.stringify({ time: new Date().toISOString(), level: at, name, message })}\n`;
    }
    write(line);
    if (file) {
      try {
        appendFileSync(file, line);
      } catch {
        // A broken log file must never take the server down; stderr still has the line.
      }
    }
  };
  return {
    debug: (m, e) => emit('debug', m, e),
    info: (m, e) => emit('info', m, e),
    warn: (m, e) => emit('warn', m, e),
    error: (m, e) => emit('error', m, e),
  };
}
