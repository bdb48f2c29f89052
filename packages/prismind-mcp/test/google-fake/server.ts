import { createHash, createVerify, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadRequest, FakeDocument } from './docs-model.js';
import { parseDriveQuery } from './drive-query.js';
import { applyMask, parseMask } from './mask.js';
import { applySheetRequest, FakeSpreadsheet, SheetsError } from './sheets-model.js';

/**
 * A local stand-in for the Google endpoints Prismind calls — OAuth token and consent, Sheets v4, Drive v3,
 * Docs v1 — on loopback. It keeps state like the service (files, folders, sheets, documents, revisions)
 * and checks every request: the bearer token (issued by its token endpoint, or a service account's
 * self-signed JWT), the path, every query parameter and the body. A request it does not understand is
 * a 400 and is recorded in `problems`, which every test expects to stay empty.
 */

export const FOLDER = 'application/vnd.google-apps.folder';
export const DOC = 'application/vnd.google-apps.document';
export const SHEET = 'application/vnd.google-apps.spreadsheet';

export interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  trashed: boolean;
  createdTime: string;
  modifiedTime: string;
  appProperties?: Record<string, string>;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  body: unknown;
  status: number;
}

interface Injected {
  match: (r: { method: string; path: string }) => boolean;
  times: number;
  status: number;
  headers?: Record<string, string>;
}

const STANDARD = ['fields', 'alt', 'prettyPrint', 'quotaUser'];

export const CLIENT = { id: 'fake-client.apps.googleusercontent.com', secret: 'fake-secret' };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason = 'badRequest',
  ) {
    super(message);
  }
}

export class FakeGoogle {
  readonly files = new Map<string, FakeFile>();
  readonly spreadsheets = new Map<string, FakeSpreadsheet>();
  readonly documents = new Map<string, FakeDocument>();
  readonly log: LoggedRequest[] = [];
  /** Requests the fake could not understand: a bug in the client code (tests expect none). */
  readonly problems: string[] = [];
  /** Refresh token → scopes; rotate: each refresh hands out a new refresh token and retires the old. */
  readonly refreshTokens = new Map<string, string[]>();
  rotateRefreshTokens = false;
  readonly serviceAccounts = new Map<string, string>(); // email → public key PEM
  private readonly accessTokens = new Map<string, { scopes: string[]; expires: number }>();
  private readonly codes = new Map<string, { challenge: string; redirect: string; scopes: string[] }>();
  private readonly generated = new Set<string>();
  private readonly injected: Injected[] = [];
  private readonly delays: { match: (r: { method: string; path: string }) => boolean; ms: number }[] = [];
  private readonly hooks: { match: (r: { method: string; path: string }) => boolean; run: () => void }[] = [];
  private server: http.Server | undefined;
  private clock = Date.parse('2025-01-12T00:00:00Z');
  private counter = 0;
  url = '';

  static async start(): Promise<FakeGoogle> {
    const fake = new FakeGoogle();
    fake.files.set('root', {
      id: 'root',
      name: 'My Drive',
      mimeType: FOLDER,
      parents: [],
      trashed: false,
      createdTime: '',
      modifiedTime: '',
    });
    fake.server = http.createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => fake.server!.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  /** A folder or spreadsheet a person made in Drive (with the id they will pass to setup_project). */
  seed(kind: 'folder' | 'spreadsheet' | 'document', id: string, name: string, parent = 'root'): FakeFile {
    this.generated.add(id);
    const mimeType = { folder: FOLDER, spreadsheet: SHEET, document: DOC }[kind];
    return this.createFile({ id, name, mimeType, parents: [parent] });
  }

  /** Every access token handed out so far stops working (revoked, or expired early). */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expires = 0;
  }

  /** Injected failures not yet served are dropped. */
  clearFailures(): void {
    this.injected.length = 0;
  }

  /** A refresh token for the test OAuth client, as `auth login` would have received it. */
  issueRefreshToken(scopes: string[]): string {
    const token = `1//refresh-${randomBytes(8).toString('hex')}`;
    this.refreshTokens.set(token, scopes);
    return token;
  }

  /** The next `times` requests matching answer `status` (429, 503, …) instead. */
  failNext(
    match: (r: { method: string; path: string }) => boolean,
    times: number,
    status: number,
    headers?: Record<string, string>,
  ): void {
    this.injected.push({ match, times, status, ...(headers ? { headers } : {}) });
  }

  /** Every matching request is answered `ms` later (a slow service: lets two clients race). */
  delay(match: (r: { method: string; path: string }) => boolean, ms: number): void {
    this.delays.push({ match, ms });
  }

  /** Runs `run` (a person's edit) just before the next request that matches is served. */
  before(match: (r: { method: string; path: string }) => boolean, run: () => void): void {
    this.hooks.push({ match, run });
  }

  /** Requests to the APIs (not the token endpoint) since an index of the log (`log.length` earlier). */
  apiRequests(since = 0): LoggedRequest[] {
    return this.log.slice(since).filter((r) => r.path !== '/token' && !r.path.startsWith('/o/oauth2'));
  }

  private now(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  private newId(prefix: string): string {
    return `${prefix}${(++this.counter).toString(36)}${randomBytes(6).toString('hex')}`;
  }

  folderPath(id: string): string {
    const names: string[] = [];
    let file = this.files.get(id);
    while (file && file.id !== 'root') {
      names.unshift(file.name);
      file = this.files.get(file.parents[0] ?? '');
    }
    return names.join('/');
  }

  /** Live files (not trashed) by path below My Drive, e.g. "Prismind/Projects/X/設計書". */
  byPath(path: string): FakeFile[] {
    return [...this.files.values()].filter(
      (f) => !f.trashed && f.id !== 'root' && this.folderPath(f.id) === path,
    );
  }

  children(parent: string): FakeFile[] {
    return [...this.files.values()].filter((f) => !f.trashed && f.parents.includes(parent));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const query: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) (query[k] ??= []).push(v);
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      body: raw,
      status: 0,
    };
    this.log.push(entry);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    try {
      const delay = this.delays.find((d) => d.match(entry));
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay.ms));
      const hook = this.hooks.findIndex((h) => h.match(entry));
      if (hook >= 0) this.hooks.splice(hook, 1)[0]!.run();
      const inject = this.injected.find((i) => i.times > 0 && i.match(entry));
      if (inject) {
        inject.times--;
        send(
          inject.status,
          {
            error: {
              code: inject.status,
              message: 'Injected failure',
              status: inject.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE',
            },
          },
          inject.headers,
        );
        return;
      }
      if (url.pathname === '/token') return send(200, this.token(raw, req.headers['content-type']));
      if (url.pathname === '/o/oauth2/auth') return this.consent(url, res, entry);
      const scopes = this.authorize(req.headers.authorization);
      if (!req.headers['x-goog-api-client'])
        throw new HttpError(400, 'Not sent by a Google client library (no x-goog-api-client header).');
      let body: unknown;
      if (raw) {
        if (!String(req.headers['content-type']).startsWith('application/json'))
          throw new HttpError(400, `Unexpected content type ${req.headers['content-type']}`);
        body = JSON.parse(raw);
        entry.body = body;
      }
      const result = this.route(entry.method, url.pathname, query, body, scopes);
      const fields = query.fields?.[0];
      send(
        result.status ?? 200,
        fields && result.body !== undefined ? applyMask(result.body, parseMask(fields)) : result.body,
      );
    } catch (error) {
      const status =
        error instanceof HttpError
          ? error.status
          : error instanceof SheetsError
            ? error.status
            : error instanceof BadRequest
              ? 400
              : 500;
      const message = (error as Error).message;
      if (status === 400 || status === 500) this.problems.push(`${entry.method} ${entry.path}: ${message}`);
      send(status, {
        error: {
          code: status,
          message,
          status:
            status === 404
              ? 'NOT_FOUND'
              : status === 409
                ? 'ALREADY_EXISTS'
                : status === 401
                  ? 'UNAUTHENTICATED'
                  : 'INVALID_ARGUMENT',
        },
      });
    }
  }

  /** Problems that a test provoked on purpose are taken out of the list. */
  takeProblems(pattern: RegExp): string[] {
    const taken = this.problems.filter((p) => pattern.test(p));
    const kept = this.problems.filter((p) => !pattern.test(p));
    this.problems.length = 0;
    this.problems.push(...kept);
    return taken;
  }

  // ---- OAuth ----

  private token(raw: string, type: string | undefined): Record<string, unknown> {
    if (!String(type).startsWith('application/x-www-form-urlencoded'))
      throw new HttpError(400, 'token: form body expected');
    const form = new URLSearchParams(raw);
    const grant = form.get('grant_type');
    const client = form.get('client_id');
    if (client !== CLIENT.id || form.get('client_secret') !== CLIENT.secret)
      throw new HttpError(401, 'invalid_client', 'invalid_client');
    let scopes: string[];
    let refresh: string | undefined;
    if (grant === 'refresh_token') {
      const old = form.get('refresh_token') ?? '';
      const granted = this.refreshTokens.get(old);
      if (!granted) {
        this.problems.push(`token: unknown refresh token`);
        throw new HttpError(400, 'invalid_grant');
      }
      scopes = granted;
      if (this.rotateRefreshTokens) {
        this.refreshTokens.delete(old);
        refresh = this.issueRefreshToken(scopes);
      }
    } else if (grant === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      if (!code) throw new HttpError(400, 'invalid_grant');
      this.codes.delete(form.get('code')!);
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (challenge !== code.challenge)
        throw new HttpError(400, 'invalid_grant: code_verifier does not match');
      if (form.get('redirect_uri') !== code.redirect)
        throw new HttpError(400, 'invalid_grant: redirect_uri mismatch');
      scopes = code.scopes;
      refresh = this.issueRefreshToken(scopes);
    } else throw new HttpError(400, `unsupported_grant_type ${grant}`);
    const access = `ya29.${randomBytes(12).toString('hex')}`;
    this.accessTokens.set(access, { scopes, expires: Date.now() + 3600_000 });
    return {
      access_token: access,
      expires_in: 3599,
      token_type: 'Bearer',
      scope: scopes.join(' '),
      ...(refresh ? { refresh_token: refresh } : {}),
    };
  }

  /** The consent page: the "person" agrees at once and is sent back to the loopback redirect. */
  private consent(url: URL, res: http.ServerResponse, entry: LoggedRequest): void {
    const p = url.searchParams;
    const redirect = p.get('redirect_uri') ?? '';
    if (p.get('client_id') !== CLIENT.id) throw new HttpError(400, 'consent: unknown client');
    if (!/^http:\/\/(127\.0\.0\.1|localhost):\d+(\/.*)?$/.test(redirect))
      throw new HttpError(400, 'consent: redirect must be loopback');
    if (
      p.get('response_type') !== 'code' ||
      p.get('code_challenge_method') !== 'S256' ||
      !p.get('code_challenge') ||
      !p.get('state')
    ) {
      throw new HttpError(400, 'consent: PKCE (S256), state and response_type=code are required');
    }
    if (p.get('access_type') !== 'offline')
      throw new HttpError(400, 'consent: access_type=offline is needed for a refresh token');
    const code = `4/${randomBytes(8).toString('hex')}`;
    this.codes.set(code, {
      challenge: p.get('code_challenge')!,
      redirect,
      scopes: (p.get('scope') ?? '').split(' '),
    });
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    back.searchParams.set('state', p.get('state')!);
    entry.status = 302;
    res.writeHead(302, { location: back.href });
    res.end();
  }

  private authorize(header: string | undefined): string[] {
    const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
    if (!token)
      throw new HttpError(401, 'Request is missing required authentication credential.', 'unauthenticated');
    const known = this.accessTokens.get(token);
    if (known) {
      if (known.expires < Date.now()) throw new HttpError(401, 'Access token expired.', 'unauthenticated');
      return known.scopes;
    }
    // A service account's self-signed JWT (RS256, signed by a key registered with the fake).
    const parts = token.split('.');
    if (parts.length === 3) {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as {
        iss?: string;
        scope?: string;
        exp?: number;
      };
      const key = this.serviceAccounts.get(claims.iss ?? '');
      const ok =
        key &&
        createVerify('RSA-SHA256')
          .update(`${parts[0]}.${parts[1]}`)
          .verify(key, Buffer.from(parts[2]!, 'base64url'));
      if (ok && (claims.exp ?? 0) * 1000 > Date.now() && claims.scope) return claims.scope.split(' ');
    }
    throw new HttpError(401, 'Invalid Credentials', 'unauthenticated');
  }

  // ---- APIs ----

  private params(query: Record<string, string[]>, allowed: string[], required: string[] = []): void {
    for (const key of Object.keys(query)) {
      if (!STANDARD.includes(key) && !allowed.includes(key))
        throw new HttpError(400, `Unknown query parameter "${key}".`);
      if (query[key]!.length > 1 && key !== 'ranges')
        throw new HttpError(400, `Repeated query parameter "${key}".`);
    }
    for (const key of required)
      if (!query[key]) throw new HttpError(400, `Missing query parameter "${key}".`);
    if (query.fields) parseMask(query.fields[0]!);
  }

  private route(
    method: string,
    path: string,
    query: Record<string, string[]>,
    body: unknown,
    scopes: string[],
  ): { status?: number; body?: unknown } {
    let m: RegExpExecArray | null;
    const needs = (any: string[]) => {
      if (!any.some((s) => scopes.includes(`https://www.googleapis.com/auth/${s}`)))
        throw new HttpError(
          403,
          `Request had insufficient authentication scopes.`,
          'insufficientPermissions',
        );
    };
    // Sheets v4
    if ((m = /^\/v4\/spreadsheets\/([^/:]+)\/values:batchGet$/.exec(path)) && method === 'GET') {
      needs(['spreadsheets', 'drive.file', 'drive']);
      this.params(
        query,
        ['ranges', 'majorDimension', 'valueRenderOption', 'dateTimeRenderOption'],
        ['ranges'],
      );
      if (query.majorDimension && query.majorDimension[0] !== 'ROWS')
        throw new HttpError(400, 'majorDimension');
      const book = this.spreadsheet(m[1]!);
      return {
        body: {
          spreadsheetId: book.id,
          valueRanges: query.ranges!.map((range) => ({
            range,
            majorDimension: 'ROWS',
            values: book.values(book.parseA1(range)),
          })),
        },
      };
    }
    if ((m = /^\/v4\/spreadsheets\/([^/:]+):batchUpdate$/.exec(path)) && method === 'POST') {
      needs(['spreadsheets', 'drive.file', 'drive']);
      this.params(query, []);
      return { body: this.sheetsBatchUpdate(m[1]!, body as Record<string, unknown>) };
    }
    if ((m = /^\/v4\/spreadsheets\/([^/:]+)$/.exec(path)) && method === 'GET') {
      needs(['spreadsheets', 'drive.file', 'drive']);
      this.params(query, ['ranges', 'includeGridData']);
      const book = this.spreadsheet(m[1]!);
      return { body: this.spreadsheetJson(book, query.ranges, query.includeGridData?.[0] === 'true') };
    }
    // Drive v3
    if (path === '/drive/v3/files/generateIds' && method === 'GET') {
      needs(['drive.file', 'drive']);
      this.params(query, ['count', 'space', 'type']);
      const count = Number(query.count?.[0] ?? 10);
      if (!(count >= 1 && count <= 1000)) throw new HttpError(400, 'count');
      const ids = Array.from({ length: count }, () => this.newId('1G'));
      for (const id of ids) this.generated.add(id);
      return { body: { kind: 'drive#generatedIds', space: query.space?.[0] ?? 'drive', ids } };
    }
    if (path === '/drive/v3/files' && method === 'GET') {
      needs(['drive.file', 'drive']);
      this.params(
        query,
        ['q', 'pageSize', 'pageToken', 'spaces', 'supportsAllDrives', 'includeItemsFromAllDrives', 'orderBy'],
        ['q', 'fields'],
      );
      const matches = parseDriveQuery(query.q![0]!);
      const all = [...this.files.values()].filter((f) => f.id !== 'root' && matches(f));
      const size = Number(query.pageSize?.[0] ?? 100);
      if (!(size >= 1 && size <= 1000)) throw new HttpError(400, 'pageSize');
      const start = Number(query.pageToken?.[0] ?? 0);
      const page = all.slice(start, start + size);
      return {
        body: {
          kind: 'drive#fileList',
          files: page,
          ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
        },
      };
    }
    if (path === '/drive/v3/files' && method === 'POST') {
      needs(['drive.file', 'drive']);
      this.params(query, ['supportsAllDrives'], ['fields']);
      return { body: this.createFile(body as Partial<FakeFile>) };
    }
    if ((m = /^\/drive\/v3\/files\/([^/]+)$/.exec(path))) {
      needs(['drive.file', 'drive']);
      this.params(query, ['supportsAllDrives']);
      const file = this.files.get(m[1]!);
      if (!file || file.id === 'root') throw new HttpError(404, `File not found: ${m[1]}.`, 'notFound');
      if (method === 'GET') return { body: file };
      if (method === 'DELETE') {
        this.files.delete(file.id);
        return { status: 204 };
      }
    }
    // Docs v1
    if ((m = /^\/v1\/documents\/([^/:]+)$/.exec(path)) && method === 'GET') {
      needs(['documents', 'drive.file', 'drive']);
      this.params(query, ['suggestionsViewMode', 'includeTabsContent']);
      return { body: this.document(m[1]!).toJson() };
    }
    if ((m = /^\/v1\/documents\/([^/:]+):batchUpdate$/.exec(path)) && method === 'POST') {
      needs(['documents', 'drive.file', 'drive']);
      this.params(query, []);
      return { body: this.docsBatchUpdate(m[1]!, body as Record<string, unknown>) };
    }
    throw new HttpError(400, `No such endpoint: ${method} ${path}`);
  }

  private spreadsheet(id: string): FakeSpreadsheet {
    const book = this.spreadsheets.get(id);
    if (!book || this.files.get(id)?.trashed)
      throw new HttpError(404, 'Requested entity was not found.', 'notFound');
    return book;
  }

  private document(id: string): FakeDocument {
    const doc = this.documents.get(id);
    if (!doc || this.files.get(id)?.trashed)
      throw new HttpError(404, `Requested entity was not found.`, 'notFound');
    return doc;
  }

  private spreadsheetJson(
    book: FakeSpreadsheet,
    ranges: string[] | undefined,
    grid: boolean,
  ): Record<string, unknown> {
    const data = new Map<number, Record<string, unknown>[]>();
    if (grid) {
      for (const range of ranges ?? book.sheets.map((s) => `'${s.title.replace(/'/g, "''")}'!A1:Z`)) {
        const parsed = book.parseA1(range);
        const list = data.get(parsed.sheet.sheetId) ?? [];
        list.push(book.gridData(parsed));
        data.set(parsed.sheet.sheetId, list);
      }
    }
    return {
      spreadsheetId: book.id,
      properties: { title: book.title },
      sheets: book.sheets.map((s, index) => ({
        properties: {
          sheetId: s.sheetId,
          title: s.title,
          index,
          gridProperties: { rowCount: 1000, columnCount: 26, frozenRowCount: s.frozenRowCount },
        },
        ...(data.has(s.sheetId) ? { data: data.get(s.sheetId) } : {}),
      })),
    };
  }

  private sheetsBatchUpdate(id: string, body: Record<string, unknown>): Record<string, unknown> {
    const book = this.spreadsheet(id);
    const known = ['requests', 'includeSpreadsheetInResponse', 'responseRanges', 'responseIncludeGridData'];
    for (const key of Object.keys(body ?? {}))
      if (!known.includes(key)) throw new HttpError(400, `Unknown field ${key}`);
    const requests = body.requests as Record<string, unknown>[];
    if (!Array.isArray(requests) || requests.length === 0)
      throw new HttpError(400, 'Invalid requests: at least one request.');
    const copy = book.clone();
    const replies = requests.map((r) => applySheetRequest(copy, r));
    book.sheets = copy.sheets;
    const response: Record<string, unknown> = { spreadsheetId: id, replies };
    if (body.includeSpreadsheetInResponse) {
      response.updatedSpreadsheet = this.spreadsheetJson(
        book,
        body.responseRanges as string[] | undefined,
        body.responseIncludeGridData === true,
      );
    }
    return response;
  }

  private createFile(body: Partial<FakeFile>): FakeFile {
    for (const key of Object.keys(body ?? {})) {
      if (!['id', 'name', 'mimeType', 'parents', 'appProperties'].includes(key))
        throw new HttpError(400, `files.create: unexpected field ${key}`);
    }
    if (!body.name || !body.mimeType)
      throw new HttpError(400, 'files.create: name and mimeType are required');
    if (body.id !== undefined) {
      if (this.files.has(body.id))
        throw new HttpError(409, 'A file already exists with the provided ID.', 'duplicate');
      if (!this.generated.has(body.id)) throw new HttpError(400, 'The provided file ID is not usable.');
    }
    const parents = body.parents ?? ['root'];
    if (parents.length !== 1)
      throw new HttpError(403, 'Increasing the number of parents is not allowed', 'cannotAddParent');
    const parent = this.files.get(parents[0]!);
    if (!parent || parent.trashed || parent.mimeType !== FOLDER)
      throw new HttpError(404, `File not found: ${parents[0]}.`, 'notFound');
    const at = this.now();
    const file: FakeFile = {
      id: body.id ?? this.newId('1F'),
      name: body.name,
      mimeType: body.mimeType,
      parents,
      trashed: false,
      createdTime: at,
      modifiedTime: at,
      ...(body.appProperties ? { appProperties: body.appProperties } : {}),
    };
    this.files.set(file.id, file);
    if (file.mimeType === DOC) this.documents.set(file.id, new FakeDocument(file.id, file.name));
    if (file.mimeType === SHEET) {
      const book = new FakeSpreadsheet(file.id, file.name);
      book.sheets.push({ sheetId: 0, title: 'Sheet1', frozenRowCount: 0, rows: [] });
      this.spreadsheets.set(file.id, book);
    }
    return file;
  }

  private docsBatchUpdate(id: string, body: Record<string, unknown>): Record<string, unknown> {
    const doc = this.document(id);
    for (const key of Object.keys(body ?? {}))
      if (!['requests', 'writeControl'].includes(key)) throw new HttpError(400, `Unknown field ${key}`);
    const control = body.writeControl as { requiredRevisionId?: string } | undefined;
    if (control?.requiredRevisionId !== undefined && control.requiredRevisionId !== doc.revisionId) {
      throw new HttpError(
        400,
        `The required revision ID ${control.requiredRevisionId} does not match the latest revision.`,
        'failedPrecondition',
      );
    }
    const requests = body.requests as Record<string, Record<string, unknown>>[];
    if (!Array.isArray(requests) || requests.length === 0)
      throw new BadRequest('Invalid requests: at least one request.');
    const work = new FakeDocument(doc.id, doc.title);
    work.units = structuredClone(doc.units);
    work.lists = new Map(doc.lists);
    Object.assign(work, { listCount: (doc as unknown as { listCount: number }).listCount });
    for (const request of requests) {
      const [kind, ...more] = Object.keys(request);
      if (more.length) throw new BadRequest('Invalid requests: one kind per request.');
      const r = request[kind!]!;
      const range = r.range as { startIndex: number; endIndex: number } | undefined;
      const location = r.location as { index: number } | undefined;
      switch (kind) {
        case 'insertText':
          work.insertText(location!.index, r.text as string);
          break;
        case 'deleteContentRange':
          work.deleteContentRange(range!.startIndex, range!.endIndex);
          break;
        case 'updateParagraphStyle':
          work.updateParagraphStyle(
            range!.startIndex,
            range!.endIndex,
            r.paragraphStyle as { namedStyleType?: string },
            r.fields as string,
          );
          break;
        case 'updateTextStyle':
          work.updateTextStyle(
            range!.startIndex,
            range!.endIndex,
            r.textStyle as Record<string, unknown>,
            r.fields as string,
          );
          break;
        case 'createParagraphBullets':
          work.createParagraphBullets(range!.startIndex, range!.endIndex, r.bulletPreset as string);
          break;
        case 'deleteParagraphBullets':
          work.deleteParagraphBullets(range!.startIndex, range!.endIndex);
          break;
        case 'insertTable':
          work.insertTable(location!.index, r.rows as number, r.columns as number);
          break;
        default:
          throw new BadRequest(`Invalid requests: unsupported request ${kind}.`);
      }
    }
    doc.units = work.units;
    doc.lists = work.lists;
    Object.assign(doc, { listCount: (work as unknown as { listCount: number }).listCount });
    doc.revision++;
    const file = this.files.get(id);
    if (file) file.modifiedTime = this.now();
    return {
      documentId: id,
      replies: requests.map(() => ({})),
      writeControl: { requiredRevisionId: doc.revisionId },
    };
  }

  /** A person edits a document in the Docs editor (appends a paragraph). */
  editDocument(id: string, text: string): void {
    const doc = this.documents.get(id)!;
    doc.insertText(doc.units.length, `${text}\n`);
    doc.revision++;
  }
}
