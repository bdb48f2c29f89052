import { appendFileSync } from 'node:fs';
import { inspect } from 'node:util';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, extra?: unknown): void;
  info(message: string, extra?: unknown): void;
  warn(message: string, extra?: unknown): void;
  error(message: string, extra?: unknown): void;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Append to this file as well as stderr. */
  file?: string;
  name?: string;
  /** Where lines go (default: process.stderr). Never stdout: stdout carries the MCP protocol. */
  write?: (line: string) => void;
}

function describe(extra: unknown): string {
  if (extra === undefined) return '';
  if (extra instanceof Error) return ` ${extra.stack ?? extra.message}`;
  try {
    return ` ${JSON.stringify(extra)}`;
  } catch {
    return ` ${inspect(extra, { depth: 4 })}`;
  }
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const prefix = options.name ? `[${options.name}] ` : '';
  const emit = (level: Exclude<LogLevel, 'silent'>, message: string, extra?: unknown) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase()} ${prefix}${message}${describe(extra)}\n`;
    write(line);
    if (options.file) {
      try {
        appendFileSync(options.file, line);
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

export const silentLogger: Logger = createLogger({ level: 'silent' });
