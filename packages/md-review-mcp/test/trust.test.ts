// Issue 24 item 1: the review belongs to the person. Nothing an agent gets from the tools (answers,
// errors, progress, review_list) lets it finalize, cancel or comment in the person's name; the person
// still gets the link (the window the server opens, the client's URL prompt, stderr).
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import {
  answer,
  connect,
  eventually,
  http,
  Person,
  RecordingLauncher,
  workspace,
  type Connected,
} from './helpers.js';

let ws: Awaited<ReturnType<typeof workspace>>;
let mcp: Connected;

beforeEach(async () => {
  ws = await workspace();
  mcp = await connect(ws.root, ws.home, { progressIntervalMs: 50 });
});
afterEach(async () => {
  await mcp.close();
  await ws.cleanup();
});

const args = (key: string, extra: Record<string, unknown> = {}) => ({
  resume_key: key,
  title: 'Trust',
  root: ws.root,
  files: ['docs/plan.md'],
  working_path: ws.root,
  ...extra,
});

/** Every URL and every secret-looking string in what the agent saw. */
function candidates(seen: string[]): { ports: number[]; secrets: string[] } {
  const text = seen.join('\n');
  const ports = [...text.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
  const secrets = [...text.matchAll(/[A-Za-z0-9_-]{20,}/g)].map((m) => m[0]);
  return { ports: [...new Set(ports)], secrets: [...new Set(secrets)] };
}

describe('what the agent sees cannot act for the person', () => {
  it('no answer, error, progress message or listing carries a key that finalizes, cancels or comments', async () => {
    const seen: string[] = [];
    // A review the agent waits on (pending answer, progress), then lists.
    const pending = await mcp.client.callTool(
      { name: 'review_request', arguments: args('trust-a', { wait_seconds: 1 }) },
      undefined,
      {
        onprogress: (p) => seen.push(p.message ?? ''),
      },
    );
    seen.push(JSON.stringify(pending));
    seen.push((await mcp.call('review_list', {})).text);
    // A review whose window could not be opened ("App launch failed" with its hint and details).
    mcp.launcher.failWith = 'xdg-open exited with 3';
    const failed = await mcp.call('review_request', args('trust-b'));
    expect(failed.error?.code).toBe('BACKEND_UNAVAILABLE');
    seen.push(failed.text, JSON.stringify(failed.error));
    expect(seen.join('\n')).toContain('/review/trust-a');

    const { ports, secrets } = candidates(seen);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) {
      for (const key of ['trust-a', 'trust-b']) {
        for (const secret of secrets) {
          for (const [method, rest, body] of [
            ['POST', '/finalize', {}],
            ['POST', '/cancel', {}],
            ['POST', '/global-comments', { comment: 'forged' }],
            [
              'POST',
              '/comments',
              { fileIndex: 0, startLine: 1, endLine: 1, comment: 'forged', severity: 'must' },
            ],
          ] as const) {
            const reply = await http(
              port,
              method,
              `/api/sessions/${key}${rest}`,
              { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
              body,
            );
            expect(reply.status, `${method} ${rest} with ${secret.slice(0, 8)}…`).toBe(403);
          }
        }
      }
    }
    // The person's own link (the window the server opened) still works, and nothing was forged.
    const person = new Person(mcp.launcher.opened[0]!);
    expect(await person.session()).toMatchObject({ status: 'open', inline_comments: [] });
    await person.finalize();
    expect(answer(await mcp.call('review_request', args('trust-a')))).toMatchObject({
      verdict: 'approved',
      global_comments: [],
    });
  });

  it("a client that can show URLs (URL-mode elicitation) gets the person's link for its user, not in the answer", async () => {
    const launcher = new RecordingLauncher();
    launcher.failWith = 'no display';
    const paths = await PathPolicy.create({ roots: [ws.root] });
    const server = createServer({
      paths,
      home: path.join(ws.home, 'elicit'),
      launcher,
      waitSeconds: 0,
      announce: () => undefined,
    });
    const client = new Client(
      { name: 'url-client', version: '0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    const shown: Array<{ url: string; message: string }> = [];
    client.setRequestHandler(ElicitRequestSchema, (request: { params: unknown }) => {
      const params = request.params as { url: string; message: string };
      shown.push({ url: params.url, message: params.message });
      return { action: 'accept' };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    try {
      // The window could not be opened, but the client shows the link: the call waits instead of failing.
      const pending = answer<{ status: string; url: string }>(
        await callTool(client, 'review_request', args('elicited', { wait_seconds: 1 })),
      );
      expect(pending.status).toBe('pending');
      expect(pending.url).not.toContain('token');
      expect(shown).toHaveLength(1);
      expect(shown[0]!.message).toContain('Trust');
      expect(shown[0]!.url.startsWith(`${pending.url}#token=`)).toBe(true);
      const person = new Person(shown[0]!.url);
      await person.comment(0, 1, 1, 'from the link the client showed');
      await callTool(client, 'review_request', args('elicited', { wait_seconds: 1 }));
      expect(shown).toHaveLength(1); // offered once per session, not at every call
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("the page's address alone reads nothing: the session API refuses it without the person's key", async () => {
    const call = mcp.call('review_request', args('trust-c', { wait_seconds: 1 }));
    const pending = answer<{ url: string }>(await call);
    const url = new URL(pending.url);
    expect(url.hash).toBe('');
    const page = await http(Number(url.port), 'GET', url.pathname);
    expect(page.status).toBe(200); // the page explains where the link is (see e2e)
    const session = await http(Number(url.port), 'GET', `/api/sessions/trust-c`);
    expect(session.status).toBe(403);
    await eventually(() => expect(mcp.personalLink()).toContain('#token='));
  });
});
