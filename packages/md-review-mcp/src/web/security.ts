import type { IncomingMessage, ServerResponse } from 'node:http';

// The page talks to this server only; nothing else may embed it, script it or reach its API.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), clipboard-read=()');
}

/** The names this server answers to: DNS rebinding puts another name in Host, which is refused. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

/**
 * Why a request must be refused before any route sees it, or undefined to let it through:
 * a foreign Host (DNS rebinding), a foreign Origin or a cross-site fetch (another page in the same
 * browser), or a state-changing API call that is not JSON (a form post cannot forge it).
 */
export function refusal(req: IncomingMessage, port: number): { status: number; reason: string } | undefined {
  const host = req.headers.host?.toLowerCase();
  if (!host || !allowedHosts(port).has(host)) return { status: 421, reason: 'unknown host' };
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedOrigins(port).has(origin.toLowerCase())) {
    return { status: 403, reason: 'foreign origin' };
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || (site === 'same-site' && origin === undefined)) {
    return { status: 403, reason: 'cross-site request' };
  }
  const method = req.method ?? 'GET';
  if (!['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) {
    return { status: 405, reason: 'method not allowed' };
  }
  if (method !== 'GET' && method !== 'HEAD') {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) return { status: 415, reason: 'JSON bodies only' };
  }
  return undefined;
}

/** The bearer token of an API request. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+([A-Za-z0-9_-]+)$/.exec(header) : null;
  return match?.[1];
}
