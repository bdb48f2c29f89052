/**
 * search_catalog sees Markdown documents a person changes beside the server (local store only: the
 * PostgreSQL store keeps documents as rows only the server writes; Google Docs edits are Google's).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { FSWatcher } from 'node:fs';
import { watch as fsWatch } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@mcp-workbench/core/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { searchCatalog } from '../src/engine/catalog.js';
import { deleteProject } from '../src/engine/projects.js';
import type { Engine } from '../src/engine/engine.js';
import { LocalBackend } from '../src/store/local/local-backend.js';
import type { WatchFunction } from '../src/store/local/tree-watcher.js';
import { connect, localBackend, withProject, type Connected, type StoreFixture } from './harness.js';

interface Found {
  total_count: number;
  documents: { doc_id: string; name: string; status: string }[];
}

let store: StoreFixture;
let client: Connected | undefined;
beforeEach(async () => {
  store = await localBackend.create();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await store.cleanup();
});

const designDir = () => path.join(store.home, 'Projects', 'TrapxTrapCpp', '設計書');

/** Searches until `ok` holds: the watcher reports a change a few milliseconds after it happens. */
async function searchUntil(
  c: Connected,
  args: Record<string, unknown>,
  ok: (found: Found) => boolean,
): Promise<Found> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await c.call<Found>('search_catalog', args);
    if (ok(found) || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createDoc(c: Connected, name: string, content: string): Promise<string> {
  const created = await c.call<{ doc_id: string }>('create_document', {
    name,
    doc_type: '設計書',
    content,
    phase_task: 'P2-T01',
  });
  return created.doc_id;
}

/** The document most tests edit by hand: its id and its file. */
async function trapDocument(c: Connected): Promise<{ trapId: string; trapFile: string }> {
  const trapId = await createDoc(c, '罠システム設計', '落とし穴は 3 秒で作動する。');
  return { trapId, trapFile: path.join(designDir(), '罠システム設計.md') };
}

describe('search_catalog and documents changed by hand', () => {
  it('sees a file edited, added, deleted and renamed by hand, without sync_catalog', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    const spikeId = await createDoc(client, 'スパイク設計', 'スパイクは床から出る。');
    expect((await client.call<Found>('search_catalog', { query: '溶岩' })).total_count).toBe(0);

    // Edited: a new word in the body.
    const text = await readFile(trapFile, 'utf8');
    await writeFile(trapFile, text.replace('落とし穴は 3 秒', '溶岩の落とし穴は 5 秒'));
    let found = await searchUntil(client, { query: '溶岩' }, (f) => f.total_count > 0);
    expect(found.documents.map((d) => d.doc_id)).toEqual([trapId]);

    // The edit is searchable but still unread: update_document does not overwrite it.
    const conflict = await client.fail('update_document', { doc_id: trapId, content: '上書き' });
    expect(conflict.code).toBe('CONFLICT');

    // Added: a file without front matter, named by its heading.
    await writeFile(path.join(designDir(), '手書きメモ.md'), '# 氷床トラップの仕様\n\n氷床は滑る。\n');
    found = await searchUntil(client, { query: '氷床' }, (f) => f.total_count > 0);
    expect(found.documents[0]?.name).toBe('氷床トラップの仕様');
    const memo = await client.call<{ found: boolean; document: { content: string } }>('get_document', {
      doc_id: found.documents[0]!.doc_id,
    });
    expect(memo.document.content).toContain('氷床は滑る。');

    // Renamed (front matter keeps the id): the same document, found at its new place.
    const spikeFile = path.join(designDir(), 'スパイク設計.md');
    await mkdir(path.join(designDir(), '旧版'));
    await rename(spikeFile, path.join(designDir(), '旧版', 'スパイク設計v1.md'));
    found = await searchUntil(client, { query: 'スパイク' }, (f) =>
      f.documents.some((d) => d.doc_id === spikeId),
    );
    expect(found.documents.map((d) => d.doc_id)).toEqual([spikeId]);
    const moved = await client.call<{ document: { metadata: { location: string } } }>('get_document', {
      doc_id: spikeId,
    });
    expect(moved.document.metadata.location).toBe('設計書/旧版/スパイク設計v1.md');

    // Deleted: gone from active results, kept as archived.
    await rm(trapFile);
    found = await searchUntil(client, { query: '落とし穴' }, (f) => f.total_count === 0);
    expect(found.total_count).toBe(0);
    const archived = await client.call<Found>('search_catalog', { query: '落とし穴', status: 'archived' });
    expect(archived.documents.map((d) => [d.doc_id, d.status])).toEqual([[trapId, 'archived']]);
  });

  it('sees what changed while the server was down, on the first search after a start', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    const goneId = await createDoc(client, '消える設計', 'この文書は消される。');
    await client.close();
    client = undefined;

    await writeFile(trapFile, (await readFile(trapFile, 'utf8')).replace('3 秒', '溶岩 5 秒'));
    await rm(path.join(designDir(), '消える設計.md'));
    await writeFile(path.join(designDir(), '追加.md'), '# 氷床の仕様\n\n氷床は滑る。\n');

    client = await connect(store);
    // No waiting: the first search checks every file's size and mtime.
    expect((await client.call<Found>('search_catalog', { query: '溶岩' })).documents[0]?.doc_id).toBe(trapId);
    expect((await client.call<Found>('search_catalog', { query: '氷床' })).documents[0]?.name).toBe(
      '氷床の仕様',
    );
    const all = await client.call<Found>('search_catalog', { status: 'archived' });
    expect(all.documents.map((d) => d.doc_id)).toEqual([goneId]);
  });
});

describe('a hand edit of the front matter alone (the body, and so its hash, unchanged)', () => {
  /** Renames the document and sets its feature in the file's front matter, as a person would. */
  async function editFrontMatter(file: string): Promise<void> {
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace(/^name: .*$/m, 'name: 溶岩トラップ設計').replace(/^feature: .*$/m, 'feature: 溶岩'),
    );
  }

  it('made while the server was down, is taken in by the first search, and update_document keeps it', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    await client.close();
    client = undefined;
    await editFrontMatter(trapFile);

    client = await connect(store);
    const found = await client.call<{ documents: { doc_id: string; name: string; feature: string }[] }>(
      'search_catalog',
      { query: '溶岩' },
    );
    expect(found.documents.map((d) => [d.doc_id, d.name, d.feature])).toEqual([
      [trapId, '溶岩トラップ設計', '溶岩'],
    ]);
    await client.call('update_document', { doc_id: trapId, content: '落とし穴は 5 秒で作動する。' });
    const text = await readFile(trapFile, 'utf8');
    expect(text).toMatch(/^name: 溶岩トラップ設計$/m);
    expect(text).toMatch(/^feature: 溶岩$/m);
    expect(text).toContain('落とし穴は 5 秒');
  });

  it('not read yet, is not overwritten by update_document (CONFLICT); once read, the update keeps it', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    await editFrontMatter(trapFile);

    const conflict = await client.fail('update_document', { doc_id: trapId, content: '上書き' });
    expect(conflict.code).toBe('CONFLICT');
    expect(await readFile(trapFile, 'utf8')).toMatch(/^name: 溶岩トラップ設計$/m);

    const read = await client.call<{ document: { name: string; metadata: { content_hash: string } } }>(
      'get_document',
      { doc_id: trapId },
    );
    expect(read.document.name).toBe('溶岩トラップ設計');
    await client.call('update_document', {
      doc_id: trapId,
      content: '落とし穴は 5 秒で作動する。',
      expected_hash: read.document.metadata.content_hash,
    });
    const text = await readFile(trapFile, 'utf8');
    expect(text).toMatch(/^name: 溶岩トラップ設計$/m);
    expect(text).toMatch(/^feature: 溶岩$/m);
  });
});

describe('front-matter values of a kind the catalog cannot take', () => {
  it('are named in search, sync and get_document, keep the catalog value, and update_document writes it back', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    const before = await client.call<{ document: { metadata: { keywords: string[] } } }>('get_document', {
      doc_id: trapId,
    });
    // One word where a list belongs, a status and a type not in the vocabulary, a map as the feature,
    // binary data as the author; the new name is fine and is taken.
    const edited = (await readFile(trapFile, 'utf8'))
      .replace(/^keywords:\n(?: {2}- .*\n)*/m, 'keywords: 溶岩\n')
      .replace(/^status: .*$/m, 'status: 廃止')
      .replace(/^doc_type: .*$/m, 'doc_type: 設計メモ')
      .replace(/^feature: .*$/m, 'feature: { 機能: 溶岩 }')
      .replace(/^created_by: .*$/m, 'created_by: !!binary aGVsbG8=')
      .replace(/^name: .*$/m, 'name: 溶岩トラップ設計');
    await writeFile(trapFile, edited);

    const found = await searchUntil(client, { query: '溶岩トラップ' }, (f) => f.total_count > 0);
    const warning = ((found as Found & { warnings?: string[] }).warnings ?? []).join(' ');
    expect(warning).toContain('設計書/罠システム設計.md');
    for (const field of [
      'keywords（"溶岩"）',
      'status（"廃止"）',
      'doc_type（"設計メモ"）',
      'feature（',
      'created_by（',
    ])
      expect(warning).toContain(field);
    expect(found.documents.map((d) => [d.doc_id, d.name, d.status])).toEqual([
      [trapId, '溶岩トラップ設計', 'active'],
    ]);

    const read = await client.call<{
      document: { doc_type: string; metadata: { keywords: string[]; feature: string; created_by: string } };
      message: string;
    }>('get_document', { doc_id: trapId });
    expect(read.message).toContain('keywords（"溶岩"）');
    expect(read.document.metadata.keywords).toEqual(before.document.metadata.keywords);
    expect(read.document.doc_type).toBe('設計書');
    expect(read.document.metadata.feature).not.toContain('機能');
    expect(read.document.metadata.created_by).not.toContain('Buffer');

    const synced = await client.call<{ warnings?: string[] }>('sync_catalog', {});
    expect((synced.warnings ?? []).join(' ')).toContain('status（"廃止"）');

    const updated = await client.call<{ message: string }>('update_document', {
      doc_id: trapId,
      content: '落とし穴は 5 秒で作動する。',
    });
    expect(updated.message).toContain('keywords: "溶岩"');
    const text = await readFile(trapFile, 'utf8');
    expect(text).toMatch(/^name: 溶岩トラップ設計$/m);
    expect(text).toMatch(/^status: active$/m);
    expect(text).toMatch(/^keywords:\n {2}- /m);
  });
});

describe('related_docs typed by hand', () => {
  it('naming a document the catalog does not have are named by search and sync; real ones are not', async () => {
    client = await withProject(store);
    const { trapFile } = await trapDocument(client);
    const spikeId = await createDoc(client, 'スパイク設計', 'スパイクは床から出る。');
    const edited = (await readFile(trapFile, 'utf8')).replace(
      /^related_docs:.*$/m,
      `related_docs:\n  - ${spikeId}\n  - doc-typo-404`,
    );
    await writeFile(trapFile, edited);

    const found = (await searchUntil(client, { query: '落とし穴' }, (f) => f.total_count > 0)) as Found & {
      warnings?: string[];
    };
    const said = (found.warnings ?? []).join(' ');
    expect(said).toContain(
      '設計書/罠システム設計.md の related_docs に目録にない doc_id があります: doc-typo-404',
    );
    expect(said).not.toContain(spikeId);
    const synced = await client.call<{ warnings?: string[] }>('sync_catalog', {});
    expect((synced.warnings ?? []).join(' ')).toContain('doc-typo-404');
    expect(await readFile(trapFile, 'utf8')).toBe(edited); // kept as typed
  });
});

describe('the way back after a hand edit of the body: get_document, then update_document', () => {
  it.each([
    ['the body edited', (text: string) => text.replace('3 秒', '溶岩マグマ火山 5 秒')],
    ['saved with a BOM and CRLF line ends', (text: string) => `\ufeff${text.replace(/\n/g, '\r\n')}`],
  ])('%s: the update after a read is taken, its keywords made anew', async (_what, edit) => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    await writeFile(trapFile, edit(await readFile(trapFile, 'utf8')));

    const read = await client.call<{ document: { metadata: { content_hash: string } } }>('get_document', {
      doc_id: trapId,
    });
    await client.call('update_document', {
      doc_id: trapId,
      content: '落とし穴は 9 秒で作動する。',
      expected_hash: read.document.metadata.content_hash,
    });
    await client.call('update_document', { doc_id: trapId, content: '追記', append: true });
    const text = await readFile(trapFile, 'utf8');
    expect(text).toContain('落とし穴は 9 秒で作動する。');
    expect(text).toContain('追記');
  });
});

describe('a document saved with CRLF line ends (on Windows)', () => {
  it('keeps CRLF in the front matter sync_catalog writes, and its doc_id after a move', async () => {
    client = await withProject(store);
    await trapDocument(client);
    const file = path.join(designDir(), '窓の設計.md');
    // Front matter of the person's own (a name, no doc_id): the server adds the catalog fields to it.
    await writeFile(file, '---\r\nname: 窓の設計\r\n---\r\n# 窓の設計\r\n\r\n窓は南向きに置く。\r\n');
    await client.call('sync_catalog', {});
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^---\r\ndoc_id: doc-/);
    expect(text.split('\n').length - 1).toBe(text.split('\r\n').length - 1); // no bare LF
    const docId = /^doc_id: (\S+)\r$/m.exec(text)![1]!;

    // Moved by hand: the front matter (CRLF) is still read, so the id follows the file.
    const moved = path.join(designDir(), '窓の設計-改.md');
    await rename(file, moved);
    const found = await searchUntil(client, { query: '南向き' }, (f) =>
      f.documents.some((d) => d.doc_id === docId),
    );
    expect(found.documents.map((d) => d.doc_id)).toContain(docId);
  });
});

describe('file names in another Unicode form (NFD, as macOS writes them)', () => {
  it('a file added or renamed to one is found, read and updated in place, with no NFC twin', async () => {
    client = await withProject(store);
    const diceId = await createDoc(client, '別の設計', 'ダイスは六面。');
    const added = path.join(designDir(), `${'ポテト設計'.normalize('NFD')}.md`);
    await writeFile(added, '# ポテトの設計\n\nポテトは揚げる。\n');
    const renamed = path.join(designDir(), `${'ダイス設計'.normalize('NFD')}.md`);
    await rename(path.join(designDir(), '別の設計.md'), renamed);

    const potato = await client.call<Found>('search_catalog', { query: 'ポテト' });
    expect(potato.documents.map((d) => d.name)).toEqual(['ポテトの設計']);
    const dice = await client.call<Found>('search_catalog', { query: 'ダイス' });
    expect(dice.documents.map((d) => [d.doc_id, d.status])).toEqual([[diceId, 'active']]);

    for (const [id, file] of [
      [potato.documents[0]!.doc_id, added],
      [diceId, renamed],
    ] as const) {
      const read = await client.call<{ document: { content: string } }>('get_document', { doc_id: id });
      expect(read.document.content).toMatch(/揚げる|六面/);
      await client.call('update_document', { doc_id: id, content: '更新した。' });
      expect(await readFile(file, 'utf8')).toContain('更新した。');
    }
    const names = (await readdir(designDir())).sort();
    expect(names.map((n) => n.normalize('NFC'))).toEqual(['ダイス設計.md', 'ポテト設計.md']);
  });
});

describe('front matter a hand edit broke', () => {
  it('is refused with the file named, never overwritten, and taken in once fixed', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    // A colon in an unquoted value: not YAML any more.
    const broken = (await readFile(trapFile, 'utf8'))
      .replace(/^name: .*$/m, 'name: 溶岩: 改訂版')
      .replace(/^feature: .*$/m, 'feature: 溶岩機能');
    await writeFile(trapFile, broken);

    const found = await client.call<Found & { warnings: string[] }>('search_catalog', { query: '罠' });
    expect(found.warnings.join(' ')).toContain('罠システム設計.md');
    for (const [tool, args] of [
      ['get_document', { doc_id: trapId }],
      ['update_document', { doc_id: trapId, content: '上書き' }],
      ['update_document', { doc_id: trapId, content: '追記', append: true }],
    ] as const) {
      const error = await client.fail(tool, args);
      expect(error.code, tool).toBe('UNSUPPORTED_FORMAT');
      expect(error.message).toContain('設計書/罠システム設計.md');
    }
    expect(await readFile(trapFile, 'utf8')).toBe(broken);

    await writeFile(trapFile, broken.replace('name: 溶岩: 改訂版', "name: '溶岩: 改訂版'"));
    const read = await client.call<{ document: { name: string; metadata: { feature: string } } }>(
      'get_document',
      { doc_id: trapId },
    );
    expect([read.document.name, read.document.metadata.feature]).toEqual(['溶岩: 改訂版', '溶岩機能']);
  });

  it('stays findable by search after sync_catalog, as it stays active everywhere else, with the warning', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    await writeFile(
      trapFile,
      (await readFile(trapFile, 'utf8')).replace(/^feature: .*$/m, 'feature: [broken'),
    );
    const before = await searchUntil(client, { query: '落とし穴' }, (f) => f.total_count === 1);
    expect(before.documents.map((d) => d.doc_id)).toEqual([trapId]);

    const synced = await client.call<{ warnings: string[] }>('sync_catalog', {});
    expect(synced.warnings.join(' ')).toContain('罠システム設計.md');
    for (const query of ['落とし穴', '罠システム設計']) {
      const found = await client.call<Found>('search_catalog', { query });
      expect(
        found.documents.map((d) => [d.doc_id, d.status]),
        query,
      ).toEqual([[trapId, 'active']]);
    }
    expect((await client.call<Found>('search_catalog', { doc_type: '設計書' })).total_count).toBe(1);
  });

  it('over 64 KB is refused at once, not parsed for seconds', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    const keys = Array.from({ length: 40_000 }, (_, i) => `k${i}: [a, {b: c}]`).join('\n');
    await writeFile(
      trapFile,
      (await readFile(trapFile, 'utf8')).replace(/^feature: .*$/m, `feature: x\n${keys}`),
    );
    // Parsed, it took 36 s (YAML's duplicate-key check); refused by its size, it is not parsed at all.
    const error = await client.fail('get_document', { doc_id: trapId });
    expect(error.code).toBe('UNSUPPORTED_FORMAT');
    expect(error.message).toMatch(/over 64 KB/);
  });

  it('a file that only opens with two --- rules around text (not a store document) is all body', async () => {
    client = await withProject(store);
    await writeFile(
      path.join(designDir(), '区切り.md'),
      '---\n注意: これは: 区切り線の間の文\n---\n# 区切りの文書\n\n溶岩の話。\n',
    );
    const found = await client.call<Found>('search_catalog', { query: '溶岩' });
    expect(found.documents.map((d) => d.name)).toEqual(['区切りの文書']);
  });
});

describe('a hand edit made while the server writes the same file', () => {
  it('is kept: the write answers CONFLICT and nothing of it is placed', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    await client.close();
    client = undefined;
    const backend = await LocalBackend.open({ home: store.home, busyTimeoutMs: 5000, logger: silentLogger });
    try {
      // Between the read the update's check is made on and the file's replacement, a person saves.
      const write = backend.write(async (stores) => {
        const entry = (await stores.catalog.get(trapId))!;
        const project = (await stores.projects.get(entry.project))!;
        await stores.documents.read(project, entry);
        await writeFile(trapFile, (await readFile(trapFile, 'utf8')).replace('3 秒', '人の編集 7 秒'));
        await stores.documents.write(project, entry, 'サーバの本文\n');
      });
      await expect(write).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await backend.close();
    }
    const text = await readFile(trapFile, 'utf8');
    expect(text).toContain('人の編集 7 秒');
    expect(text).not.toContain('サーバの本文');
    expect((await readdir(designDir())).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

/** fs.watch, keeping the set of watchers still open. */
function countingWatch(): { open: Set<FSWatcher>; counting: WatchFunction } {
  const open = new Set<FSWatcher>();
  const counting = ((...args: Parameters<typeof fsWatch>) => {
    const watcher = fsWatch(...args);
    open.add(watcher);
    const close = watcher.close.bind(watcher);
    watcher.close = () => {
      open.delete(watcher);
      close();
    };
    return watcher;
  }) as unknown as WatchFunction;
  return { open, counting };
}

/** An engine on the local store with a stand-in for fs.watch. */
async function engineWith(watch: WatchFunction): Promise<Engine> {
  const config = loadConfig({ env: { PRISMIND_HOME: store.home } });
  const backend = await LocalBackend.open({
    home: store.home,
    busyTimeoutMs: 5000,
    logger: silentLogger,
    watch,
  });
  return {
    backend,
    config,
    logger: silentLogger,
    now: () => new Date(),
    active: undefined,
    served: new Map(),
  };
}

describe('the document watcher', () => {
  it('falls back to a full check when watching fails or breaks, and closes every watcher on shutdown', async () => {
    client = await withProject(store);
    const { trapId, trapFile } = await trapDocument(client);
    await client.close();
    client = undefined;
    const edit = async (word: string) =>
      writeFile(trapFile, (await readFile(trapFile, 'utf8')).replace(/落とし穴は \S+/, `落とし穴は ${word}`));

    // fs.watch refuses (e.g. no inotify watches left): every search checks the files instead.
    const refusing = (() => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), {
        code: 'ENOSPC',
      });
    }) as unknown as WatchFunction;
    let engine = await engineWith(refusing);
    const ids = async (query: string) =>
      (await searchCatalog(engine, { query, project: 'trapxtrap' })).documents.map((d) => d.doc_id);
    expect(await ids('落とし穴')).toEqual([trapId]);
    await edit('溶岩');
    expect(await ids('溶岩')).toEqual([trapId]);
    await edit('氷床');
    expect(await ids('氷床')).toEqual([trapId]);
    await engine.backend.close();

    // A watcher that breaks later: the next search checks every file and watches again.
    const { open, counting } = countingWatch();
    engine = await engineWith(counting);
    expect(await ids('氷床')).toEqual([trapId]);
    expect(open.size).toBeGreaterThan(0);
    for (const watcher of open) watcher.emit('error', new Error('watch stopped'));
    expect(open.size).toBe(0);
    await edit('砂地');
    // No watcher saw this edit: the full check after the failure does.
    expect(await ids('砂地')).toEqual([trapId]);
    expect(open.size).toBeGreaterThan(0);
    await engine.backend.close();
    expect(open.size).toBe(0);
  });

  it("stops watching a project's folder when the project is deleted", async () => {
    client = await withProject(store);
    await trapDocument(client);
    await client.close();
    client = undefined;
    const { open, counting } = countingWatch();
    const engine = await engineWith(counting);
    try {
      await searchCatalog(engine, { query: '落とし穴', project: 'trapxtrap' });
      expect(open.size).toBeGreaterThan(0);
      // Its folder stays on disk; its watches (inotify, a budget shared with editors) must not.
      await deleteProject(engine, 'trapxtrap', true);
      expect(open.size).toBe(0);
    } finally {
      await engine.backend.close();
    }
  });

  it('the built server exits when its client goes away after searching', async () => {
    const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const child = spawn(process.execPath, [bin], { env: { ...process.env, ...store.env }, stdio: 'pipe' });
    const lines = createInterface({ input: child.stdout });
    const answers = new Map<number, unknown>();
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (message.id !== undefined) answers.set(message.id, message);
    });
    let id = 0;
    const request = async (method: string, params: Record<string, unknown>) => {
      const mine = ++id;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
      const deadline = Date.now() + 20_000;
      while (!answers.has(mine) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(answers.has(mine), `${method} answered`).toBe(true);
    };
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const call = (name: string, args: Record<string, unknown>) =>
      request('tools/call', { name, arguments: args });
    await call('setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
    await call('create_document', {
      name: '罠',
      doc_type: '設計書',
      content: '落とし穴',
      phase_task: '共通',
    });
    await call('search_catalog', { query: '落とし穴' });
    const exited = once(child, 'exit');
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = (await exited) as [number | null, string | null];
    clearTimeout(timer);
    expect(signal).toBeNull();
    expect(code).toBe(0);
  });
});
