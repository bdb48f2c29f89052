import { docs_v1 } from '@googleapis/docs';
import { drive_v3 } from '@googleapis/drive';
import { sheets_v4 } from '@googleapis/sheets';
import { currentCallSignal, ToolError, type Logger } from '@mcp-workbench/core/engine';
import type { OAuth2Client } from 'google-auth-library';
import type { GoogleSettings } from './settings.js';

/** What a Google API call failed with, as far as retrying and the user's next step are concerned. */
export interface ApiFailure {
  status: number | undefined;
  reason: string;
  message: string;
}

export function failureOf(error: unknown): ApiFailure {
  const e = error as {
    status?: number;
    code?: string | number;
    message?: string;
    response?: { status?: number; data?: { error?: { message?: string; status?: string } | string } };
  };
  const status = e.response?.status ?? (typeof e.status === 'number' ? e.status : undefined);
  const data = e.response?.data?.error;
  const reason =
    typeof data === 'object' && data?.status ? data.status : typeof e.code === 'string' ? e.code : '';
  const message = (typeof data === 'object' ? data?.message : data) ?? e.message ?? String(error);
  return { status, reason, message };
}

const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

/** 429 and 5xx are the service asking to come back later; a dropped connection is the same. */
export function isRetryable(failure: ApiFailure): boolean {
  if (failure.status === undefined)
    return NETWORK.has(failure.reason) || /timeout|socket hang up/i.test(failure.message);
  return failure.status === 429 || failure.status >= 500;
}

function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { response?: { headers?: unknown } }).response?.headers;
  // gaxios hands over a fetch Headers object, not always this realm's `Headers` class: test for `get`.
  const value =
    typeof (headers as Headers | undefined)?.get === 'function'
      ? (headers as Headers).get('retry-after')
      : (headers as Record<string, string> | undefined)?.['retry-after'];
  const seconds = value === null || value === undefined ? NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** Waits `ms`, or less if the call is cancelled meanwhile (the loop then stops before its next try). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A cancelled call stops retrying: the request that failed saved nothing, so nothing is half done. */
function stopIfCancelled(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted)
    throw new ToolError(
      'CANCELLED',
      `キャンセルされました（${what}: Google への再試行を中止、この要求は保存されていません）。`,
    );
}

/** The auth problems a person fixes with `prismind-mcp auth login` (or by widening the scopes). */
function authError(failure: ApiFailure, what: string): ToolError | undefined {
  if (/invalid_grant|invalid_client|unauthorized_client/.test(failure.message)) {
    return new ToolError(
      'AUTH_REQUIRED',
      `Google が認証情報を受け付けませんでした（${what}: ${failure.message}）。`,
      {
        hint: 'Run `prismind-mcp auth login` again (the refresh token expired or was revoked).',
      },
    );
  }
  if (failure.status === 401) {
    return new ToolError('AUTH_REQUIRED', `Google の認証に失敗しました（${what}）。`, {
      hint: 'Run `prismind-mcp auth login` again.',
    });
  }
  if (failure.status === 403 && /scope|insufficient/i.test(failure.message)) {
    return new ToolError(
      'AUTH_REQUIRED',
      `Google の権限（スコープ）が足りません（${what}: ${failure.message}）。`,
      {
        hint: 'Add the scope the operation needs to google.scopes in config.toml (see the README), then run `prismind-mcp auth login` again.',
      },
    );
  }
  return undefined;
}

/**
 * The three official clients, pointed at `google.api_url` when set (a proxy or the tests' fake), with
 * one call wrapper: 429/5xx and dropped connections are retried with exponential backoff and full jitter
 * (Retry-After honoured) until `google.max_retry_seconds` have passed; then BACKEND_UNAVAILABLE. The
 * clients' own retry is off, so every HTTP request is one this wrapper made and counted.
 */
export class GoogleApi {
  readonly sheets: sheets_v4.Sheets;
  readonly drive: drive_v3.Drive;
  readonly docs: docs_v1.Docs;
  /** HTTP requests made to the APIs (not counting token refreshes), for logs and the benchmark. */
  requests = 0;

  constructor(
    auth: OAuth2Client,
    private readonly settings: GoogleSettings,
    private readonly logger: Logger,
  ) {
    const options = {
      auth,
      retry: false,
      timeout: settings.request_timeout_ms,
      ...(settings.api_url ? { rootUrl: settings.api_url } : {}),
    };
    this.sheets = new sheets_v4.Sheets(options);
    this.drive = new drive_v3.Drive(options);
    this.docs = new docs_v1.Docs(options);
  }

  /**
   * Runs one API request, retrying what the service asks to retry. `what` names the operation in
   * errors ("reading the progress sheet"). Non-retryable failures are thrown as they came (callers map
   * 404 and 400 to their own errors); auth failures become AUTH_REQUIRED.
   */
  async call<T>(what: string, request: () => Promise<{ data: T }>): Promise<T> {
    const started = Date.now();
    const budget = this.settings.max_retry_seconds * 1000;
    // The tool call's signal (client cancel, disconnect, shutdown): a request in flight is left to
    // finish, because its answer may already be saved on Google's side; only the retries stop.
    const signal = currentCallSignal();
    for (let attempt = 0; ; attempt++) {
      stopIfCancelled(signal, what);
      this.requests++;
      try {
        return (await request()).data;
      } catch (error) {
        const failure = failureOf(error);
        const auth = authError(failure, what);
        if (auth) throw auth;
        if (!isRetryable(failure)) throw error;
        const cap = Math.min(this.settings.retry_initial_delay_ms * 2 ** attempt, 16_000);
        const wait = Math.max(retryAfterMs(error) ?? 0, Math.random() * cap);
        const elapsed = Date.now() - started;
        if (elapsed + wait > budget) {
          throw new ToolError(
            'BACKEND_UNAVAILABLE',
            `Google API が応答しません（${what}: ${failure.status ?? failure.reason} ${failure.message}; ${attempt + 1}回試行、${Math.round(elapsed / 1000)}秒）。`,
            {
              hint: 'The service is rate-limiting or failing; try again in a minute (google.max_retry_seconds sets how long each request is retried).',
              details: { status: failure.status ?? null, attempts: attempt + 1 },
              cause: error,
            },
          );
        }
        this.logger.debug(
          `Google API ${what}: ${failure.status ?? failure.reason}; retry ${attempt + 1} in ${Math.round(wait)} ms`,
        );
        await pause(wait, signal);
      }
    }
  }
}

export function isNotFound(error: unknown): boolean {
  return failureOf(error).status === 404;
}
