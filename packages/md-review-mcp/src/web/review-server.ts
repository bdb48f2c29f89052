import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError, toToolError, type Logger } from '@mcp-workbench/core/engine';
import type { ReviewHub } from '../review/hub.js';
import { RESUME_KEY_PATTERN } from '../review/store.js';
import { handleApi, httpStatusOf } from './api.js';
import { bearerToken, refusal, setSecurityHeaders } from './security.js';
import { StaticFiles } from './static-files.js';

const MAX_BODY_BYTES = 1024 * 1024;

export interface ReviewServerOptions {
  hub: ReviewHub;
  logger: Logger;
  /** Where the built page is (default: this package's dist/ui). */
  uiDir?: string;
}

/**
 * The review page and its JSON API on 127.0.0.1, on a port the OS picks (so two servers, or two
 * reviews, never collide). The page's URL is `/review/<key>#token=<token>`: the token stays in the
 * fragment (never sent in a request line, a log or a Referer) and the page sends it as a bearer token.
 */
export class ReviewServer {
  private server: Server | undefined;
  private starting: Promise<number> | undefined;
  private readonly files: StaticFiles;

  constructor(private readonly options: ReviewServerOptions) {
    this.files = new StaticFiles(options.uiDir);
  }

  /** Starts listening (once) and returns the port. */
  start(): Promise<number> {
    void this.files.load(); // read the page's files now, before the first page asks for them
    this.starting ??= new Promise<number>((resolve, reject) => {
      const server = createServer((req, res) => void this.handle(req, res));
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        server.on('error', (error) => this.options.logger.warn('Review server error', error));
        this.server = server;
        resolve((server.address() as AddressInfo).port);
      });
    });
    return this.starting;
  }

  get port(): number | undefined {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : undefined;
  }

  /**
   * The page's address without its secret: what the agent may see and pass on. Opened as it is, the
   * page asks for the person's link; nothing can be read or changed with it.
   */
  async pageUrl(key: string): Promise<string> {
    const port = await this.start();
    return `http://127.0.0.1:${port}/review/${encodeURIComponent(key)}`;
  }

  /**
   * The person's link: the page with the session's secret in its fragment. It goes only where the
   * person looks (the window the server opens, the client's URL prompt, stderr), never into an answer.
   */
  async personalUrl(key: string): Promise<string> {
    return `${await this.pageUrl(key)}#token=${this.options.hub.tokenOf(key)}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.starting = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setSecurityHeaders(res);
    try {
      const port = this.port ?? 0;
      const refused = refusal(req, port);
      if (refused) {
        this.options.logger.warn(`Refused ${req.method} ${req.url} (${refused.reason}).`);
        return this.send(res, refused.status, {
          error: { code: 'FORBIDDEN', message: `Refused: ${refused.reason}.` },
        });
      }
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      const parts = decodedSegments(url.pathname);
      if (!parts) return this.text(res, 400, 'Bad request: the path has an invalid escape.');
      if (parts[0] === 'api' && parts[1] === 'sessions' && parts[2] !== undefined) {
        return await this.api(req, res, parts[2], parts.slice(3));
      }
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return this.send(res, 405, { error: { code: 'METHOD', message: 'Method not allowed.' } });
      if (parts[0] === 'review' && parts.length === 2 && RESUME_KEY_PATTERN.test(parts[1]!)) {
        const index = await this.files.index();
        if (!index)
          return this.text(res, 503, 'The review page is not built: run `pnpm build` in md-review-mcp.');
        res.setHeader('Cache-Control', 'no-store');
        return this.body(res, 200, index.type, index.body, req.method === 'HEAD');
      }
      if (parts[0] === 'assets' && parts.length === 2) {
        const asset = await this.files.asset(parts[1]!);
        if (asset) {
          res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
          return this.body(res, 200, asset.type, asset.body, req.method === 'HEAD');
        }
      }
      return this.text(res, 404, 'Not found.');
    } catch (error) {
      this.options.logger.error('Review server request failed', error);
      if (!res.headersSent) this.send(res, 500, { error: { code: 'INTERNAL', message: 'Internal error.' } });
      else res.end();
    }
  }

  private async api(req: IncomingMessage, res: ServerResponse, key: string, rest: string[]) {
    res.setHeader('Cache-Control', 'no-store');
    const token = bearerToken(req);
    // A finished review let go of while its page was quiet comes back when the page asks again.
    if (token && !this.options.hub.checkToken(key, token)) await this.options.hub.revive(key, token);
    if (token && this.options.hub.movedAway(key, token)) {
      return this.send(res, 410, {
        error: {
          code: 'MOVED',
          message:
            'This review moved to another md-review window (the agent asked for it from another session); changes here are no longer saved.',
        },
      });
    }
    if (!token || !this.options.hub.checkToken(key, token)) {
      return this.send(res, 403, {
        error: { code: 'FORBIDDEN', message: 'This review link is not valid (wrong or expired token).' },
      });
    }
    let body: Record<string, unknown> = {};
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') body = await readJson(req);
      const answer = await handleApi(this.options.hub, key, { method: req.method ?? 'GET', rest, body });
      return this.send(res, 200, answer);
    } catch (error) {
      const toolError = toToolError(error);
      if (toolError.code === 'INTERNAL')
        this.options.logger.error('Review API failed', toolError.cause ?? error);
      return this.send(res, httpStatusOf(toolError), { error: toolError.toJSON() });
    }
  }

  private send(res: ServerResponse, status: number, value: unknown) {
    this.body(res, status, 'application/json; charset=utf-8', Buffer.from(JSON.stringify(value)));
  }

  private text(res: ServerResponse, status: number, text: string) {
    this.body(res, status, 'text/plain; charset=utf-8', Buffer.from(text));
  }

  private body(res: ServerResponse, status: number, type: string, body: Buffer, headOnly = false) {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': body.length });
    res.end(headOnly ? undefined : body);
  }
}

/** The path's segments, %-decoded; undefined for a malformed escape (`/assets/%`). */
function decodedSegments(pathname: string): string[] | undefined {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ToolError('LIMIT_EXCEEDED', 'The request body is over 1 MB.');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ToolError('INVALID_ARGUMENT', 'The request body is not JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return value as Record<string, unknown>;
}
