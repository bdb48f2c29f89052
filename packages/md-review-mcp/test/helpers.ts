import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory, type TestClient } from '@mcp-workbench/core/testing';
import type { Launcher } from '../src/launch/launcher.js';
import { createServer, type MdReviewServerOptions } from '../src/server.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

/** A private copy of the fixtures (tests edit files) and an empty session home. */
export async function workspace(): Promise<{ root: string; home: string; cleanup(): Promise<void> }> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'md-review-test-')));
  const root = path.join(base, 'project');
  await cp(FIXTURES, root, { recursive: true });
  return { root, home: path.join(base, 'home'), cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** A launcher that records the URLs it was asked to show (or fails, when told to). */
export class RecordingLauncher implements Launcher {
  readonly opened: string[] = [];
  failWith: string | undefined;
  async open(url: string) {
    if (this.failWith) throw new Error(this.failWith);
    this.opened.push(url);
    return { via: 'browser' as const, detail: 'test' };
  }
}

export interface Connected extends TestClient {
  launcher: RecordingLauncher;
  /** What the server printed for the person at the terminal (stderr in the bin). */
  announced: string[];
  /** The person's link of the newest review the server announced (the one the agent never gets). */
  personalLink(): string;
  call: (name: string, args?: Record<string, unknown>) => ReturnType<typeof callTool>;
}

export async function connect(
  root: string,
  home: string,
  options: Partial<MdReviewServerOptions> = {},
): Promise<Connected> {
  const launcher = (options.launcher as RecordingLauncher | undefined) ?? new RecordingLauncher();
  const paths = await PathPolicy.create({ roots: [root] });
  const announced: string[] = [];
  const server = createServer({
    paths,
    home,
    launcher,
    waitSeconds: 0,
    progressIntervalMs: 10_000,
    announce: (line) => announced.push(line),
    ...options,
  });
  const client = await connectInMemory(server);
  return {
    ...client,
    launcher,
    announced,
    personalLink: () => linkIn(announced.join('\n')),
    call: (name, args = {}) => callTool(client.client, name, args),
  };
}

/** The newest person's link in what the server printed ("… is waiting for review at <url>"). */
export function linkIn(printed: string): string {
  const links = [...printed.matchAll(/is waiting for review at (\S+)/g)].map((m) => m[1]!);
  if (links.length === 0) throw new Error('no review link printed yet');
  return links[links.length - 1]!;
}

/** The tool's answer, decoded from its text block (JSON), whatever core does with structuredContent. */
export function answer<T = Record<string, unknown>>(outcome: { text: string; isError: boolean }): T {
  if (outcome.isError) throw new Error(`tool failed: ${outcome.text}`);
  return JSON.parse(outcome.text) as T;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: <T = Record<string, unknown>>() => T;
}

/** A raw HTTP request to 127.0.0.1 with full control of the headers (Host included). */
export function http(
  port: number,
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<HttpReply> {
  const data =
    body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        headers: {
          Host: `127.0.0.1:${port}`,
          ...headers,
          ...(data ? { 'Content-Length': String(data.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Plays the person through the page's JSON API, from the URL the server printed. */
export class Person {
  readonly port: number;
  readonly key: string;
  readonly token: string;

  constructor(url: string) {
    const parsed = new URL(url);
    this.port = Number(parsed.port);
    this.key = decodeURIComponent(parsed.pathname.split('/')[2]!);
    this.token = new URLSearchParams(parsed.hash.slice(1)).get('token')!;
  }

  async send<T = Record<string, unknown>>(method: string, rest: string, body?: unknown): Promise<T> {
    const reply = await http(
      this.port,
      method,
      `/api/sessions/${this.key}${rest}`,
      { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body ?? (method === 'GET' ? undefined : {}),
    );
    if (reply.status !== 200) throw new Error(`${method} ${rest}: ${reply.status} ${reply.body}`);
    return reply.json<T>();
  }

  session() {
    return this.send<{
      status: string;
      files: Array<{ index: number; file: string }>;
      inline_comments: unknown[];
      revision: number;
      waiting: boolean;
    }>('GET', '');
  }

  file(index: number) {
    return this.send<{ text: string; fileContentHash: string; lineCount: number }>('GET', `/files/${index}`);
  }

  comment(fileIndex: number, startLine: number, endLine: number, comment: string, severity = 'must') {
    return this.send<{ value: { id: string } }>('POST', '/comments', {
      fileIndex,
      startLine,
      endLine,
      comment,
      severity,
    });
  }

  global(comment: string) {
    return this.send<{ value: { id: string } }>('POST', '/global-comments', { comment });
  }

  reviewed(index: number, reviewed = true) {
    return this.send('PUT', `/files/${index}/reviewed`, { reviewed });
  }

  finalize(overall?: string) {
    return this.send('POST', '/finalize', overall === undefined ? {} : { overall_comment: overall });
  }

  cancel() {
    return this.send('POST', '/cancel', {});
  }
}

/** Waits until `check` passes (polling), for steps that happen on another connection. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
