/** A document file whose bytes are not UTF-8 (Shift_JIS saved by hand) is never rewritten or read. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withProject, useLocalStore } from './harness.js';

const local = useLocalStore();

// "# 火山の設計\n本文" in Shift_JIS.
const SHIFT_JIS = Buffer.from([
  0x23, 0x20, 0x89, 0xce, 0x8e, 0x52, 0x82, 0xcc, 0x90, 0xdd, 0x8c, 0x76, 0x0a, 0x96, 0x7b, 0x95, 0xb6, 0x0a,
]);

describe('a document file that is not UTF-8', () => {
  it('sync_catalog and search leave its bytes alone and name it in a warning', async () => {
    local.client = await withProject(local.store);
    const file = path.join(local.store.home, 'Projects', 'TrapxTrapCpp', '設計書', 'sjis.md');
    await writeFile(file, SHIFT_JIS);
    const search = await local.client.call<{ warnings?: string[] }>('search_catalog', { query: '火山' });
    const sync = await local.client.call<{ synced_count: number; warnings?: string[] }>('sync_catalog', {});
    expect(sync.synced_count).toBe(0);
    expect(sync.warnings?.join('\n')).toMatch(/設計書\/sjis\.md は UTF-8 ではありません/);
    expect(search.warnings?.join('\n') ?? '').not.toContain('\ufffd');
    expect(Buffer.compare(await readFile(file), SHIFT_JIS)).toBe(0);
  });
});
