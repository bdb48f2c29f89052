import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  ErrorCode,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import { RequestIdScanner } from './request-id-scanner.js';

/** The SDK's stdio limit (its client drops a session on a longer line): requests above it are refused. */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/**
 * Answers above this are replaced by an error: well under the 10 MiB a client accepts on one line, so
 * no answer can end the session. Tools keep their own answers far smaller; this is the backstop.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface GuardLimits {
  maxRequestBytes?: number;
  maxAnswerBytes?: number;
}

/** An error about a line that is JSON but no valid JSON-RPC message, with the id of the request it tried to be. */
export interface InvalidMessageError extends Error {
  requestId?: RequestId;
}

/**
 * Marks `error` with the id of the request `line` tried to be (a `method` and a string or number `id`),
 * so its error answer can carry the id: without it the client cannot match the answer and waits.
 */
function withRequestId(error: Error, line: string): InvalidMessageError {
  try {
    const raw = JSON.parse(line) as unknown;
    if (raw && typeof raw === 'object' && 'method' in raw && 'id' in raw) {
      const id = (raw as { id: unknown }).id;
      if (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))
        (error as InvalidMessageError).requestId = id;
    }
  } catch {
    // not JSON: no id to read
  }
  return error;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
}

/**
 * MCP over stdio (one JSON-RPC message per line), like the SDK's StdioServerTransport, with size
 * guards instead of a dead session: a request line over `maxRequestBytes` is dropped while it streams
 * in (memory stays bounded) and answered with an Invalid Request error carrying its id; an answer over
 * `maxAnswerBytes` is replaced by an error saying how to ask for less.
 */
export class GuardedStdioTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly maxRequest: number;
  private readonly maxAnswer: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while an oversized line is being skipped. */
  private skipping: { scanner: RequestIdScanner; bytes: number } | undefined;
  private started = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    limits: GuardLimits = {},
  ) {
    this.maxRequest = limits.maxRequestBytes ?? MAX_REQUEST_BYTES;
    this.maxAnswer = limits.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  }

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  };

  private readonly onError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.started) throw new Error('GuardedStdioTransport already started.');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    let json = JSON.stringify(message);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.maxAnswer) json = JSON.stringify(this.replaceOversized(message, bytes));
    return new Promise((resolve) => {
      if (this.stdout.write(`${json}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  /** Part of a line: kept, or (past the limit) fed to the id scanner and dropped. */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skipping.scanner.feed(part);
      this.skipping.bytes += part.length;
      return;
    }
    if (this.pendingBytes + part.length <= this.maxRequest) {
      this.pending.push(part);
      this.pendingBytes += part.length;
      return;
    }
    const scanner = new RequestIdScanner();
    for (const kept of this.pending) scanner.feed(kept);
    scanner.feed(part);
    this.skipping = { scanner, bytes: this.pendingBytes + part.length };
    this.pending = [];
    this.pendingBytes = 0;
  }

  private endLine(): void {
    if (this.skipping) {
      const { scanner, bytes } = this.skipping;
      this.skipping = undefined;
      this.refuseOversized(scanner.id(), bytes);
      return;
    }
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(withRequestId(error as Error, line));
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(id: RequestId | undefined, bytes: number): void {
    const body = {
      jsonrpc: '2.0' as const,
      error: {
        code: ErrorCode.InvalidRequest,
        message:
          `Request too large: ${bytes} bytes, above the server's limit of ${mib(this.maxRequest)}. ` +
          'Nothing was run. Send less in one call (split a long list of items or operations over several calls).',
      },
    };
    this.onerror?.(new Error(`Refused a request of ${bytes} bytes (limit ${this.maxRequest}).`));
    void this.send(id === undefined ? body : { ...body, id });
  }

  /**
   * A tool result too large to send becomes an `isError` result with code LIMIT_EXCEEDED (what a
   * model can act on); any other answer becomes a JSON-RPC error with the same advice.
   */
  private replaceOversized(message: JSONRPCMessage, bytes: number): JSONRPCMessage {
    const text =
      `The answer was ${bytes} bytes, above the ${mib(this.maxAnswer)} one message may carry, so it was ` +
      'not sent.';
    const hint = 'Ask for less in one call: a smaller page, budget or range, or fewer items.';
    this.onerror?.(new Error(`Replaced an answer of ${bytes} bytes (limit ${this.maxAnswer}).`));
    if (
      isJSONRPCResultResponse(message) &&
      Array.isArray((message.result as { content?: unknown }).content)
    ) {
      const error = { code: 'LIMIT_EXCEEDED', message: text, hint, details: { bytes, max: this.maxAnswer } };
      return {
        jsonrpc: '2.0',
        id: message.id,
        result: { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true },
      };
    }
    const id = 'id' in message ? message.id : undefined;
    const error = { code: ErrorCode.InternalError, message: `${text} ${hint}` };
    return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
  }
}
