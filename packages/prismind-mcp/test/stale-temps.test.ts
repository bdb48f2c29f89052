/** Temp files a killed writer left beside the documents are removed at start; a live writer's never. */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, localBackend, type StoreFixture } from './harness.js';

let store: StoreFixture;
beforeEach(async () => {
  store = await localBackend.create();
});
afterEach(async () => {
  await store.cleanup();
});

describe('temp files left by an interrupted write', () => {
  it('are removed when their writer is gone or they are old, kept while it runs', async () => {
    const dir = path.join(store.home, 'Projects', 'Kill', '仕様書');
    await mkdir(dir, { recursive: true });
    // A pid that ran and is gone: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const dead = `.大文書4.md.${gone}.2a70cb75e4.tmp`;
    // Its pid runs nowhere here, but it is seconds old: maybe a writer in another container.
    const fresh = `.大文書7.md.${gone}.5a5a5a5a5a.tmp`;
    const live = `.大文書5.md.${process.ppid}.0123456789.tmp`;
    const old = `.大文書6.md.${process.ppid}.abcdefabcd.tmp`;
    const other = `.memo.md.${gone}.tmp`; // not the writer's pattern: a person's file
    for (const name of [dead, fresh, live, old, other]) await writeFile(path.join(dir, name), 'x');
    const minutes = new Date(Date.now() - 2 * 60 * 1000);
    await utimes(path.join(dir, dead), minutes, minutes);
    const hours = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(path.join(dir, old), hours, hours);
    const client = await connect(store);
    await client.close();
    expect((await readdir(dir)).sort()).toEqual([fresh, live, other].sort());
  });
});
