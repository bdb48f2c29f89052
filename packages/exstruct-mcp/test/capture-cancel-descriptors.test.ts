// A sheet-image call cancelled while its thread loads the renderer's code must not leave the module files
// open: Node leaves them open when a thread is terminated mid-load, and a few hundred cancels made the
// server fail every call with EMFILE (a helper's soak test).
import { copyFile, mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callTool, spawnStdioClient, type SpawnedClient } from '@mcp-workbench/core/testing';
import { FIXTURES } from './extract-helpers.js';

const bin = path.join(FIXTURES, '..', '..', 'dist', 'index.js');
let dir: string;
let client: SpawnedClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-capture-cancel-'));
  await copyFile(path.join(FIXTURES, 'gantt_chart__en__sample.xlsx'), path.join(dir, 'gantt.xlsx'));
  client = await spawnStdioClient(process.execPath, [bin, '--root', dir]);
});
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The server's open descriptors on code files (.js, .mjs, .cjs, .wasm, .json). */
async function moduleFiles(pid: number): Promise<string[]> {
  const open: string[] = [];
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (/\.(m?js|cjs|wasm|json)$/.test(target)) open.push(target);
  }
  return open;
}

// /proc is Linux's: elsewhere there is no portable way to list another process's open files.
it.skipIf(process.platform !== 'linux')(
  'leaves no module file open after sheet-image calls cancelled while their code loads',
  async () => {
    const pid = client.pid!;
    for (const delay of [5, 20, 35, 50, 65, 80, 100, 120, 150, 5, 20, 35, 50, 65, 80, 100]) {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), delay);
      await client.client
        .callTool(
          { name: 'exstruct_capture_sheet_images', arguments: { xlsx_path: 'gantt.xlsx', dpi: 72 } },
          undefined,
          { signal: abort.signal },
        )
        .catch(() => undefined);
    }
    // A thread ended for a cancel finishes loading its code first, which takes a while on a busy machine:
    // files still open then are closed within seconds; a leaked one stays open for good.
    let open = await moduleFiles(pid);
    for (let waited = 0; open.length > 0 && waited < 20_000; waited += 250) {
      await sleep(250);
      open = await moduleFiles(pid);
    }
    expect(open).toEqual([]);
    // And the server still draws.
    const drawn = await callTool<{ image_paths: string[] }>(client.client, 'exstruct_capture_sheet_images', {
      xlsx_path: 'gantt.xlsx',
      dpi: 72,
    });
    expect(drawn.isError, drawn.text).toBe(false);
  },
);
