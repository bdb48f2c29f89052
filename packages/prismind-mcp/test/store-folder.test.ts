// Issue 23 items 6 (read-only store), 7 (links), 8 (special files), 9 (oversized files) and 12
// (permissions): the local store's folder is a sandbox too. What a person or a program puts into it is
// read only when it is a regular file of reasonable size reached without a link; everything else is
// reported, never followed, never read.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { asOtherAccount, asRoot } from './other-account.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  connect,
  decodeText,
  localBackend,
  tempDir,
  withProject,
  type Connected,
  type StoreFixture,
} from './harness.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const posix = process.platform !== 'win32';

interface Catalog {
  total_count: number;
  documents: { doc_id: string; name: string }[];
  warnings?: string[];
}

let store: StoreFixture;
let outside: string;
let client: Connected | undefined;
beforeEach(async () => {
  store = await localBackend.create();
  outside = await tempDir('prismind-outside-');
  await writeFile(path.join(outside, 'secret.md'), '# 機密\n\nSECRET-ZQXW 機密の給与表\n');
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await store.cleanup();
  await rm(outside, { recursive: true, force: true });
});

const project = () => path.join(store.home, 'Projects', 'TrapxTrapCpp');

describe.runIf(posix)('the local store folder', () => {
  it('follows no link: links are reported, their targets never read or written', async () => {
    client = await withProject(store);
    const doc = await client.call<{ doc_id: string }>('create_document', {
      name: '罠設計',
      doc_type: '設計書',
      content: '落とし穴は 3 秒で作動する。',
      phase_task: '共通',
    });
    await client.call('search_catalog', { query: '罠' }); // the watcher starts
    await symlink(path.join(outside, 'secret.md'), path.join(project(), '設計書', '秘密.md'));
    await mkdir(path.join(outside, 'docs'));
    await writeFile(path.join(outside, 'docs', 'more.md'), '# 追加\n\n機密の続き\n');
    await symlink(path.join(outside, 'docs'), path.join(project(), '設計書', 'リンク集'));
    // A document's own file replaced by a link to a file outside.
    const own = path.join(project(), '設計書', '罠設計.md');
    await rm(own);
    await symlink(path.join(outside, 'secret.md'), own);

    const answers: string[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await callTool(client!.client, name, args);
      answers.push(result.text);
      return result;
    };
    let found: Catalog = { total_count: -1, documents: [] };
    for (let i = 0; i < 30 && !found.warnings; i++) {
      found = (await call('search_catalog', { query: '機密' })).structured as unknown as Catalog;
      if (!found.warnings) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(found.total_count).toBe(0);
    expect(found.warnings?.join('\n')).toContain('秘密.md');
    const read = await call('get_document', { doc_id: doc.doc_id });
    expect(read.isError).toBe(true);
    expect(read.error?.code).toBe('PATH_OUTSIDE_ROOT');
    const synced = (await call('sync_catalog', {})).structured as { warnings?: string[] };
    expect(synced.warnings?.join('\n')).toMatch(/秘密\.md.*シンボリックリンク/s);
    for (const text of answers) expect(text).not.toContain('SECRET-ZQXW');

    // A document folder replaced by a link: a write into it is refused, nothing lands outside.
    await rm(path.join(project(), '実装手順書'), { recursive: true, force: true });
    await symlink(path.join(outside, 'docs'), path.join(project(), '実装手順書'));
    const write = await callTool(client.client, 'create_document', {
      name: '手順',
      doc_type: '実装手順書',
      content: 'x',
      phase_task: 'P1-T01',
      feature: 'F',
    });
    expect(write.error?.code).toBe('PATH_OUTSIDE_ROOT');
    expect((await readdir(path.join(outside, 'docs'))).sort()).toEqual(['more.md']);
  });

  it('reads only regular files: a FIFO does not hang the store, a file over the limit is listed and not indexed', async () => {
    const config = path.join(store.home, 'config.toml');
    await writeFile(config, '[limits]\nmax_document_bytes = 4096\n');
    client = await withProject(store, { configFile: config });
    await client.call('create_document', {
      name: '小さい',
      doc_type: '設計書',
      content: '氷床',
      phase_task: '共通',
    });
    execFileSync('mkfifo', [path.join(project(), '設計書', 'パイプ.md')]);
    await symlink('/dev/zero', path.join(project(), '設計書', 'zero.md'));
    await writeFile(path.join(project(), '設計書', '巨大.md'), `# 巨大\n\n${'溶岩'.repeat(200_000)}\n`);
    const started = Date.now();
    const synced = await client.call<{ synced_count: number; warnings?: string[] }>('sync_catalog', {});
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(synced.synced_count).toBe(1);
    const said = synced.warnings?.join('\n') ?? '';
    expect(said).toContain('パイプ.md');
    expect(said).toContain('zero.md');
    expect(said).toMatch(/巨大\.md.*超える/s);
    expect((await client.call<Catalog>('search_catalog', { query: '溶岩' })).total_count).toBe(0);
    expect((await client.call<Catalog>('search_catalog', { query: '氷床' })).total_count).toBe(1);
  });

  it('keeps the store private (0700 folders, 0600 files) and refuses the home folder as a store', async () => {
    client = await withProject(store);
    await client.call('create_document', {
      name: '設計',
      doc_type: '設計書',
      content: 'x',
      phase_task: '共通',
    });
    await client.call('add_knowledge', { content: '罠', category: '技術Tips' });
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    expect(await mode(path.join(store.home, 'prismind.db'))).toBe(0o600);
    for (const name of await readdir(store.home)) {
      if (name.startsWith('prismind.db')) expect(await mode(path.join(store.home, name)), name).toBe(0o600);
    }
    expect(await mode(path.join(store.home, 'Projects'))).toBe(0o700);
    expect(await mode(project())).toBe(0o700);
    expect(await mode(path.join(project(), '設計書'))).toBe(0o700);
    expect(await mode(path.join(project(), '設計書', '設計.md'))).toBe(0o600);
    expect(await mode(path.join(project(), '進捗.md'))).toBe(0o600);
    const fresh = await tempDir();
    try {
      const home = path.join(fresh, 'new-store');
      const other = await connect({ ...store, home: fresh, env: { PRISMIND_HOME: home } });
      await other.call('list_projects');
      expect(await mode(home)).toBe(0o700);
      await other.close();
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
    const homeStore = await connect({ ...store, env: { PRISMIND_HOME: os.homedir() } });
    // The server starts (its tools answer with the refusal) and never touches the home folder.
    const refused = await homeStore.fail('list_projects');
    expect(refused.code).toBe('CONFIG_INVALID');
    expect(refused.message).toContain('home folder');
    await homeStore.close();
  });

  it('a read-only store answers reads and says writes are refused', async () => {
    client = await withProject(store);
    const doc = await client.call<{ doc_id: string }>('create_document', {
      name: '罠設計',
      doc_type: '設計書',
      content: '落とし穴は 3 秒で作動する。',
      phase_task: '共通',
    });
    await client.call('add_knowledge', { content: '罠はトリガーで判定する', category: '技術Tips' });
    await client.call('start_session', {});
    await client.call('end_session', { next_action: '罠の調整' });
    await client.close();
    client = undefined;
    // Another account that may read but not write the store (as root: the account nobody).
    execFileSync('chmod', ['-R', asRoot ? 'a+rX' : 'a-w', store.home]);
    const other = asOtherAccount(store.home, [BIN, '--root', store.home]);
    const spawned = await spawnStdioClient(other.command, other.args, {
      env: asRoot ? { PRISMIND_HOME: store.home, PRISMIND_USER: os.userInfo().username } : store.env,
    });
    try {
      const ok = async (name: string, args: Record<string, unknown>) => {
        const result = await callTool(spawned.client, name, args);
        expect(result.isError, `${name}: ${result.text}`).toBe(false);
        return decodeText(result.text);
      };
      expect(((await ok('list_projects', {})).projects as unknown[]).length).toBe(1);
      expect((await ok('search_catalog', { query: '罠' })).total_count).toBe(1);
      expect(
        ((await ok('get_document', { doc_id: doc.doc_id })).document as { content: string }).content,
      ).toContain('落とし穴');
      expect((await ok('search_knowledge', { query: '罠' })).total_count).toBe(1);
      const session = await ok('start_session', { project: 'trapxtrap' });
      expect(session.next_action).toBe('罠の調整');
      expect(session.message).toContain('読み取り専用');
      const write = await callTool(spawned.client, 'add_knowledge', { content: 'x', category: 'y' });
      expect(write.error?.code).toBe('PERMISSION_DENIED');
      expect(write.error?.message).toContain('read-only');
    } finally {
      await spawned.close();
      execFileSync('chmod', ['-R', 'u+w', store.home]);
    }
    expect(await readFile(path.join(project(), '設計書', '罠設計.md'), 'utf8')).toContain('落とし穴');
  });
});
