/** The parsed command line of `code-reader`. */
export interface CliOptions {
  roots: string[];
  /** Paths refused even inside a root (.gitignore style), as the server's --deny-glob. */
  denyGlobs: string[];
  outputFormat: 'toon' | 'json';
  partialRead: boolean;
  metricsOnly: boolean;
  file?: string;
  startLine?: number;
  endLine?: number;
  startColumn?: number;
  endColumn?: number;
  format?: 'text' | 'json' | 'raw';
  requestsJson?: string;
  requestsFile?: string;
  filePaths: string[];
  filesFrom?: string;
  allowTruncate: boolean;
  failFast: boolean;
  includeDetails: boolean;
  /** The next_cursor of the previous page of the same command (every command pages its answer). */
  cursor?: string;
  maxAnswerTokens?: number;
  help: boolean;
  version: boolean;
}

export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

const VALUE_FLAGS = new Set([
  '--root',
  '--deny-glob',
  '--output-format',
  '--start-line',
  '--end-line',
  '--start-column',
  '--end-column',
  '--format',
  '--partial-read-requests-json',
  '--partial-read-requests-file',
  '--files-from',
  '--cursor',
  '--max-answer-tokens',
]);

const BOOLEAN_FLAGS = new Set([
  '--partial-read',
  '--metrics-only',
  '--allow-truncate',
  '--fail-fast',
  '--include-details',
  '--help',
  '-h',
  '--version',
  '-v',
]);

function integer(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new CliUsageError(`${flag} needs a positive integer; got "${value}".`);
  return number;
}

/**
 * Parses argv. `--file-paths a b c` takes every following argument up to the next flag (as the spec's
 * examples write it); other flags take one value (`--flag value` or `--flag=value`).
 */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = {
    roots: [],
    denyGlobs: [],
    outputFormat: 'toon',
    partialRead: false,
    metricsOnly: false,
    filePaths: [],
    allowTruncate: false,
    failFast: false,
    includeDetails: false,
    help: false,
    version: false,
  };
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    // "--" ends the options: every later argument is a file, even one starting with "-".
    if (raw === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    if (flag === '--file-paths') {
      if (inline !== undefined) options.filePaths.push(inline);
      while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('--'))
        options.filePaths.push(argv[++i] as string);
      continue;
    }
    if (BOOLEAN_FLAGS.has(flag)) {
      if (flag === '--partial-read') options.partialRead = true;
      else if (flag === '--metrics-only') options.metricsOnly = true;
      else if (flag === '--allow-truncate') options.allowTruncate = true;
      else if (flag === '--fail-fast') options.failFast = true;
      else if (flag === '--include-details') options.includeDetails = true;
      else if (flag === '--help' || flag === '-h') options.help = true;
      else options.version = true;
      continue;
    }
    if (VALUE_FLAGS.has(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new CliUsageError(`${flag} needs a value.`);
      switch (flag) {
        case '--root':
          options.roots.push(value);
          break;
        case '--deny-glob':
          options.denyGlobs.push(value);
          break;
        case '--output-format':
          if (value !== 'toon' && value !== 'json')
            throw new CliUsageError(`--output-format must be toon or json; got "${value}".`);
          options.outputFormat = value;
          break;
        case '--start-line':
          options.startLine = integer(flag, value);
          break;
        case '--end-line':
          options.endLine = integer(flag, value);
          break;
        case '--start-column':
          options.startColumn = integer(flag, value);
          break;
        case '--end-column':
          options.endColumn = integer(flag, value);
          break;
        case '--format':
          if (value !== 'text' && value !== 'json' && value !== 'raw')
            throw new CliUsageError(`--format must be text, json or raw; got "${value}".`);
          options.format = value;
          break;
        case '--partial-read-requests-json':
          options.requestsJson = value;
          break;
        case '--partial-read-requests-file':
          options.requestsFile = value;
          break;
        case '--cursor':
          options.cursor = value;
          break;
        case '--max-answer-tokens':
          options.maxAnswerTokens = integer(flag, value);
          break;
        default:
          options.filesFrom = value;
      }
      continue;
    }
    if (raw.startsWith('-') && raw !== '-') throw new CliUsageError(`Unknown option ${raw}.`);
    positionals.push(raw);
  }
  if (positionals.length > 1) throw new CliUsageError(`Give one file; got ${positionals.join(', ')}.`);
  if (positionals[0] !== undefined) options.file = positionals[0];
  return options;
}

export const CLI_HELP = `code-reader — read large codebases token-efficiently (the CLI of code-reader-mcp)

Usage:
  code-reader FILE [--include-details]                      metrics and structure of one file
  code-reader FILE --partial-read --start-line N [--end-line M] [--start-column C] [--end-column D] [--format text|json|raw]
  code-reader --partial-read --partial-read-requests-json '<json>' [--allow-truncate] [--fail-fast]
  code-reader --partial-read --partial-read-requests-file requests.json
  code-reader --metrics-only --file-paths a.py b.py ...
  code-reader --metrics-only --files-from list.txt          (one path per line)

Options:
  --output-format toon|json   answer format (default toon: the tool's text rows or TOON)
  --root DIR                  directory the CLI may read (repeatable; default: the current directory)
  --deny-glob GLOB            path refused even inside a root, .gitignore style: ".env", "*.pem",
                              "secrets/" (repeatable; "!glob" re-allows), as the server's flag
  --max-answer-tokens N       page size in o200k tokens (default 8000, max 20000), as the tools' option
  --cursor TOKEN              the next page of a partial answer: the same command again with the
                              "next_cursor" it printed (stderr says when an answer is partial)
  -h, --help                  show this help
  -v, --version               print the version
  --                          end of options (a FILE starting with "-" goes after it)

The requests JSON is the extract_code_section "requests" array (or an object {"requests": [...]}).
Errors go to stderr as {"error": {code, message, hint}} with exit code 1 (2 for usage errors).
`;
