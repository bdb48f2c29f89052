import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Person, workspace } from './helpers.js';

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

/** A stand-in app: records the arguments it was started with, then exits with `code`. */
async function fakeApp(name: string, code: number): Promise<{ bin: string; log: string }> {
  const bin = path.join(ws.root, `${name}.sh`);
  const log = path.join(ws.root, `${name}.log`);
  await writeFile(bin, `#!/bin/sh\necho "$@" >> "${log}"\nexit ${code}\n`);
  await chmod(bin, 0o755);
  return { bin, log };
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
      expect(tools.map((t) => t.name).sort()).toEqual(['review.list', 'review.request', 'session.new-id']);
      const key = (await callTool(session.client, 'session.new-id')).text;
      const pending = JSON.parse((await callTool(session.client, 'review.request', request(key))).text) as {
        status: string;
        url: string;
      };
      expect(pending.status).toBe('pending');
      expect(session.stderr()).toContain(`is waiting for review at ${pending.url}`);
      const person = new Person(pending.url);
      await person.comment(0, 3, 5, 'over stdio', 'must');
      await person.finalize();
      const result = JSON.parse(
        (await callTool(session.client, 'review.request', request(key))).text,
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

  it('opens the app named by MD_REVIEW_APP with the URL, and reports "App launch failed" when it fails', async () => {
    const app = await fakeApp('app', 0);
    const broken = await fakeApp('broken', 1);
    const good = await spawnStdioClient(process.execPath, [BIN, '--root', ws.root, '--wait-seconds', '1'], {
      env: { MD_REVIEW_HOME: ws.home, MD_REVIEW_APP: app.bin },
    });
    try {
      const pending = JSON.parse((await callTool(good.client, 'review.request', request('app-ok'))).text) as {
        url: string;
      };
      expect((await readFile(app.log, 'utf8')).trim()).toBe(pending.url);
    } finally {
      await good.close();
    }
    const bad = await spawnStdioClient(process.execPath, [BIN, '--root', ws.root], {
      env: { MD_REVIEW_HOME: ws.home, MD_REVIEW_APP: broken.bin },
    });
    try {
      const failed = await callTool(bad.client, 'review.request', request('app-broken'));
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
        (await callTool(session.client, 'review.request', request('browser'))).text,
      ) as { url: string };
      const opened = await eventually(async () => (await readFile(browser.log, 'utf8')).trim());
      expect(opened).toBe(pending.url);
    } finally {
      await session.close();
    }
  });
});
