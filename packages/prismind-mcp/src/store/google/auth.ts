import { existsSync, readFileSync } from 'node:fs';
import { ToolError, writeFileAtomic, type Logger } from '@mcp-workbench/core/engine';
import { GoogleAuth, JWT, OAuth2Client, type Credentials } from 'google-auth-library';
import type { GetTokenResponse } from 'google-auth-library/build/src/auth/oauth2client.js';
import type { GoogleSettings } from './settings.js';

/** token.json as `prismind-mcp auth login` writes it (Google's `authorized_user` format, plus a cache). */
export interface TokenFile {
  type: 'authorized_user';
  client_id: string;
  client_secret: string;
  refresh_token: string;
  /** The OAuth client's token endpoint (from credentials.json); Google's when absent. */
  token_uri?: string;
  /** The scopes granted at login. */
  scopes?: string[];
  /** The last access token and its expiry (ms since epoch): a new server process reuses it. */
  access_token?: string;
  expiry_date?: number;
}

/** credentials.json of an installed-app (desktop) OAuth client, as the Cloud Console downloads it. */
export interface OAuthClientFile {
  client_id: string;
  client_secret: string;
  auth_uri: string;
  token_uri: string;
}

export const LOGIN_COMMAND = 'prismind-mcp auth login';

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ToolError('CONFIG_INVALID', `${file} cannot be read as JSON (${(error as Error).message}).`, {
      hint: `Replace it with the file Google gave you, or run \`${LOGIN_COMMAND}\` again.`,
      details: { file },
    });
  }
}

/** The installed-app client of credentials.json, or undefined when the file is something else. */
export function oauthClientOf(settings: GoogleSettings): OAuthClientFile | undefined {
  if (!existsSync(settings.credentials_file)) return undefined;
  const json = readJson(settings.credentials_file);
  const client = (json.installed ?? json.web) as Partial<OAuthClientFile> | undefined;
  if (!client?.client_id || !client.client_secret) return undefined;
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    auth_uri: client.auth_uri ?? 'https://accounts.google.com/o/oauth2/auth',
    token_uri: client.token_uri ?? 'https://oauth2.googleapis.com/token',
  };
}

export function noCredentials(settings: GoogleSettings): ToolError {
  return new ToolError(
    'AUTH_REQUIRED',
    `Google の認証情報がありません（${settings.token_file} も、サービスアカウントの鍵も見つかりません）。`,
    {
      hint:
        `Run \`${LOGIN_COMMAND}\` once (it needs an OAuth client for a desktop app saved as ${settings.credentials_file}), ` +
        'or set google.credentials_path to a service-account key, or GOOGLE_APPLICATION_CREDENTIALS for Application Default Credentials.',
      details: { token_file: settings.token_file, credentials_file: settings.credentials_file },
    },
  );
}

/** A signal that never aborts, for writes that must outlive the tool call they happen in. */
const NEVER = new AbortController().signal;

/**
 * Writes token.json atomically, readable by its owner only. Even when the tool call whose request
 * refreshed the token is cancelled: the refresh has retired the old token, which is all the file has.
 */
export async function saveToken(file: string, token: TokenFile): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(token, null, 2)}\n`, {
    mode: 0o600,
    keepMode: false,
    signal: NEVER,
  });
}

/**
 * google-auth-library emits a rotated refresh token ('tokens') but then keeps refreshing with the old one
 * (it copies its stored refresh_token over the answer). Where the server rotates, the old one stops
 * working: this client refreshes with the newest token it was given. Several server processes share
 * token.json (each MCP client starts its own): when one has rotated the token, another's refresh fails
 * with invalid_grant, and it takes the newer token from the file and tries once more.
 */
class RotatingOAuth2Client extends OAuth2Client {
  private latestRefreshToken: string | undefined;
  tokenFile = '';

  protected override async refreshToken(refreshToken?: string | null): Promise<GetTokenResponse> {
    const used = this.latestRefreshToken ?? refreshToken;
    let answer: GetTokenResponse;
    try {
      answer = await super.refreshToken(used);
    } catch (error) {
      const fromFile = invalidGrant(error) ? this.refreshTokenInFile() : undefined;
      if (!fromFile || fromFile === used) throw error;
      answer = await super.refreshToken(fromFile);
      this.latestRefreshToken = fromFile;
    }
    if (answer.tokens.refresh_token) this.latestRefreshToken = answer.tokens.refresh_token;
    return answer;
  }

  private refreshTokenInFile(): string | undefined {
    try {
      const token = JSON.parse(readFileSync(this.tokenFile, 'utf8')) as Partial<TokenFile>;
      return token.refresh_token;
    } catch {
      return undefined;
    }
  }
}

function invalidGrant(error: unknown): boolean {
  const e = error as { message?: string; response?: { data?: unknown } };
  return /invalid_grant/.test(`${e.message ?? ''} ${JSON.stringify(e.response?.data ?? '')}`);
}

function userClient(settings: GoogleSettings, logger: Logger, writes: Set<Promise<void>>): OAuth2Client {
  const token = readJson(settings.token_file) as Partial<TokenFile>;
  if (!token.refresh_token || !token.client_id || !token.client_secret) {
    throw new ToolError('AUTH_REQUIRED', `${settings.token_file} has no refresh token.`, {
      hint: `Run \`${LOGIN_COMMAND}\` again.`,
    });
  }
  const missing = settings.scopes.filter((s) => token.scopes && !token.scopes.includes(s));
  if (missing.length > 0) {
    throw new ToolError('AUTH_REQUIRED', `token.json was granted fewer scopes than google.scopes asks for.`, {
      hint: `Run \`${LOGIN_COMMAND}\` again to grant ${missing.join(', ')}.`,
      details: { missing },
    });
  }
  const client = new RotatingOAuth2Client({
    clientId: token.client_id,
    clientSecret: token.client_secret,
    // The access token cached in token.json can be revoked or judged expired by a skewed clock: a 401
    // then refreshes once and retries, instead of trusting the stored expiry.
    forceRefreshOnFailure: true,
    ...(token.token_uri ? { endpoints: { oauth2TokenUrl: token.token_uri } } : {}),
  });
  client.tokenFile = settings.token_file;
  client.setCredentials({
    refresh_token: token.refresh_token,
    ...(token.access_token ? { access_token: token.access_token, expiry_date: token.expiry_date ?? 0 } : {}),
  });
  let current = { ...token } as TokenFile;
  let written: TokenFile | undefined;
  let queue: Promise<void> = Promise.resolve();
  // A refresh may rotate the refresh token: keep the new one (the old may stop working), and the new
  // access token so the next process does not refresh again. One write at a time, each of the newest
  // token: two writes at once could rename an older, already retired token into place last.
  client.on('tokens', (tokens: Credentials) => {
    current = {
      ...current,
      ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
      ...(tokens.access_token ? { access_token: tokens.access_token } : {}),
      ...(tokens.expiry_date ? { expiry_date: tokens.expiry_date } : {}),
    };
    const write = queue
      .then(async () => {
        if (written === current) return; // a write queued earlier already saved this one
        const saving = current;
        await saveToken(settings.token_file, saving);
        written = saving;
      })
      .catch((error: unknown) => logger.warn(`Could not update ${settings.token_file}`, error))
      .finally(() => writes.delete(write));
    queue = write;
    writes.add(write);
  });
  return client;
}

function serviceAccount(settings: GoogleSettings, json: Record<string, unknown>): OAuth2Client {
  // A self-signed JWT with the scopes is the access token: no token endpoint round trip at all.
  const client = new JWT({
    email: json.client_email as string,
    key: json.private_key as string,
    ...(typeof json.private_key_id === 'string' ? { keyId: json.private_key_id } : {}),
    scopes: settings.scopes,
  });
  client.useJWTAccessWithScope = true;
  return client;
}

export interface LoadedAuth {
  client: OAuth2Client;
  /** "token.json (OAuth)", "service account x@y", "Application Default Credentials". */
  description: string;
  /** Waits for token.json updates still being written (call before the process or store goes away). */
  settle(): Promise<void>;
}

/**
 * The credentials the server uses, in this order: token.json from `auth login`; a service-account key at
 * google.credentials_path; Application Default Credentials when GOOGLE_APPLICATION_CREDENTIALS names a
 * file. Nothing here touches the network or a browser: tokens are fetched on the first request.
 */
export async function loadAuth(settings: GoogleSettings, logger: Logger): Promise<LoadedAuth> {
  const writes = new Set<Promise<void>>();
  const settle = async () => {
    while (writes.size > 0) await Promise.all([...writes]);
  };
  if (existsSync(settings.token_file)) {
    return {
      client: userClient(settings, logger, writes),
      description: `${settings.token_file} (OAuth)`,
      settle,
    };
  }
  if (existsSync(settings.credentials_file)) {
    const json = readJson(settings.credentials_file);
    if (json.type === 'service_account') {
      return {
        client: serviceAccount(settings, json),
        description: `service account ${String(json.client_email)}`,
        settle,
      };
    }
  }
  const adc = settings.adc_file;
  if (adc) {
    const auth = new GoogleAuth({ keyFile: adc, scopes: settings.scopes });
    const client = await auth.getClient();
    if (client instanceof JWT) client.useJWTAccessWithScope = true;
    return {
      client: client as OAuth2Client,
      description: `Application Default Credentials (${adc})`,
      settle,
    };
  }
  throw noCredentials(settings);
}
