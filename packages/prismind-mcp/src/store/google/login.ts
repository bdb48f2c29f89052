import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '@mcp-workbench/core/engine';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { oauthClientOf, saveToken, type TokenFile } from './auth.js';
import type { GoogleSettings } from './settings.js';

export interface LoginIo {
  /** Where the URL and progress go (the CLI's stderr: stdout may be piped). */
  say: (text: string) => void;
  /** Open the URL in a browser (skipped with --no-browser). */
  open?: (url: string) => void;
  /** How long to wait for the browser to come back (default 5 minutes). */
  timeoutMs?: number;
}

/** The platform's "open this URL" command; failures are ignored (the URL is printed anyway). */
export function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no browser here: the person copies the URL
  }
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>Prismind</title><h1>${title}</h1><p>${text}</p>`;

/**
 * `prismind-mcp auth login`: the installed-app OAuth flow. A loopback server listens on a free port
 * (never a fixed one: two people or two logins on one machine would collide), the browser is sent to
 * Google's consent page with PKCE and a state value, the code that comes back is exchanged for a refresh
 * token, and token.json is written (owner-only). The MCP server itself never does any of this.
 */
export async function login(settings: GoogleSettings, io: LoginIo): Promise<TokenFile> {
  const client = oauthClientOf(settings);
  if (!client) {
    throw new ToolError(
      'AUTH_REQUIRED',
      `${settings.credentials_file} に OAuth クライアント（デスクトップ アプリ）がありません。`,
      {
        hint: 'In Google Cloud Console: APIs & Services → Credentials → Create credentials → OAuth client ID → Desktop app; download the JSON to that path (or set google.credentials_path), enable the Sheets, Drive and Docs APIs, then run this again.',
        details: { credentials_file: settings.credentials_file },
      },
    );
  }
  const state = randomBytes(16).toString('hex');
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const oauth = new OAuth2Client({
    clientId: client.client_id,
    clientSecret: client.client_secret,
    redirectUri,
    endpoints: { oauth2AuthBaseUrl: client.auth_uri, oauth2TokenUrl: client.token_uri },
  });
  try {
    const { codeVerifier, codeChallenge } = await oauth.generateCodeVerifierAsync();
    const url = oauth.generateAuthUrl({
      access_type: 'offline',
      prompt: 'consent', // a refresh token every time, also for an account that agreed before
      scope: settings.scopes,
      state,
      code_challenge: codeChallenge!,
      code_challenge_method: CodeChallengeMethod.S256,
    });
    io.say(`Google にログインします。ブラウザで次の URL を開いてください:\n${url}\n`);
    io.open?.(url);
    const code = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new ToolError('TIMEOUT', 'ブラウザからの応答がありませんでした。', {
              hint: 'Run the command again and finish the consent in the browser.',
            }),
          ),
        io.timeoutMs ?? 300_000,
      );
      server.on('request', (req, res) => {
        const back = new URL(req.url ?? '/', redirectUri);
        const finish = (status: number, title: string, text: string) => {
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
          res.end(PAGE(title, text));
        };
        if (back.pathname !== '/' || (!back.searchParams.has('code') && !back.searchParams.has('error'))) {
          finish(404, 'Not found', '');
          return;
        }
        if (back.searchParams.get('state') !== state) {
          finish(
            400,
            'ログインできませんでした',
            'state が一致しません。コマンドをもう一度実行してください。',
          );
          return;
        }
        clearTimeout(timer);
        const error = back.searchParams.get('error');
        if (error) {
          finish(400, 'ログインできませんでした', `Google の応答: ${error}`);
          reject(
            new ToolError('AUTH_REQUIRED', `Google がログインを拒否しました（${error}）。`, {
              hint: 'Run the command again and allow access.',
            }),
          );
          return;
        }
        finish(200, 'Prismind: ログインしました', 'このタブを閉じてターミナルに戻ってください。');
        resolve(back.searchParams.get('code')!);
      });
    });
    const { tokens } = await oauth.getToken({ code, codeVerifier, redirect_uri: redirectUri });
    if (!tokens.refresh_token) {
      throw new ToolError('AUTH_REQUIRED', 'Google がリフレッシュトークンを返しませんでした。', {
        hint: 'Remove Prismind from https://myaccount.google.com/permissions and run the command again.',
      });
    }
    const token: TokenFile = {
      type: 'authorized_user',
      client_id: client.client_id,
      client_secret: client.client_secret,
      refresh_token: tokens.refresh_token,
      token_uri: client.token_uri,
      scopes: tokens.scope ? tokens.scope.split(' ') : settings.scopes,
      ...(tokens.access_token ? { access_token: tokens.access_token } : {}),
      ...(tokens.expiry_date ? { expiry_date: tokens.expiry_date } : {}),
    };
    await saveToken(settings.token_file, token);
    io.say(
      `ログインしました。${settings.token_file} に保存しました（スコープ: ${token.scopes!.join(' ')}）。\n`,
    );
    return token;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
