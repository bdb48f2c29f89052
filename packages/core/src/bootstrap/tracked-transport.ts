import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import type { InvalidMessageError } from './guarded-stdio-transport.js';

/**
 * Wraps the stdio transport to know which client requests still await an answer (so a shutdown can
 * let them finish), to refuse new requests while shutting down, and to answer lines that are not
 * JSON-RPC instead of dropping them silently (the SDK only reports them to `onerror`).
 */
export class TrackedTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly open = new Set<RequestId>();
  private readonly sending = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private refusing = false;

  constructor(
    private readonly inner: Transport,
    private readonly logger: Logger,
    /** Called when the transport closes, whoever closed it. */
    onClosed: () => void,
  ) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onerror = (error) => this.failed(error);
    inner.onclose = () => {
      this.onclose?.();
      onClosed();
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
      this.settle(message.id);
    }
    return this.write(message, options);
  }

  /** Sends without settling anything (the answers `flushed` waits for are counted). */
  private write(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const sent = this.inner.send(message, options);
    this.sending.add(sent);
    const done = () => this.sending.delete(sent);
    sent.then(done, done);
    return sent;
  }

  /** How many client requests have not been answered yet. */
  get pending(): number {
    return this.open.size;
  }

  /** Resolves once every request received so far is answered (or cancelled by the client). */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** From now on, new requests get an error answer instead of being run. */
  refuseNew(): void {
    this.refusing = true;
  }

  /** Answers every open request with an error, so the client is not left waiting for it. */
  abandonOpen(reason: string): void {
    for (const id of [...this.open]) void this.answerError(id, ErrorCode.ConnectionClosed, reason);
  }

  /** Resolves when the answers handed over so far are written, or after `ms` (stdout may be gone). */
  async flushed(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.allSettled([...this.sending]), timeout]);
    clearTimeout(timer);
  }

  private receive(message: JSONRPCMessage, extra?: Parameters<NonNullable<Transport['onmessage']>>[1]) {
    if (isJSONRPCRequest(message)) {
      if (this.refusing) {
        void this.answerError(message.id, ErrorCode.ConnectionClosed, 'The server is shutting down.');
        return;
      }
      if (this.open.has(message.id)) {
        // Its answer would settle the first request's too, and the SDK would cancel the wrong one.
        // Sent past `send`, which would take this answer for the first request's and stop waiting for it.
        const refusal = {
          jsonrpc: '2.0' as const,
          id: message.id,
          error: {
            code: ErrorCode.InvalidRequest,
            message: `Invalid Request: request id ${JSON.stringify(message.id)} is already in use by a request still running.`,
          },
        };
        void this.write(refusal).catch(() => undefined);
        return;
      }
      this.open.add(message.id);
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      // The SDK sends no answer for a cancelled request: stop waiting for one.
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.settle(id);
    }
    this.onmessage?.(message, extra);
  }

  private failed(error: Error): void {
    // JSON-RPC 2.0 says to answer these with id null; MCP's schema (and the SDK's client parser)
    // model the unknown id as absent, so the id is left out unless the message's own id could be read.
    if (error instanceof SyntaxError) {
      this.logger.warn(`Ignored a line from the client that is not JSON: ${error.message}`);
      void this.answerError(undefined, ErrorCode.ParseError, `Parse error: ${error.message}`);
    } else if (error.name === 'ZodError') {
      this.logger.warn(
        'Ignored a message from the client that is not a JSON-RPC 2.0 request, notification or response.',
      );
      void this.answerError(
        (error as InvalidMessageError).requestId,
        ErrorCode.InvalidRequest,
        'Invalid Request: not a JSON-RPC 2.0 message.',
      );
    } else {
      this.onerror?.(error);
    }
  }

  private answerError(id: RequestId | undefined, code: number, message: string): Promise<void> {
    const body = { jsonrpc: '2.0' as const, error: { code, message } };
    return this.send(id === undefined ? body : { ...body, id }).catch(() => undefined);
  }

  private settle(id: RequestId): void {
    if (!this.open.delete(id) || this.open.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
