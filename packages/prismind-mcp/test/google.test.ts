/**
 * What only the Google backend does, against the local fake of the Google APIs: the sheets a person
 * reads (layout, summary, an older A–G sheet), hand edits of the sheet between calls and during one,
 * Drive folders made once however often and by however many processes, Markdown ↔ Docs structure,
 * 429/5xx retries and what a failure says was saved, sync from the sheet, and the request counts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  connect,
  decodeText,
  GOOGLE_SCOPES,
  googleBackend,
  tempDir,
  withProject,
  writeGoogleToken,
  type Connected,
  type StoreFixture,
} from './harness.js';
import { runCli } from '../src/cli.js';
import { CLIENT, type FakeGoogle } from './google-fake/server.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let store: StoreFixture;
let google: FakeGoogle;
let client: Connected;

beforeEach(async () => {
  store = await googleBackend.create();
  google = store.google!;
});
afterEach(async () => {
  await client?.close();
  client = undefined as unknown as Connected; // a test that connects nothing must not close the last one again
  await store.cleanup();
});

const project = 'Prismind/Projects/TrapxTrapCpp';
const isBatchUpdate = (r: { method: string; path: string }) =>
  r.method === 'POST' && /:batchUpdate$/.test(r.path) && r.path.startsWith('/v4/');
const isBatchGet = (r: { path: string }) => r.path.endsWith('/values:batchGet');

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function spreadsheetOf(): ReturnType<FakeGoogle['spreadsheets']['get']> & object {
  const files = google.byPath(`${project}/TrapxTrapCpp_Prismind`);
  expect(files).toHaveLength(1);
  return google.spreadsheets.get(files[0]!.id)!;
}

async function addTasks(...tasks: [string, string, string][]) {
  for (const [phase, id, name] of tasks) {
    await client.call('update_progress', { task_id: id, new_task: { phase, task_id: id, name } });
  }
}

describe('Google backend: sheets', () => {
  it('makes the spreadsheet, the three sheets with the spec columns, and a summary a person can read', async () => {
    client = await withProject(store);
    const setupFolders =
      google.byPath(`${project}/設計書`).length + google.byPath(`${project}/実装手順書`).length;
    expect(setupFolders).toBe(2);
    await client.call('update_progress', {
      task_id: 'T01',
      new_task: {
        phase: 'Phase 4',
        task_id: 'T01',
        name: 'BTノード生成',
        priority: 'high',
        category: 'feature',
      },
      status: 'in_progress',
    });
    const doc = await client.call<{ doc_id: string }>('create_document', {
      name: 'BTノード生成手順',
      doc_type: '実装手順書',
      content: '手順',
      phase_task: 'P4-T01',
      feature: 'BTノード生成',
      asset_type: 'Blueprint',
      keywords: ['BT', 'ノード'],
    });
    await client.call('start_session', { user: 'alice' });
    await client.call('end_session', { next_action: 'ノード接続を実装', blockers: ['UE5.7 の API 待ち'] });

    const book = spreadsheetOf();
    expect(book.sheets.map((s) => s.title)).toEqual(['サマリ', '進捗', '目録']);
    expect(book.table('進捗')).toEqual([
      [
        'フェーズ',
        'タスクID',
        'タスク名',
        'ステータス',
        'ブロッカー',
        '完了日',
        '備考',
        '優先度',
        'カテゴリ',
        '依存タスク',
      ],
      ['Phase 4', 'T01', 'BTノード生成', 'in_progress', '', '', '', 'high', 'feature'],
    ]);
    const catalog = book.table('目録');
    expect(catalog[0]).toEqual([
      'ドキュメント名',
      '保存先',
      'ID',
      '種別',
      'プロジェクト',
      'フェーズタスク',
      'フィーチャー',
      '参照タイミング',
      '関連ドキュメント',
      'キーワード',
      '更新日',
      '作成者',
      'ステータス',
    ]);
    expect(catalog[1]).toEqual([
      'BTノード生成手順',
      'Google Docs',
      doc.doc_id,
      '実装手順書',
      'trapxtrap',
      'P4-T01',
      'BTノード生成',
      '',
      '',
      'BT, ノード',
      expect.stringMatching(/^\d{4}-/),
      os.userInfo().username,
      'active',
    ]);
    expect(book.sheetByTitle('目録')!.rows[1]![0]!.link).toBe(
      `https://docs.google.com/document/d/${doc.doc_id}/edit`,
    );
    const summary = Object.fromEntries(
      book
        .table('サマリ')
        .filter((r) => r[0])
        .map((r) => [r[0], r[1]]),
    );
    expect(summary).toMatchObject({
      プロジェクト名: 'TrapxTrapCpp (trapxtrap)',
      現在のフェーズ: 'Phase 4',
      現在のタスク: 'T01: BTノード生成',
      次のアクション: 'ノード接続を実装',
      ブロッカー: 'UE5.7 の API 待ち',
      関連リンク: '進捗',
    });
    expect(book.table('サマリ').some((r) => r[1] === 'BTノード生成手順（現在タスクの実装手順書）')).toBe(
      true,
    );
    // The document is a Google Doc in its folder, named by the spec's rule.
    const [file] = google.byPath(`${project}/実装手順書/P4_T01_BTノード生成_Blueprint_001`);
    expect(file?.id).toBe(doc.doc_id);
  });

  it('uses a spreadsheet and root folder a person made, and adds only the missing sheets', async () => {
    client = await connect(store);
    const result = await client.call('setup_project', {
      project: 'trapxtrap',
      name: 'TrapxTrapCpp',
      spreadsheet_id: '1abc',
      root_folder_id: '1xyz',
    });
    expect(result).toMatchObject({
      sheets_created: ['サマリ', '進捗', '目録'],
      folders_created: ['設計書', '実装手順書'],
    });
    expect(google.spreadsheets.get('1abc')!.sheets.map((s) => s.title)).toEqual([
      'Sheet1',
      'サマリ',
      '進捗',
      '目録',
    ]);
    expect(google.byPath('チーム共有/Prismind/Projects/TrapxTrapCpp/設計書')).toHaveLength(1);
  });

  it('a person sorts the sheet and inserts rows between calls: every task keeps its own row', async () => {
    client = await withProject(store);
    await addTasks(['Phase 1', 'T01', '設計'], ['Phase 1', 'T02', '実装'], ['Phase 1', 'T03', 'テスト']);
    const book = spreadsheetOf();
    book.sortRows('進捗', 1, true); // T03, T02, T01
    book.insertRows('進捗', 1, 2); // two empty rows under the header
    book.setCell('進捗', 6, 0, '（メモ: 来週レビュー）'); // a note a person typed below
    book.setCell('進捗', 6, 1, '');
    await client.call('update_progress', { task_id: 'T02', status: 'completed', notes: '完了' });
    await client.call('update_progress', { task_id: 'T01', status: 'in_progress' });
    const rows = book.table('進捗').slice(1);
    const byId = Object.fromEntries(rows.filter((r) => r[1]).map((r) => [r[1], r]));
    expect(byId.T03!.slice(0, 4)).toEqual(['Phase 1', 'T03', 'テスト', 'not_started']);
    expect(byId.T02!.slice(0, 4)).toEqual(['Phase 1', 'T02', '実装', 'completed']);
    expect(byId.T02![6]).toBe('完了');
    expect(byId.T01!.slice(0, 4)).toEqual(['Phase 1', 'T01', '設計', 'in_progress']);
    expect(rows.map((r) => r[1] ?? '')).toEqual(['', '', 'T03', 'T02', 'T01', '']);
    expect(rows[5]![0]).toBe('（メモ: 来週レビュー）');
    const progress = await client.call<{ phases: { tasks: { task_id: string }[] }[] }>('get_progress', {
      include_completed: true,
    });
    expect(progress.phases[0]!.tasks.map((t) => t.task_id)).toEqual(['T03', 'T02', 'T01']);
  });

  it('a sort in the instant between the read and the write: the write is checked and put right, nothing lost', async () => {
    client = await withProject(store);
    await addTasks(['Phase 1', 'T01', '設計'], ['Phase 1', 'T02', '実装'], ['Phase 1', 'T03', 'テスト']);
    const book = spreadsheetOf();
    book.setCell('進捗', 2, 6, '人が書いた備考'); // T02's note, typed by a person
    google.before(isBatchUpdate, () => book.sortRows('進捗', 1, true));
    await client.call('update_progress', { task_id: 'T01', status: 'completed', notes: '設計完了' });
    const rows = book.table('進捗').slice(1);
    const byId = Object.fromEntries(rows.map((r) => [r[1], r]));
    expect(Object.keys(byId).sort()).toEqual(['T01', 'T02', 'T03']);
    expect(byId.T01!.slice(2, 4)).toEqual(['設計', 'completed']);
    expect(byId.T01![6]).toBe('設計完了');
    expect(byId.T02!.slice(2, 4)).toEqual(['実装', 'not_started']);
    expect(byId.T02![6]).toBe('人が書いた備考');
    expect(byId.T03!.slice(2, 4)).toEqual(['テスト', 'not_started']);
  });

  it('an older sheet with columns A–G keeps working and is widened only when a v2 field is set', async () => {
    client = await withProject(store);
    const book = spreadsheetOf();
    const sheet = book.sheetByTitle('進捗')!;
    const v1 = [
      ['フェーズ', 'タスクID', 'タスク名', 'ステータス', 'ブロッカー', '完了日', '備考'],
      ['Phase 1', 'T01', '旧タスク', '完了', '', '2024-12-01', ''],
      ['Phase 1', 'T02', '次のタスク', '未着手', '', '', ''],
    ];
    sheet.rows = v1.map((r) => r.map((value) => (value ? { value } : undefined)));
    const progress = await client.call<{
      phases: { tasks: { task_id: string; status: string; priority: string }[] }[];
    }>('get_progress', { include_completed: true });
    expect(progress.phases[0]!.tasks).toEqual([
      expect.objectContaining({ task_id: 'T01', status: 'completed', priority: 'medium' }),
      expect.objectContaining({ task_id: 'T02', status: 'not_started', priority: 'medium' }),
    ]);
    await client.call('update_progress', { task_id: 'T02', status: 'in_progress' });
    await client.call('update_progress', {
      task_id: 'T03',
      new_task: { phase: 'Phase 1', task_id: 'T03', name: '追加' },
    });
    expect(book.table('進捗').every((r) => r.length <= 7)).toBe(true);
    expect(book.table('進捗')[1]![3]).toBe('完了'); // untouched cells keep what the person typed
    await client.call('update_progress', { task_id: 'T02', priority: 'high' });
    const after = book.table('進捗');
    expect(after[0]!.slice(7)).toEqual(['優先度', 'カテゴリ', '依存タスク']);
    expect(after[2]!.slice(0, 8)).toEqual([
      'Phase 1',
      'T02',
      '次のタスク',
      'in_progress',
      '',
      '',
      '',
      'high',
    ]);
  });

  it('start_session reads the sheets in one request and takes in catalog rows a person edited', async () => {
    client = await withProject(store);
    await addTasks(['Phase 1', 'T01', '設計']);
    const doc = await client.call<{ doc_id: string }>('create_document', {
      name: '罠の設計',
      doc_type: '設計書',
      content: '罠の配置',
      phase_task: 'P1-T01',
    });
    const book = spreadsheetOf();
    book.setCell('目録', 1, 0, '罠の設計（改訂）'); // a person renames the row in the sheet
    const before = google.log.length;
    const started = await client.call<{ recommended_docs: { name: string; doc_id: string }[] }>(
      'start_session',
    );
    const requests = google.apiRequests(before);
    expect(requests.filter(isBatchGet)).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(started.recommended_docs[0]).toMatchObject({ doc_id: doc.doc_id, name: '罠の設計（改訂）' });
    const beforeUpdate = google.log.length;
    await client.call('update_progress', { task_id: 'T01', status: 'completed' });
    expect(google.apiRequests(beforeUpdate).length).toBeLessThanOrEqual(2);
  });
});

describe('Google backend: Drive folders', () => {
  it('a project name with quotes and backslashes is found again, not made twice (the Drive query is escaped)', async () => {
    client = await connect(store);
    const name = "Bob's \\Trap\\ 'ゲーム'";
    for (let i = 0; i < 2; i++) {
      await client.call('setup_project', { project: 'bobs', name, create_sheets: false });
      await client.call('delete_project', { project: 'bobs', confirm: true });
    }
    expect(google.byPath(`Prismind/Projects/${name}`)).toHaveLength(1);
    expect(google.byPath(`Prismind/Projects/${name}/設計書`)).toHaveLength(1);
  });

  it('running setup and create_document again, or after delete_project, makes no duplicate folders', async () => {
    client = await withProject(store);
    for (let i = 0; i < 2; i++) {
      await client.call('create_document', {
        name: `設計${i}`,
        doc_type: '設計書',
        content: 'x',
        phase_task: '共通',
      });
      await client.call('create_document', {
        name: `規約${i}`,
        doc_type: '規約',
        content: 'x',
        phase_task: '共通',
      });
    }
    await client.call('delete_project', { project: 'trapxtrap', confirm: true });
    await client.call('setup_project', { project: 'trapxtrap', name: 'TrapxTrapCpp' });
    for (const folder of [
      'Prismind',
      'Prismind/Projects',
      project,
      `${project}/設計書`,
      `${project}/実装手順書`,
      `${project}/規約`,
    ]) {
      expect(google.byPath(folder), folder).toHaveLength(1);
    }
  });

  it('two server processes (two machines: separate homes) setting up the same project at once make each folder once', async () => {
    // The second machine: its own home, signed in to the same (fake) Google account.
    const home2 = await tempDir();
    await writeGoogleToken(home2, google);
    const env2 = { ...store.env, PRISMIND_HOME: home2 };
    // A slow Drive: both processes look, find nothing, and create before either sees the other's folder.
    google.delay((r) => r.method === 'POST' && r.path === '/drive/v3/files', 150);
    const servers = await Promise.all(
      [store.env, env2].map((env) =>
        // --root confines the store: each process's root is its own home.
        spawnStdioClient(process.execPath, [BIN, '--root', env.PRISMIND_HOME], { env }),
      ),
    );
    try {
      const results = await Promise.all(
        servers.map((s) =>
          callTool(s.client, 'setup_project', {
            project: 'trapxtrap',
            name: 'TrapxTrapCpp',
            create_sheets: false,
          }),
        ),
      );
      for (const r of results) expect(r.isError, r.text).toBe(false);
      for (const folder of [
        'Prismind',
        'Prismind/Projects',
        project,
        `${project}/設計書`,
        `${project}/実装手順書`,
      ]) {
        expect(google.byPath(folder), folder).toHaveLength(1);
      }
      const made = results.flatMap((r) => (decodeText(r.text).folders_created as string[]) ?? []);
      expect(made.sort()).toEqual(['実装手順書', '設計書']); // each reported by the one that made it
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await rm(home2, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});

describe('Google backend: documents', () => {
  const markdown = [
    '## 概要',
    '',
    '罠は **通路の中央** に置く。`TrapActor` を使う。[仕様](https://example.com/spec)',
    '',
    '- 手順 1',
    '  - 詳細 A',
    '- 手順 2',
    '',
    '1. 準備',
    '2. 配置',
    '',
    '```cpp',
    'void Place();',
    '',
    'int n = 1;',
    '```',
    '',
    '| 項目 | 値 |',
    '| --- | --- |',
    '| 射程 | 5m |',
    '| 威力 | 10 |',
  ].join('\n');

  it('maps Markdown to Docs structure and reads it back as Markdown', async () => {
    client = await withProject(store);
    const created = await client.call<{ doc_id: string }>('create_document', {
      name: '罠の仕様',
      doc_type: '仕様書',
      content: markdown,
      phase_task: '共通',
    });
    const json = google.documents.get(created.doc_id)!.toJson() as {
      body: {
        content: {
          paragraph?: {
            paragraphStyle: { namedStyleType: string };
            bullet?: { nestingLevel: number };
            elements: { textRun: { content: string; textStyle: Record<string, unknown> } }[];
          };
          table?: { rows: number; columns: number };
        }[];
      };
    };
    const paragraphs = json.body.content.filter((c) => c.paragraph).map((c) => c.paragraph!);
    const text = (p: (typeof paragraphs)[number]) =>
      p.elements
        .map((e) => e.textRun.content)
        .join('')
        .replace(/\n$/, '');
    const find = (t: string) => paragraphs.find((p) => text(p) === t)!;
    expect(find('罠の仕様').paragraphStyle.namedStyleType).toBe('HEADING_1');
    expect(find('概要').paragraphStyle.namedStyleType).toBe('HEADING_2');
    expect(find('詳細 A').bullet?.nestingLevel).toBe(1);
    expect(find('手順 2').bullet?.nestingLevel).toBe(0);
    expect(find('void Place();').elements[0]!.textRun.textStyle).toMatchObject({
      weightedFontFamily: { fontFamily: 'Roboto Mono' },
    });
    const bold = find('罠は 通路の中央 に置く。TrapActor を使う。仕様').elements.find(
      (e) => e.textRun.content === '通路の中央',
    );
    expect(bold?.textRun.textStyle).toMatchObject({ bold: true });
    expect(json.body.content.find((c) => c.table)?.table).toMatchObject({ rows: 3, columns: 2 });

    const read = await client.call<{ document: { content: string } }>('get_document', {
      doc_id: created.doc_id,
    });
    expect(read.document.content).toBe(
      [
        '# 罠の仕様',
        '',
        '## 概要',
        '',
        '罠は **通路の中央** に置く。`TrapActor` を使う。[仕様](https://example.com/spec)',
        '',
        '- 手順 1',
        '  - 詳細 A',
        '- 手順 2',
        '',
        '1. 準備',
        '1. 配置',
        '',
        '```',
        'void Place();',
        '',
        'int n = 1;',
        '```',
        '',
        '| 項目 | 値 |',
        '| --- | --- |',
        '| 射程 | 5m |',
        '| 威力 | 10 |',
        '',
      ].join('\n'),
    );
  });

  it("appends without rewriting, sees a person's edit in Docs, and never overwrites it unseen", async () => {
    client = await withProject(store);
    const created = await client.call<{ doc_id: string }>('create_document', {
      name: 'スポーン設計',
      doc_type: '設計書',
      content: '敵は 3 秒ごとに出現する。',
      phase_task: 'P2-T01',
    });
    const first = await client.call<{ document: { metadata: { content_hash: string } } }>('get_document', {
      doc_id: created.doc_id,
    });
    google.editDocument(created.doc_id, '人が追記した一文。');
    const conflict = await client.fail('update_document', {
      doc_id: created.doc_id,
      content: '上書き',
      expected_hash: first.document.metadata.content_hash,
    });
    expect(conflict.code).toBe('CONFLICT');
    expect(google.documents.get(created.doc_id)!.text()).toContain('人が追記した一文。');
    const seen = await client.call<{ message: string; document: { content: string } }>('get_document', {
      doc_id: created.doc_id,
    });
    expect(seen.message).toContain('手動の編集');
    expect(seen.document.content).toContain('人が追記した一文。');
    await client.call('update_document', {
      doc_id: created.doc_id,
      content: '- 追記 1\n- 追記 2',
      append: true,
    });
    const text = google.documents.get(created.doc_id)!.text();
    expect(text).toBe('スポーン設計\n敵は 3 秒ごとに出現する。\n人が追記した一文。\n追記 1\n追記 2\n\n');
    const replaced = await client.call<{ updated_fields: string[] }>('update_document', {
      doc_id: created.doc_id,
      content: '全面改訂',
    });
    expect(replaced.updated_fields).toContain('content');
    expect(google.documents.get(created.doc_id)!.text()).toBe('スポーン設計\n全面改訂\n\n');
  });

  it('sync_catalog rebuilds the cache from the sheet, registers a doc a person put in the folder, archives a deleted one', async () => {
    client = await withProject(store);
    const kept = await client.call<{ doc_id: string }>('create_document', {
      name: '残る設計',
      doc_type: '設計書',
      content: 'x',
      phase_task: '共通',
    });
    const gone = await client.call<{ doc_id: string }>('create_document', {
      name: '消える設計',
      doc_type: '設計書',
      content: 'y',
      phase_task: '共通',
    });
    google.files.get(gone.doc_id)!.trashed = true;
    const folder = google.byPath(`${project}/設計書`)[0]!;
    const book = spreadsheetOf();
    book.setCell('目録', 1, 9, '罠, 配置'); // keywords edited by hand in the sheet
    google.seed('document', '1PersonDoc', '人が作った設計メモ', folder.id); // a doc made in the Drive UI
    const synced = await client.call('sync_catalog');
    expect(synced).toMatchObject({ success: true, added_count: 1, archived_count: 1 });
    const found = await client.call<{ documents: { doc_id: string; name: string; status: string }[] }>(
      'search_catalog',
      {
        query: '罠',
      },
    );
    expect(found.documents.map((d) => d.doc_id)).toEqual([kept.doc_id]);
    const memo = await client.call<{ documents: { doc_id: string }[] }>('search_catalog', {
      query: '人が作った',
    });
    expect(memo.documents[0]?.doc_id).toBe('1PersonDoc');
    expect(book.table('目録').some((r) => r[2] === gone.doc_id && r[12] === 'archived')).toBe(true);
    expect(book.table('目録').some((r) => r[2] === '1PersonDoc' && r[0] === '人が作った設計メモ')).toBe(true);
  });
});

describe('Google backend: faults', () => {
  it('retries 429 and 503 with backoff and succeeds', async () => {
    await writeFile(path.join(store.home, 'config.toml'), '[google]\nretry_initial_delay_ms = 20\n');
    client = await withProject(store);
    google.failNext(isBatchGet, 2, 429);
    google.failNext(isBatchUpdate, 1, 503, { 'retry-after': '0' });
    const before = google.log.length;
    await client.call('update_progress', {
      task_id: 'T01',
      new_task: { phase: 'Phase 1', task_id: 'T01', name: '設計' },
    });
    const requests = google.apiRequests(before);
    expect(requests.map((r) => r.status)).toEqual([429, 429, 200, 503, 200]);
    expect(spreadsheetOf().table('進捗')[1]!.slice(0, 3)).toEqual(['Phase 1', 'T01', '設計']);
  });

  it('waits as long as Retry-After asks before trying again', async () => {
    await writeFile(path.join(store.home, 'config.toml'), '[google]\nretry_initial_delay_ms = 20\n');
    client = await withProject(store);
    google.failNext(isBatchUpdate, 1, 429, { 'retry-after': '1' });
    const before = google.log.length;
    const started = Date.now();
    await client.call('update_progress', {
      task_id: 'T02',
      new_task: { phase: 'Phase 1', task_id: 'T02', name: '待つタスク' },
    });
    // Without Retry-After the backoff would be at most 20 ms here.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(google.apiRequests(before).map((r) => r.status)).toEqual([200, 429, 200]);
  });

  it('gives up after max_retry_seconds with BACKEND_UNAVAILABLE saying what was saved, and sync_catalog recovers', async () => {
    await writeFile(
      path.join(store.home, 'config.toml'),
      '[google]\nretry_initial_delay_ms = 20\nmax_retry_seconds = 0.3\n',
    );
    client = await withProject(store);
    google.failNext(isBatchUpdate, 1000, 503);
    const error = await client.fail('create_document', {
      name: '障害中の設計',
      doc_type: '設計書',
      content: 'x',
      phase_task: '共通',
    });
    expect(error.code).toBe('BACKEND_UNAVAILABLE');
    expect(error.message).toContain(
      '保存されたもの: Google Docs にドキュメント「障害中の設計」を作成しました',
    );
    expect(error.message).toContain('保存されなかったもの');
    expect(error.hint).toContain('sync_catalog');
    expect(
      (await client.call<{ total_count: number }>('search_catalog', { status: 'all' })).total_count,
    ).toBe(0);
    // A progress write Google refused is not in the answers afterwards either.
    const refused = await client.fail('update_progress', {
      task_id: 'T09',
      new_task: { phase: 'Phase 1', task_id: 'T09', name: '障害中のタスク' },
    });
    expect(refused.code).toBe('BACKEND_UNAVAILABLE');
    const progress = await client.call('get_progress', { include_completed: true });
    expect(JSON.stringify(progress)).not.toContain('T09');
    google.clearFailures();
    const synced = await client.call('sync_catalog');
    expect(synced).toMatchObject({ added_count: 1 });
    expect(
      (await client.call<{ documents: { name: string }[] }>('search_catalog', {})).documents.map(
        (d) => d.name,
      ),
    ).toEqual(['障害中の設計']);
  });

  it('a cancelled call stops retrying at once, saves nothing, and the server goes on', async () => {
    await writeFile(
      path.join(store.home, 'config.toml'),
      '[google]\nretry_initial_delay_ms = 20\nmax_retry_seconds = 60\n',
    );
    client = await withProject(store);
    // Google keeps asking to come back in a second: without the cancel this call would retry for 60 s.
    google.failNext(isBatchUpdate, 1000, 503, { 'retry-after': '1' });
    const before = google.log.length;
    const controller = new AbortController();
    const call = callTool(
      client.client,
      'update_progress',
      { task_id: 'T07', new_task: { phase: 'Phase 1', task_id: 'T07', name: '中止されるタスク' } },
      { signal: controller.signal },
    );
    await until(() => google.apiRequests(before).some((r) => r.status === 503));
    controller.abort('cancelled by the test');
    await expect(call).rejects.toThrow();
    // A request already on the wire when the cancel came is counted once it lands; a retry would come
    // only after the 1 s Retry-After.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const tried = google.apiRequests(before).filter((r) => r.status === 503).length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(google.apiRequests(before).filter((r) => r.status === 503)).toHaveLength(tried);
    await client.client.ping({ timeout: 2000 });
    google.clearFailures();
    const progress = await client.call('get_progress', { include_completed: true });
    expect(JSON.stringify(progress)).not.toContain('T07');
    expect(JSON.stringify(spreadsheetOf().table('進捗'))).not.toContain('T07');
  });
});

describe('Google backend: sign-in and credentials', () => {
  async function cli(args: string[], env: Record<string, string>, openUrl?: (url: string) => void) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: { ...env },
      ...(openUrl ? { openUrl } : {}),
    });
    return { code, stdout, stderr };
  }
  /** credentials.json of a desktop-app OAuth client, as the Cloud Console downloads it. */
  const oauthClient = () =>
    JSON.stringify({
      installed: {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        auth_uri: `${google.url}/o/oauth2/auth`,
        token_uri: `${google.url}/token`,
        redirect_uris: ['http://localhost'],
      },
    });
  const tokenFile = () => path.join(store.home, 'token.json');
  const readToken = async () => JSON.parse(await readFile(tokenFile(), 'utf8')) as Record<string, unknown>;

  it('auth login: consent in the browser, back through a loopback redirect on a free port; two logins at once; token.json owner-only; the server then works', async () => {
    await rm(tokenFile());
    await writeFile(path.join(store.home, 'credentials.json'), oauthClient());
    const home2 = await tempDir();
    await writeFile(path.join(home2, 'credentials.json'), oauthClient());
    const urls: string[] = [];
    const visits: Promise<Response>[] = [];
    // The "browser": follows the consent page's redirect back to the CLI's loopback listener.
    const browser = (url: string) => {
      urls.push(url);
      visits.push(fetch(url));
    };
    try {
      const [a, b] = await Promise.all([
        cli(['auth', 'login'], store.env, browser),
        cli(['auth', 'login'], { ...store.env, PRISMIND_HOME: home2 }, browser),
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      expect((await Promise.all(visits)).map((page) => page.status)).toEqual([200, 200]);
      const redirects = urls.map((u) => new URL(u).searchParams.get('redirect_uri'));
      for (const r of redirects) expect(r).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(new Set(redirects).size).toBe(2); // each login its own port
      expect(urls.some((u) => a.stderr.includes(u))).toBe(true); // printed, for a machine without a browser
      // POSIX permission bits (Windows has ACLs, and Node reports no such bits there).
      if (process.platform !== 'win32') expect((await stat(tokenFile())).mode & 0o777).toBe(0o600);
      const token = await readToken();
      expect(token).toMatchObject({
        type: 'authorized_user',
        client_id: CLIENT.id,
        refresh_token: expect.stringMatching(/^1\/\//),
        scopes: GOOGLE_SCOPES,
      });
      expect(google.refreshTokens.has(token.refresh_token as string)).toBe(true);
      const status = await cli(['auth', 'status'], store.env);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('Token: OK');
      client = await withProject(store);
      expect(google.byPath(`${project}/設計書`)).toHaveLength(1);
    } finally {
      await rm(home2, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('without credentials, auth status and login say what to do; a wrong subcommand is a usage error', async () => {
    await rm(tokenFile());
    const status = await cli(['auth', 'status'], store.env);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('AUTH_REQUIRED');
    expect(status.stderr).toContain('prismind-mcp auth login');
    const login = await cli(['auth', 'login', '--no-browser'], store.env);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('AUTH_REQUIRED');
    expect(login.stderr).toContain('Desktop app');
    expect((await cli(['auth', 'logout'], store.env)).code).toBe(2);
  });

  it('a revoked or expired access token: the 401 refreshes it once and the call succeeds; the rotated refresh token is kept', async () => {
    google.rotateRefreshTokens = true;
    const first = (await readToken()).refresh_token as string;
    client = await withProject(store);
    google.expireAccessTokens();
    const before = google.log.length;
    await client.call('start_session', { user: 'alice' });
    const served = google.log.slice(before).map((r) => [r.path === '/token' ? 'token' : 'api', r.status]);
    expect(served.slice(0, 3)).toEqual([
      ['api', 401],
      ['token', 200],
      ['api', 200],
    ]);
    await client.close(); // waits for token.json to be written
    client = undefined as unknown as Connected;
    const token = await readToken();
    expect(token.refresh_token).not.toBe(first);
    expect(google.refreshTokens.has(first)).toBe(false); // the old one was retired by the rotation
    expect(google.refreshTokens.has(token.refresh_token as string)).toBe(true);
    // POSIX permission bits (Windows has ACLs, and Node reports no such bits there).
    if (process.platform !== 'win32') expect((await stat(tokenFile())).mode & 0o777).toBe(0o600);
    // The next process starts from the rotated token.
    client = await connect(store);
    await client.call('get_progress', { project: 'trapxtrap' });
  });

  it('several server processes on one token.json: when one has rotated the refresh token, the others take it from the file', async () => {
    google.rotateRefreshTokens = true;
    const first = (await readToken()).refresh_token as string;
    const other = await connect(store);
    try {
      await other.call('list_projects'); // its credentials are loaded (the first refresh token)
      client = await withProject(store); // this one refreshes: the first token is retired
      await expect.poll(async () => (await readToken()).refresh_token).not.toBe(first);
      const tasks = await other.call<{ project: string }>('get_progress', { project: 'trapxtrap' });
      expect(tasks.project).toBe('trapxtrap');
      // Its one refresh with the retired token, answered invalid_grant before it read the file.
      expect(google.problems.splice(0)).toEqual([
        'token: unknown refresh token',
        'POST /token: invalid_grant',
      ]);
    } finally {
      await other.close();
    }
    expect(google.refreshTokens.has((await readToken()).refresh_token as string)).toBe(true);
  });

  it('a service-account key (google.credentials_path) or Application Default Credentials work without token.json', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const email = 'prismind@example-project.iam.gserviceaccount.com';
    google.serviceAccounts.set(email, publicKey);
    await rm(tokenFile());
    const key = JSON.stringify({
      type: 'service_account',
      project_id: 'example-project',
      private_key_id: 'k1',
      private_key: privateKey,
      client_email: email,
      client_id: '1',
      token_uri: `${google.url}/token`,
    });
    await writeFile(path.join(store.home, 'credentials.json'), key);
    const status = await cli(['auth', 'status'], store.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`service account ${email}`);
    client = await withProject(store);
    expect(google.byPath(`${project}/設計書`)).toHaveLength(1);
    await client.close();

    await rm(path.join(store.home, 'credentials.json'));
    const adc = path.join(store.home, 'adc.json');
    await writeFile(adc, key);
    const viaAdc = await cli(['auth', 'status'], { ...store.env, GOOGLE_APPLICATION_CREDENTIALS: adc });
    expect(viaAdc.code, viaAdc.stderr).toBe(0);
    expect(viaAdc.stdout).toContain('Application Default Credentials');
    client = await connect(store, { env: { GOOGLE_APPLICATION_CREDENTIALS: adc } });
    await client.call('get_progress', { project: 'trapxtrap' });
  });
});
