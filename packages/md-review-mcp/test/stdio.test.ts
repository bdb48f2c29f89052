import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chmod, lstat, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, linkIn, Person, workspace } from './helpers.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let ws: Awaited<ReturnType<typeof workspace>>;

beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => ws.cleanup());

const request = (key: string, extra: Record<string, unknown> = {}) => ({
  resume_key: key,
  title: 'stdio',
  root: ws.root,
  files: ['docs/plan.md'],
  working_path: ws.root,
  ...extra,
});

/** Runs the built bin as a command (not as a server) and collects what it prints. */
function runBin(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (error, stdout) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    );
  });
}

/** A stand-in app: records the arguments it was started with, then exits with `code`. */
async function fakeApp(name: string, code: number): Promise<{ bin: string; log: string }> {
  const bin = path.join(ws.root, `${name}.sh`);
  const log = path.join(ws.root, `${name}.log`);
  await writeFile(bin, `#!/bin/sh\necho "$@" >> "${log}"\nexit ${code}\n`);
  await chmod(bin, 0o755);
  return { bin, log };
}

/**
 * The built bin spawned with raw JSON-RPC on its stdin: initialized, then a review_request of `key`
 * that waits without a limit, returned once the person's page shows it waiting.
 */
async function waitingRawServer(key: string) {
  const child = spawn(process.execPath, [BIN, '--root', ws.root, '--no-open'], {
    env: { ...process.env, MD_REVIEW_HOME: ws.home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  await eventually(() => expect(stdout).toContain('"id":1'));
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'review_request', arguments: request(key, { wait_seconds: 0 }) },
  });
  const person = new Person(await eventually(() => linkIn(stderr)));
  await eventually(async () => expect((await person.session()).waiting).toBe(true));
  return { child, stdout: () => stdout, exited, person };
}

/** The child's exit code, or 'still running' (and the child killed) after `ms`. */
async function exitedWithin(child: ChildProcess, exited: Promise<number | null>, ms: number) {
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), ms))]);
  if (code === 'still running') child.kill('SIGKILL');
  return code;
}

describe('md-review-mcp over stdio (the built bin)', () => {
  it('never loads the electron module (its binary cannot be downloaded on every machine)', async () => {
    const dist = path.dirname(BIN);
    const files = (await readdir(dist, { recursive: true })).filter(
      (f) => f.endsWith('.js') && !f.startsWith('ui'),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const code = await readFile(path.join(dist, file), 'utf8');
      expect(code, file).not.toMatch(/from\s*['"]electron['"]|(require|import)\(\s*['"]electron['"]\s*\)/);
    }
  });

  it('--no-open prints the URL to stderr, answers pending after --wait-seconds, and the page works', async () => {
    const env = { MD_REVIEW_HOME: ws.home };
    const session = await spawnStdioClient(
      process.execPath,
      [BIN, '--root', ws.root, '--no-open', '--wait-seconds', '1'],
      { env },
    );
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['review_list', 'review_request', 'session_new_id']);
      const key = (await callTool(session.client, 'session_new_id')).text;
      const pending = JSON.parse((await callTool(session.client, 'review_request', request(key))).text) as {
        status: string;
        url: string;
      };
      expect(pending.status).toBe('pending');
      // The agent gets the page's address; the person's link (with the key) is printed for the person.
      expect(pending.url).not.toContain('#');
      const printed = linkIn(session.stderr());
      expect(printed.startsWith(`${pending.url}#token=`)).toBe(true);
      // `md-review-mcp link` prints the same link in a terminal (SSH, a headless machine).
      const linked = await runBin(['link', '--home', ws.home]);
      expect(linked.code).toBe(0);
      expect(linked.stdout).toContain(`"stdio" (open, ${key})\n  ${printed}`);
      const person = new Person(printed);
      await person.comment(0, 3, 5, 'over stdio', 'must');
      await person.finalize();
      const result = JSON.parse(
        (await callTool(session.client, 'review_request', request(key))).text,
      ) as Record<string, unknown>;
      expect(result).toMatchObject({
        verdict: 'commented',
        inline_comments: [{ file: path.join('docs', 'plan.md'), range: { startLine: 3, endLine: 5 } }],
      });
      const stored = JSON.parse(await readFile(path.join(ws.home, 'sessions', `${key}.json`), 'utf8')) as {
        status: string;
      };
      expect(stored.status).toBe('finalized');
    } finally {
      await session.close();
    }
  });

  it('ends when the client goes away while a call waits without a limit (stdin closed)', async () => {
    const { child, stdout, exited, person } = await waitingRawServer('client-gone');
    child.stdin.end(); // the client is gone; no signal is sent
    expect(await exitedWithin(child, exited, 5000)).toBe(0);
    // The waiting call was answered before the end.
    expect(
      stdout()
        .split('\n')
        .find((line) => line.includes(`"id":2`)),
    ).toContain(`\\"status\\":\\"pending\\"`);
    await expect(person.session()).rejects.toThrow(); // the page's server is gone too
    // The session is kept: the lock is gone, the review resumes from another process.
    expect(await readdir(path.join(ws.home, 'sessions'))).toContain('client-gone.json');
    expect(await readdir(path.join(ws.home, 'sessions'))).not.toContain('client-gone.lock');
  });

  it('ends when its session lock was swapped for a pipe, and leaves the pipe alone', async () => {
    const { child, exited } = await waitingRawServer('lock-swapped');
    const lock = path.join(ws.home, 'sessions', 'lock-swapped.lock');
    await rm(lock);
    execFileSync('mkfifo', [lock]); // opening it to read would wait for a writer forever
    child.stdin.end();
    expect(await exitedWithin(child, exited, 5000)).toBe(0);
    expect((await lstat(lock)).isFIFO()).toBe(true);
  });

  it('opens the app named by MD_REVIEW_APP with the URL, and reports "App launch failed" when it fails', async () => {
    const app = await fakeApp('app', 0);
    const broken = await fakeApp('broken', 1);
    const good = await spawnStdioClient(process.execPath, [BIN, '--root', ws.root, '--wait-seconds', '1'], {
      env: { MD_REVIEW_HOME: ws.home, MD_REVIEW_APP: app.bin },
    });
    try {
      const pending = JSON.parse((await callTool(good.client, 'review_request', request('app-ok'))).text) as {
        url: string;
      };
      // The app gets the person's link, the agent only the page's address.
      expect((await readFile(app.log, 'utf8')).trim()).toBe(linkIn(good.stderr()));
      expect(linkIn(good.stderr()).startsWith(`${pending.url}#token=`)).toBe(true);
    } finally {
      await good.close();
    }
    const bad = await spawnStdioClient(process.execPath, [BIN, '--root', ws.root], {
      env: { MD_REVIEW_HOME: ws.home, MD_REVIEW_APP: broken.bin },
    });
    try {
      const failed = await callTool(bad.client, 'review_request', request('app-broken'));
      expect(failed.error).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: expect.stringMatching(
          /^App launch failed: MD_REVIEW_APP app .*broken\.sh: .*exited with 1\. The review is open at http/,
        ),
      });
      expect(bad.stderr()).toContain('open http://127.0.0.1:');
    } finally {
      await bad.close();
    }
  });

  it('falls back to the default browser (xdg-open honours $BROWSER) when there is no desktop app', async () => {
    const browser = await fakeApp('browser', 0);
    const session = await spawnStdioClient(
      process.execPath,
      [BIN, '--root', ws.root, '--wait-seconds', '1'],
      {
        env: {
          MD_REVIEW_HOME: ws.home,
          MD_REVIEW_APP: '',
          BROWSER: browser.bin,
          PATH: '/usr/bin:/bin',
          DISPLAY: '',
        },
      },
    );
    try {
      const pending = JSON.parse(
        (await callTool(session.client, 'review_request', request('browser'))).text,
      ) as { url: string };
      const opened = await eventually(async () => (await readFile(browser.log, 'utf8')).trim());
      expect(opened).toBe(linkIn(session.stderr()));
      expect(opened.startsWith(`${pending.url}#token=`)).toBe(true);
    } finally {
      await session.close();
    }
  });
});
