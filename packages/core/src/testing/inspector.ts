import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface InspectorRun {
  /** The CLI's exit code (0: fine, 6: a portability error with --strict). */
  exitCode: number;
  /** The `result` of the JSON envelope on stdout (e.g. `{ tools }` for tools/list). */
  result: Record<string, unknown> | undefined;
  /** The Inspector's schema portability findings (tools/list), errors and warnings alike. */
  schemaFindings: unknown[];
  stdout: string;
  stderr: string;
}

export interface InspectorOptions {
  /** Where `@modelcontextprotocol/inspector` is resolved from (default: the current directory). */
  resolveFrom?: string;
  /** Extra Inspector CLI arguments, e.g. `['--tool-name', 'x', '--tool-args-json', '{}']`. */
  inspectorArgs?: string[];
  cwd?: string;
  timeoutMs?: number;
}

/** The launcher script of `@modelcontextprotocol/inspector` (a devDependency of the caller). */
export function inspectorLauncher(resolveFrom = process.cwd()): string {
  const require = createRequire(path.join(resolveFrom, 'package.json'));
  const root = path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
  const manifest = require('@modelcontextprotocol/inspector/package.json') as { bin: Record<string, string> };
  return path.join(root, manifest.bin['mcp-inspector'] ?? 'clients/launcher/build/index.js');
}

/**
 * Runs the official MCP Inspector's CLI (`mcp-inspector --cli --format json`, plus `--strict` for tools/list) against a server
 * started as `command args` over stdio, with the same Node that runs the test. Works offline.
 */
export function runInspectorCli(
  method: string,
  command: string,
  args: readonly string[],
  options: InspectorOptions = {},
): Promise<InspectorRun> {
  const cli = [
    inspectorLauncher(options.resolveFrom),
    '--cli',
    '--format',
    'json',
    ...(method === 'tools/list' ? ['--strict'] : []),
    '--method',
    method,
    ...(options.inspectorArgs ?? []),
    command,
    ...args,
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cli,
      {
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 << 20,
        // No catalog or client config is read from or written to the user's home.
        env: {
          ...process.env,
          MCP_CATALOG_PATH: path.join(os.tmpdir(), 'mcp-workbench-inspector', 'mcp.json'),
          MCP_CLIENT_CONFIG_PATH: path.join(os.tmpdir(), 'mcp-workbench-inspector', 'client.json'),
        },
      },
      (error, stdout, stderr) => {
        let envelope: { result?: Record<string, unknown>; schemaFindings?: unknown[] } = {};
        try {
          envelope = JSON.parse(stdout) as typeof envelope;
        } catch {
          // left empty: the caller sees stdout and stderr
        }
        const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
        resolve({
          exitCode: code,
          result: envelope.result,
          schemaFindings: envelope.schemaFindings ?? [],
          stdout,
          stderr,
        });
      },
    );
  });
}

/** The tools an Inspector tools/list run returned. */
export function inspectedTools(run: InspectorRun): Tool[] {
  return (run.result?.tools as Tool[] | undefined) ?? [];
}
