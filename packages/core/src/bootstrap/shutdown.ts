import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { discardPendingAtomicWrites } from '../fs/atomic-write.js';
import type { Logger } from '../logger.js';
import type { StdioIo } from './run-stdio-server.js';
import type { TrackedTransport } from './tracked-transport.js';

interface ShutdownParts {
  server: McpServer;
  transport: TrackedTransport;
  io: StdioIo;
  logger: Logger;
  /** How long running calls may finish after a signal or a dead stdout. */
  graceMs: number;
}

/**
 * Wires the ways a stdio server ends. stdin closed (a client that is done, or a piped session): answer
 * every call still running, then exit. SIGTERM/SIGINT or a dead stdout: wait at most `graceMs` for
 * them, then cancel them (their atomic writes drop their temp files); a second signal cancels at once.
 * Always exit 0 with no temp file left. Returns the function that starts a shutdown.
 */
export function installShutdown({ server, transport, io, logger, graceMs }: ShutdownParts) {
  let stopping = false;
  let stdoutBroken = false;
  let graceTimer: NodeJS.Timeout | undefined;
  let cutShort: () => void = () => undefined;
  const graceOver = new Promise<void>((resolve) => (cutShort = resolve));

  const finish = async () => {
    const drained = await Promise.race([transport.idle().then(() => true), graceOver.then(() => false)]);
    clearTimeout(graceTimer);
    if (!drained) logger.warn(`Cancelling ${transport.pending} call(s) still running.`);
    // Closing the server aborts the signals of running calls, so the SDK sends nothing for them...
    const closed = server.close().catch((error: unknown) => logger.warn('Error while closing', error));
    // ...and the client gets this answer instead of waiting forever.
    transport.abandonOpen('The server shut down before the request finished; it was cancelled.');
    await closed;
    discardPendingAtomicWrites(); // writes that run outside a tool call, or ignore its signal
    if (!stdoutBroken) await transport.flushed(2000); // a broken stdout never drains
    for (const [signal, handler] of signalHandlers) process.off(signal, handler);
    io.exit(0);
  };

  const shutdown = (reason: string, grace?: number) => {
    if (grace !== undefined) {
      if (graceTimer) cutShort();
      else graceTimer = setTimeout(cutShort, grace);
    }
    if (stopping) return;
    stopping = true;
    logger.info(`Shutting down (${reason}).`);
    transport.refuseNew();
    void finish();
  };

  const signalHandlers = [
    ['SIGINT', () => shutdown('SIGINT', graceMs)],
    ['SIGTERM', () => shutdown('SIGTERM', graceMs)],
  ] as const;
  for (const [signal, handler] of signalHandlers) process.on(signal, handler);
  io.stdin.on('end', () => shutdown('stdin closed'));
  io.stdin.on('close', () => shutdown('stdin closed'));
  // A client that stops reading makes stdout fail with EPIPE: a shutdown, not a crash.
  io.stdout.on('error', (error: NodeJS.ErrnoException) => {
    stdoutBroken = true;
    shutdown(`stdout closed: ${error.code ?? error.message}`, graceMs);
  });
  io.stderr.on('error', () => undefined); // nowhere left to report it
  return shutdown;
}
