import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  PathPolicy,
  ToolError,
  ToolReply,
  formatOutput,
  parseToolArguments,
  silentLogger,
  toToolError,
  type AnyTool,
  type ToolContext,
} from '@mcp-workbench/core';
import { createToolDeps } from '../tools/deps.js';
import { allTools } from '../tools/index.js';
import { CliUsageError, type CliOptions } from './args.js';

/** A tool call as the CLI makes it: the same validation, handler and formatting as over MCP. */
export async function invokeTool(
  tool: AnyTool,
  args: Record<string, unknown>,
  paths: PathPolicy,
  format: 'toon' | 'json',
): Promise<string> {
  return (await callCliTool(tool, args, paths, format)).text;
}

/** The answer's text and its structured value (to tell a batch where nothing succeeded). */
async function callCliTool(
  tool: AnyTool,
  args: Record<string, unknown>,
  paths: PathPolicy,
  format: 'toon' | 'json',
): Promise<{ text: string; value: unknown }> {
  const schema = z.object(tool.input).strict();
  const parsed = parseToolArguments<never>(tool.name, schema, args);
  const context: ToolContext = {
    paths,
    logger: silentLogger,
    signal: new AbortController().signal,
    progress: async () => {},
  };
  const result = await tool.run(parsed, context);
  const custom = result instanceof ToolReply ? (result as ToolReply<unknown>) : undefined;
  const value = custom ? custom.structured : result;
  if (custom?.text !== undefined) return { text: custom.text, value };
  return { text: formatOutput(z.object(tool.output).parse(value), format, tool.textOptions), value };
}

/**
 * A batch that produced nothing but errors (every file of --metrics-only failed, or every section of
 * a batch extraction): the answer lists them, and the exit code says the command failed.
 */
function nothingSucceeded(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const answer = value as { success?: boolean; count_files?: number; errors?: unknown[]; files?: unknown[] };
  if (answer.success === false) return true;
  return (answer.errors?.length ?? 0) > 0 && answer.count_files === 0;
}

function nextCursorOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const next = (value as { next_cursor?: unknown }).next_cursor;
  return typeof next === 'string' ? next : undefined;
}

async function readRequests(options: CliOptions): Promise<unknown> {
  const text = options.requestsJson ?? (await readFile(options.requestsFile as string, 'utf8'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(`The partial-read requests are not valid JSON: ${(error as Error).message}`);
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'requests' in parsed) {
    return parsed.requests;
  }
  return parsed;
}

async function readList(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Which tool the command line asks for, with its arguments (paging options added for every one). */
export async function toolCallOf(
  options: CliOptions,
): Promise<{ name: string; args: Record<string, unknown> }> {
  const call = await commandOf(options);
  return {
    name: call.name,
    args: {
      ...call.args,
      ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
      ...(options.maxAnswerTokens !== undefined ? { max_answer_tokens: options.maxAnswerTokens } : {}),
    },
  };
}

async function commandOf(options: CliOptions): Promise<{ name: string; args: Record<string, unknown> }> {
  const output_format = options.outputFormat;
  if (options.partialRead) {
    if (options.requestsJson !== undefined || options.requestsFile !== undefined) {
      if (options.requestsJson !== undefined && options.requestsFile !== undefined) {
        throw new CliUsageError(
          'Use --partial-read-requests-json or --partial-read-requests-file, not both.',
        );
      }
      return {
        name: 'extract_code_section',
        args: {
          requests: await readRequests(options),
          output_format,
          ...(options.format ? { format: options.format } : {}),
          ...(options.allowTruncate ? { allow_truncate: true } : {}),
          ...(options.failFast ? { fail_fast: true } : {}),
          ...(options.file !== undefined ? { file_path: options.file } : {}),
        },
      };
    }
    if (options.file === undefined || options.startLine === undefined) {
      throw new CliUsageError(
        '--partial-read needs FILE and --start-line (or --partial-read-requests-json / -file).',
      );
    }
    return {
      name: 'extract_code_section',
      args: {
        file_path: options.file,
        start_line: options.startLine,
        ...(options.endLine !== undefined ? { end_line: options.endLine } : {}),
        ...(options.startColumn !== undefined ? { start_column: options.startColumn } : {}),
        ...(options.endColumn !== undefined ? { end_column: options.endColumn } : {}),
        ...(options.format ? { format: options.format } : {}),
        ...(options.allowTruncate ? { allow_truncate: true } : {}),
        output_format,
      },
    };
  }
  if (options.metricsOnly) {
    const filePaths = [...options.filePaths, ...(options.filesFrom ? await readList(options.filesFrom) : [])];
    if (filePaths.length > 0) {
      return { name: 'check_code_scale', args: { file_paths: filePaths, metrics_only: true, output_format } };
    }
    if (options.file === undefined)
      throw new CliUsageError('--metrics-only needs FILE, --file-paths or --files-from.');
    return { name: 'check_code_scale', args: { file_path: options.file, metrics_only: true, output_format } };
  }
  if (options.file === undefined)
    throw new CliUsageError('Give a FILE, or --partial-read / --metrics-only (see --help).');
  return {
    name: 'check_code_scale',
    args: {
      file_path: options.file,
      output_format,
      ...(options.includeDetails ? { include_details: true } : {}),
    },
  };
}

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
}

/** Runs the CLI; returns the exit code (0 ok, 1 tool error or a batch of nothing but errors, 2 usage error). */
export async function runCli(options: CliOptions, io: CliIo): Promise<number> {
  try {
    const { name, args } = await toolCallOf(options);
    const paths = await PathPolicy.create({
      roots: options.roots.length > 0 ? options.roots : [io.cwd],
      denyGlobs: options.denyGlobs,
    });
    const tool = allTools(createToolDeps()).find((candidate) => candidate.name === name);
    if (!tool) throw new ToolError('INTERNAL', `Tool ${name} is missing.`);
    const { text, value } = await callCliTool(tool, args, paths, options.outputFormat);
    io.stdout(`${text}\n`);
    // The answer's own note is on stdout, easy to miss in a pipe (audit: no way to continue a page).
    const next = nextCursorOf(value);
    if (next !== undefined)
      io.stderr(
        `code-reader: the output is partial; for the rest run the same command with --cursor ${next}\n`,
      );
    return nothingSucceeded(value) ? 1 : 0;
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr(`code-reader: ${error.message}\nRun code-reader --help for usage.\n`);
      return 2;
    }
    io.stderr(`${JSON.stringify({ error: toToolError(error).toJSON() })}\n`);
    return 1;
  }
}
