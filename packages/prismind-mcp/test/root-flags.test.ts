/**
 * --root / --deny-glob confine the store: a store outside the roots or under a denied glob is refused at
 * start, a document whose file a glob denies is refused; a mistyped command is not taken as a root.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeText, localBackend, tempDir, type StoreFixture } from './harness.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let store: StoreFixture;
beforeEach(async () => {
  store = await localBackend.create();
});
afterEach(async () => store.cleanup());

/** Runs the bin with stdin closed; resolves to its exit code and stderr. */
async function start(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...store.env },
      timeout: 20_000,
    });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('--root and --deny-glob', () => {
  it('refuse to start when the store lies outside the roots or under a denied glob', async () => {
    const elsewhere = await tempDir('prismind-root-');
    const outside = await start(['--root', elsewhere]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain(`outside --root ${elsewhere}`);
    expect(outside.stderr).toContain(store.home);
    const denied = await start(['--root', store.home, '--deny-glob', '*.md']);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('--deny-glob *.md');
    await rm(elsewhere, { recursive: true, force: true });
  });

  it('refuse a document whose file a deny glob names, and serve the rest', async () => {
    const server = await spawnStdioClient(
      process.execPath,
      [BIN, '--root', store.home, '--deny-glob', 'secret*'],
      {
        env: store.env,
      },
    );
    try {
      const call = (name: string, args: Record<string, unknown>) => callTool(server.client, name, args);
      expect((await call('setup_project', { project: 'p', name: 'P' })).isError).toBe(false);
      const doc = { doc_type: '設計書', content: '本文', phase_task: '共通' };
      expect((await call('create_document', { ...doc, name: 'plain' })).isError).toBe(false);
      const refused = await call('create_document', { ...doc, name: 'secret' });
      expect(refused.isError).toBe(true);
      expect((decodeText(refused.text) as { error: { code: string } }).error.code).toBe('PATH_OUTSIDE_ROOT');
    } finally {
      await server.close();
    }
  });
});

describe('the command line', () => {
  it('answers a mistyped command with the valid ones, not as a root folder', async () => {
    const typo = await start(['exprt', 'foo']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'exprt'");
    expect(typo.stderr).toContain('export, import, init-agents, auth, migrate');
  });
});
