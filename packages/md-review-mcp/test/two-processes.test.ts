// Issue 24 item 2: one session, two server processes sharing MD_REVIEW_HOME (an agent found the key
// through review_list of another process). One owner at a time: the second asks the first to hand the
// session over; no comment either page accepted is lost, and the old page is told it moved.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, http, linkIn, Person, workspace } from './helpers.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let ws: Awaited<ReturnType<typeof workspace>>;
const started: SpawnedClient[] = [];

beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => {
  for (const server of started) await server.close().catch(() => undefined);
  await ws.cleanup();
});

const spawnServer = async () => {
  const server = await spawnStdioClient(process.execPath, [BIN, '--root', ws.root, '--no-open'], {
    env: { MD_REVIEW_HOME: ws.home },
  });
  started.push(server);
  return server;
};

const request = (key: string, extra: Record<string, unknown> = {}) => ({
  resume_key: key,
  title: 'Two processes',
  root: ws.root,
  files: ['docs/plan.md'],
  working_path: ws.root,
  ...extra,
});

/** Posts a comment from a page; answers the HTTP status (200 = accepted). */
async function commentFrom(person: Person, text: string): Promise<number> {
  const reply = await http(
    person.port,
    'POST',
    `/api/sessions/${person.key}/global-comments`,
    { Authorization: `Bearer ${person.token}`, 'Content-Type': 'application/json' },
    { comment: text },
  );
  return reply.status;
}

describe('one session in two server processes', () => {
  it('hands the session over: every accepted comment reaches the answer, the old page is refused', async () => {
    const a = await spawnServer();
    const b = await spawnServer();
    const key = 'shared-session';

    // Process A serves the review; its agent waits without a limit.
    const waitingInA = callTool(a.client, 'review_request', request(key, { wait_seconds: 0 }));
    const pageA = new Person(await eventually(() => linkIn(a.stderr())));
    const accepted: string[] = [];
    expect(await commentFrom(pageA, 'from page A, before')).toBe(200);
    accepted.push('from page A, before');

    // Another agent finds the key through review_list of process B and asks B for the review.
    const listed = JSON.parse((await callTool(b.client, 'review_list', {})).text) as {
      sessions: Array<{ resume_key: string; url?: string }>;
    };
    expect(listed.sessions.map((s) => s.resume_key)).toContain(key);
    const pendingInB = JSON.parse(
      (await callTool(b.client, 'review_request', request(key, { wait_seconds: 2 }))).text,
    ) as { status: string };

    // A's waiting call is told another call took over; A's page may no longer write.
    const outcomeA = await waitingInA;
    expect(outcomeA.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/^Taken over/) });
    const late = await commentFrom(pageA, 'from page A, after the handover');
    expect(late).toBe(410); // refused and said so: the person keeps the text, nothing is silently dropped
    if (late === 200) accepted.push('from page A, after the handover');

    // B's page has what A's page saved, and takes more.
    const pageB = new Person(await eventually(() => linkIn(b.stderr())));
    expect(pageB.port).not.toBe(pageA.port);
    expect(await commentFrom(pageB, 'from page B')).toBe(200);
    accepted.push('from page B');
    await pageB.finalize();
    expect(pendingInB.status).toBe('pending');
    const result = JSON.parse((await callTool(b.client, 'review_request', request(key))).text) as {
      verdict: string;
      global_comments: Array<{ comment: string }>;
    };
    expect(result.verdict).toBe('commented');
    expect(result.global_comments.map((c) => c.comment)).toEqual(accepted);
    const stored = JSON.parse(await readFile(path.join(ws.home, 'sessions', `${key}.json`), 'utf8')) as {
      global_comments: Array<{ comment: string }>;
    };
    expect(stored.global_comments.map((c) => c.comment)).toEqual(accepted);

    // A process killed while it owns a session leaves a stale lock, which the next one takes over.
    const other = 'killed-owner';
    await callTool(a.client, 'review_request', request(other, { wait_seconds: 1 }));
    const lock = JSON.parse(await readFile(path.join(ws.home, 'sessions', `${other}.lock`), 'utf8')) as {
      pid: number;
    };
    process.kill(lock.pid, 'SIGKILL');
    await eventually(() => expect(() => process.kill(lock.pid, 0)).toThrow());
    const resumed = await callTool(b.client, 'review_request', request(other, { wait_seconds: 1 }));
    expect(JSON.parse(resumed.text)).toMatchObject({ status: 'pending' });
  });
});
