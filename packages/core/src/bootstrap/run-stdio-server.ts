import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Readable, Writable } from 'node:stream';
import { isToolError } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import { sweepStaleTemps } from '../fs/temp-journal.js';
import { PathPolicy } from '../paths/path-policy.js';
import { parseCommonFlags, renderHelp, UsageError, type FlagSpec, type FlagValues } from './cli-flags.js';
import { GuardedStdioTransport } from './guarded-stdio-transport.js';
import { installShutdown } from './shutdown.js';
import { enableStructuredOutput } from '../tools/tool-server.js';
import { TrackedTransport } from './tracked-transport.js';

/** What every server's `createServer` receives from the bootstrap. */
export interface ServerRuntime {
  paths: PathPolicy;
  logger: Logger;
  /** The server's own flags, parsed (`--on-conflict` → `flags['on-conflict']`). */
  flags: FlagValues;
  /**
   * `--structured-output` / `MCP_STRUCTURED_OUTPUT=1`. Servers built with `createToolServer` need not
   * pass it on: the bootstrap turns it on for them.
   */
  structuredOutput: boolean;
}

export interface StdioServerSpec {
  name: string;
  version: string;
  description: string;
  flags?: Record<string, FlagSpec>;
  createServer(runtime: ServerRuntime): McpServer | Promise<McpServer>;
  /** On SIGTERM/SIGINT, how long running calls may finish before they are cancelled (default 3000). */
  shutdownGraceMs?: number;
}

/** The process streams, injectable so the flag handling can be tested without a child process. */
export interface StdioIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  exit(code: number): void;
}

const defaultIo = (): StdioIo => ({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code) => process.exit(code),
});

/**
 * The bin entry of every server: parses the shared flags, builds the path policy, starts the server
 * on stdio, logs to stderr only, and exits cleanly (code 0, answers flushed, no temp files left) on
 * stdin close, SIGINT, SIGTERM and a closed stdout.
 */
export async function runStdioServer(
  spec: StdioServerSpec,
  argv: readonly string[] = process.argv.slice(2),
  io: StdioIo = defaultIo(),
): Promise<void> {
  let flags;
  try {
    flags = parseCommonFlags(argv, spec.flags);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(
      `${spec.name}: ${error.message}\n\n${renderHelp(spec.name, spec.description, spec.flags)}`,
    );
    io.exit(2);
    return;
  }
  if (flags.help) {
    io.stdout.write(renderHelp(spec.name, spec.description, spec.flags));
    io.exit(0);
    return;
  }
  if (flags.version) {
    io.stdout.write(`${spec.version}\n`);
    io.exit(0);
    return;
  }

  const logger = createLogger({
    level: flags.logLevel,
    file: flags.logFile,
    name: spec.name,
    write: (line) => io.stderr.write(line),
  });
  let paths: PathPolicy;
  try {
    paths = await PathPolicy.create({
      roots: flags.roots.length > 0 ? flags.roots : [process.cwd()],
      denyGlobs: flags.denyGlobs,
      implicitRoots: flags.roots.length === 0,
    });
  } catch (error) {
    io.stderr.write(`${spec.name}: ${isToolError(error) ? error.message : String(error)}\n`);
    io.exit(2);
    return;
  }

  if (paths.roots.length === 0) {
    // Not fatal: a client that offers MCP roots still works; every other call fails naming --root.
    logger.warn(`${paths.missingRootMessage()} Pass --root <dir>, or use a client that offers MCP roots.`);
  }
  // Temp files of atomic writes that a SIGKILL left behind (this library's naming, journaled).
  void sweepStaleTemps().then(
    (removed) => removed.length > 0 && logger.info(`Removed ${removed.length} stale temp file(s).`),
    (error: unknown) => logger.debug('Could not sweep stale temp files', error),
  );

  const server = await spec.createServer({
    paths,
    logger,
    flags: flags.extra,
    structuredOutput: flags.structuredOutput,
  });
  if (flags.structuredOutput && !enableStructuredOutput(server)) {
    logger.warn('--structured-output has no effect: this server was not built with createToolServer.');
  }
  // A transport that closes itself ends the process too.
  let shutdown: (reason: string, grace?: number) => void = () => undefined;
  const transport = new TrackedTransport(new GuardedStdioTransport(io.stdin, io.stdout), logger, () =>
    shutdown('the transport closed', 0),
  );
  shutdown = installShutdown({ server, transport, io, logger, graceMs: spec.shutdownGraceMs ?? 3000 });
  const protocolError = server.server.onerror;
  server.server.onerror = (error) => {
    logger.warn(`MCP protocol: ${error.message}`);
    protocolError?.(error);
  };
  process.on('unhandledRejection', (reason) => logger.error('Unhandled promise rejection', reason));

  await server.connect(transport);
  logger.info(
    `${spec.name} ${spec.version} ready on stdio; roots: ${paths.roots.join(', ') || '(none yet)'}`,
  );
}
