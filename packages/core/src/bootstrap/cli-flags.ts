import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from '../logger.js';

/** A server-specific flag, declared next to the shared ones. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  multiple?: boolean;
  /** Allowed values of a string flag. */
  choices?: readonly string[];
  default?: string | boolean;
  /** Shown in --help as the value's name, e.g. `<policy>`. */
  valueName?: string;
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

export interface CommonFlags {
  roots: string[];
  denyGlobs: string[];
  logLevel: LogLevel;
  logFile: string | undefined;
  /** `--structured-output` or `MCP_STRUCTURED_OUTPUT=1`: answers carry structuredContent too. */
  structuredOutput: boolean;
  help: boolean;
  version: boolean;
  /** Values of the server's own flags, by flag name. */
  extra: FlagValues;
}

export const SHARED_FLAGS: Record<string, FlagSpec> = {
  root: {
    type: 'string',
    multiple: true,
    valueName: '<dir>',
    description:
      "Directory the server's tools may reach: read, and write where a tool writes (repeatable; positional dirs work too; default: cwd).",
  },
  'deny-glob': {
    type: 'string',
    multiple: true,
    valueName: '<glob>',
    description:
      'Path refused even inside a root, .gitignore style: ".env", "*.pem", "secrets/" (repeatable; "!glob" re-allows).',
  },
  'log-level': {
    type: 'string',
    choices: LOG_LEVELS,
    default: 'info',
    valueName: '<level>',
    description: `Log verbosity on stderr: ${LOG_LEVELS.join(' | ')}.`,
  },
  'log-file': { type: 'string', valueName: '<file>', description: 'Also append log lines to this file.' },
  'structured-output': {
    type: 'boolean',
    description:
      'Also send structuredContent and declare outputSchema (for programmatic clients; env MCP_STRUCTURED_OUTPUT=1). ' +
      'Default: one text block only, which is what most clients show the model.',
  },
  help: { type: 'boolean', description: 'Show this help and exit.' },
  version: { type: 'boolean', description: 'Print the version and exit.' },
};

export class UsageError extends Error {
  override name = 'UsageError';
}

/** `MCP_STRUCTURED_OUTPUT`: 1/true/yes/on turn it on, 0/false/no/off/empty leave it off. */
function structuredOutputFromEnv(value: string | undefined): boolean {
  const normalized = (value ?? '').trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(normalized)) return false;
  throw new UsageError(`MCP_STRUCTURED_OUTPUT must be 1 or 0; got "${value}".`);
}

/** Parses shared + server flags (and MCP_STRUCTURED_OUTPUT). Unknown flags and bad choices are UsageErrors. */
export function parseCommonFlags(
  argv: readonly string[],
  serverFlags: Record<string, FlagSpec> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): CommonFlags {
  const specs = { ...SHARED_FLAGS, ...serverFlags };
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) };
  }
  options.help = { type: 'boolean', short: 'h' };
  options.version = { type: 'boolean', short: 'v' };

  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as FlagValues;
  for (const [name, spec] of Object.entries(specs)) {
    const value = values[name];
    if (value === undefined && spec.default !== undefined) values[name] = spec.default;
    if (spec.choices && typeof values[name] === 'string' && !spec.choices.includes(values[name])) {
      throw new UsageError(`--${name} must be one of ${spec.choices.join(', ')}; got "${values[name]}".`);
    }
  }
  const extra: FlagValues = {};
  for (const name of Object.keys(serverFlags)) extra[name] = values[name];
  return {
    roots: [...((values.root as string[] | undefined) ?? []), ...parsed.positionals],
    denyGlobs: (values['deny-glob'] as string[] | undefined) ?? [],
    logLevel: values['log-level'] as LogLevel,
    logFile: values['log-file'] as string | undefined,
    structuredOutput:
      values['structured-output'] === true || structuredOutputFromEnv(env.MCP_STRUCTURED_OUTPUT),
    help: values.help === true,
    version: values.version === true,
    extra,
  };
}

export function renderHelp(
  name: string,
  description: string,
  serverFlags: Record<string, FlagSpec> = {},
): string {
  const rows = Object.entries({ ...serverFlags, ...SHARED_FLAGS }).map(([flag, spec]) => {
    const left = `  --${flag}${spec.type === 'string' ? ` ${spec.valueName ?? '<value>'}` : ''}`;
    const choices = spec.choices && !spec.description.includes('|') ? ` (${spec.choices.join(' | ')})` : '';
    const fallback =
      spec.default !== undefined && spec.type === 'string' ? ` [default: ${String(spec.default)}]` : '';
    return `${left.padEnd(30)} ${spec.description}${choices}${fallback}`;
  });
  return [
    `${name} — ${description}`,
    '',
    `Usage: ${name} [options] [root-dir ...]`,
    '',
    'Speaks MCP over stdio (stdout is the protocol; logs go to stderr).',
    '',
    'Options:',
    ...rows,
    '',
  ].join('\n');
}
