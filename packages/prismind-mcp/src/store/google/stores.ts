import type { sheets_v4 } from '@googleapis/sheets';
import { ToolError } from '@mcp-workbench/core/engine';
import { foundDocumentEntry } from '../../model/documents.js';
import type { CatalogEntry, ProjectConfig, SessionState, TaskRow } from '../../model/types.js';
import type { Catalog, CatalogFilter, SearchIndex, SessionStore, SyncCounts, Tracker } from '../backend.js';
import { extractKeywords } from '../../text/keywords.js';
import { isNotFound } from './api.js';
import { createFile, DOC_MIME, driveLiteral, FOLDER_MIME, SHEET_MIME } from './drive.js';
import {
  CATALOG_HEADERS,
  entryCells,
  entryOf,
  PROGRESS_HEADERS,
  SOURCE_GOOGLE_DOCS,
  taskKey,
} from './layout.js';
import type { GoogleTxn } from './txn.js';

/** The 進捗 sheet. */
export class GoogleTracker implements Tracker {
  constructor(private readonly txn: GoogleTxn) {}

  async list(project: string): Promise<TaskRow[]> {
    const config = await this.txn.projectConfig(project);
    const sheet = this.txn.spreadsheet(config);
    // The catalog sheet comes along in the same request when the project keeps its cache in sync.
    if (this.txn.writable && config.options.auto_sync_catalog !== false) {
      await sheet.read(['progress', 'catalog']);
      await reconcileCache(this.txn, config);
    }
    return (await sheet.tasks()).map((t) => t.task);
  }

  async add(project: string, task: TaskRow): Promise<void> {
    const config = await this.txn.projectConfig(project);
    const sheet = this.txn.spreadsheet(config);
    const key = taskKey(task.phase, task.task_id);
    if ((await sheet.tasks()).some((t) => taskKey(t.task.phase, t.task.task_id) === key)) {
      throw new ToolError('ALREADY_EXISTS', `Task ${task.task_id} already exists in ${task.phase}.`, {
        hint: 'Update it with update_progress(task_id=…) instead, or choose another task_id.',
      });
    }
    sheet.putTask(task, undefined);
    this.txn.touch(project);
  }

  async update(project: string, task: TaskRow): Promise<void> {
    const config = await this.txn.projectConfig(project);
    const sheet = this.txn.spreadsheet(config);
    const key = taskKey(task.phase, task.task_id);
    const before = (await sheet.tasks()).find((t) => taskKey(t.task.phase, t.task.task_id) === key);
    if (!before) throw new ToolError('NOT_FOUND', `Task ${task.task_id} of ${task.phase} is gone.`);
    sheet.putTask(task, before.task);
    this.txn.touch(project);
  }

  /**
   * Makes the spreadsheet when the project has none ("<name>_Prismind" in the project's Drive folder),
   * then the サマリ / 進捗 / 目録 sheets that are missing, with their header rows, in one batchUpdate.
   */
  async createSheets(project: ProjectConfig): Promise<string[]> {
    const api = this.txn.api;
    let madeNow = false;
    if (!project.spreadsheet_id) {
      madeNow = true;
      const folder = await this.txn.projectFolder(project, true);
      const file = await createFile(api, this.txn.ids, 'creating the spreadsheet', {
        name: `${project.name}_Prismind`,
        mimeType: SHEET_MIME,
        parents: [folder!],
      });
      project.spreadsheet_id = file.id!;
      this.txn.saved(`スプレッドシート「${project.name}_Prismind」を作成しました`);
      await this.txn.local.projects.update(project);
    }
    const meta = await api
      .call('reading the spreadsheet layout', () =>
        api.sheets.spreadsheets.get({
          spreadsheetId: project.spreadsheet_id,
          fields: 'sheets(properties(sheetId,title),data(rowData(values(formattedValue))))',
          ranges: ['A1:A2'],
          includeGridData: true,
        }),
      )
      .catch((error: unknown) => {
        if (isNotFound(error)) {
          throw new ToolError('NOT_FOUND', `スプレッドシート ${project.spreadsheet_id} が見つかりません。`, {
            hint: 'Check spreadsheet_id, and that it is shared with the account Prismind uses (a spreadsheet Prismind did not create needs the https://www.googleapis.com/auth/spreadsheets scope).',
          });
        }
        throw error;
      });
    const existing = (meta.sheets ?? []).map((s) => ({
      id: s.properties?.sheetId ?? 0,
      title: s.properties?.title ?? '',
      empty: !(s.data ?? []).some((d) =>
        (d.rowData ?? []).some((r) => (r.values ?? []).some((v) => v.formattedValue)),
      ),
    }));
    const wanted = [
      { title: project.sheets.summary, headers: ['項目', '内容'] },
      { title: project.sheets.progress, headers: [...PROGRESS_HEADERS] },
      { title: project.sheets.catalog, headers: [...CATALOG_HEADERS] },
    ];
    const requests: sheets_v4.Schema$Request[] = [];
    const created: string[] = [];
    // A spreadsheet Prismind just made has one empty default sheet: it becomes the first missing one.
    // A person's own spreadsheet keeps every sheet it has (theirs to remove).
    let spare =
      madeNow &&
      existing.length === 1 &&
      existing[0]!.empty &&
      !wanted.some((w) => w.title === existing[0]!.title)
        ? existing[0]
        : undefined;
    const used = new Set(existing.map((s) => s.id));
    for (const want of wanted) {
      if (existing.some((s) => s.title === want.title)) continue;
      let sheetId: number;
      if (spare) {
        sheetId = spare.id;
        requests.push({
          updateSheetProperties: {
            properties: { sheetId, title: want.title, gridProperties: { frozenRowCount: 1 } },
            fields: 'title,gridProperties.frozenRowCount',
          },
        });
        spare = undefined;
      } else {
        do sheetId = 1 + Math.floor(Math.random() * 2_000_000_000);
        while (used.has(sheetId));
        used.add(sheetId);
        requests.push({
          addSheet: { properties: { sheetId, title: want.title, gridProperties: { frozenRowCount: 1 } } },
        });
      }
      requests.push({
        updateCells: {
          range: {
            sheetId,
            startRowIndex: 0,
            endRowIndex: 1,
            startColumnIndex: 0,
            endColumnIndex: want.headers.length,
          },
          rows: [
            {
              values: want.headers.map((h) => ({
                userEnteredValue: { stringValue: h },
                userEnteredFormat: { textFormat: { bold: true } },
              })),
            },
          ],
          fields: 'userEnteredValue,userEnteredFormat.textFormat.bold',
        },
      });
      this.txn.cache.set('sheet', `${project.spreadsheet_id}/${want.title}`, String(sheetId));
      created.push(want.title);
    }
    for (const s of existing)
      this.txn.cache.set('sheet', `${project.spreadsheet_id}/${s.title}`, String(s.id));
    if (requests.length > 0) {
      await api.call('creating the sheets', () =>
        api.sheets.spreadsheets.batchUpdate({
          spreadsheetId: project.spreadsheet_id,
          requestBody: { requests },
        }),
      );
      this.txn.saved(`シート ${created.join(' / ')} を作成しました`);
    }
    this.txn.touch(project.project_id);
    return created;
  }
}

const SHEET_FIELDS = [
  'name',
  'source',
  'doc_type',
  'project',
  'phase_task',
  'feature',
  'reference_timing',
  'related_docs',
  'keywords',
  'updated_at',
  'created_by',
  'status',
] as const;

function differs(a: CatalogEntry, b: CatalogEntry): boolean {
  return SHEET_FIELDS.some((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/**
 * Brings the local cache in line with the 目録 sheet read in this call (the sheet is the master): rows a
 * person changed, added or removed by hand are taken in. Rows this call is writing are left alone.
 */
async function reconcileCache(
  txn: GoogleTxn,
  project: ProjectConfig,
): Promise<{ entries: CatalogEntry[]; updated: number; archived: number }> {
  const sheet = txn.spreadsheet(project);
  const cached = new Map(
    (await txn.local.catalog.list({ project: project.project_id, status: 'all' })).map((e) => [e.doc_id, e]),
  );
  const pending = new Set(sheet.pendingKeys('catalog'));
  const entries: CatalogEntry[] = [];
  let updated = 0;
  for (const { cells } of await sheet.entries()) {
    const before = cached.get((cells[2] ?? '').trim());
    const entry = entryOf(cells, project.project_id, before);
    if (!entry || pending.has(entry.doc_id) || entries.some((e) => e.doc_id === entry.doc_id)) continue;
    entries.push(entry);
    if (!before || differs(before, entry)) {
      await txn.local.catalog.put(entry);
      await txn.local.search.indexDocument(entry, txn.cache.get('body', entry.doc_id) ?? '');
      if (before) updated++;
    }
  }
  let archived = 0;
  const inSheet = new Set(entries.map((e) => e.doc_id));
  for (const [id, entry] of cached) {
    if (inSheet.has(id) || pending.has(id) || entry.status === 'archived') continue;
    await txn.local.catalog.put({ ...entry, status: 'archived' });
    archived++;
  }
  return { entries, updated, archived };
}

/** The 目録 sheet as master, the local catalog table and search index as its cache. */
export class GoogleCatalog implements Catalog {
  constructor(private readonly txn: GoogleTxn) {}

  get(docId: string): Promise<CatalogEntry | undefined> {
    return this.txn.local.catalog.get(docId);
  }

  list(filter: CatalogFilter): Promise<CatalogEntry[]> {
    return this.txn.local.catalog.list(filter);
  }

  listEach(filters: CatalogFilter[]): Promise<CatalogEntry[][]> {
    return this.txn.local.catalog.listEach(filters);
  }

  async put(entry: CatalogEntry): Promise<void> {
    const before = await this.txn.local.catalog.get(entry.doc_id);
    await this.txn.local.catalog.put(entry);
    const project = await this.txn.projectConfig(entry.project);
    if (!project.spreadsheet_id) return;
    if (before && entryCells(before).join('\u0000') === entryCells(entry).join('\u0000')) return;
    this.txn.spreadsheet(project).putEntry(entry, before);
    this.txn.touch(entry.project);
  }

  /** Documents in the project's Drive folders (no bodies: listing is one request per 1,000 files). */
  private async listDocuments(project: ProjectConfig) {
    const api = this.txn.api;
    const root = await this.txn.projectFolder(project, false);
    if (!root) return [];
    const folders = await api.call('listing the project folders', () =>
      api.drive.files.list({
        q: `${driveLiteral(root)} in parents and mimeType = '${FOLDER_MIME}' and trashed = false`,
        fields: 'files(id,name)',
        pageSize: 100,
        spaces: 'drive',
        supportsAllDrives: true,
        includeItemsFromAllDrives: true,
      }),
    );
    const byId = new Map((folders.files ?? []).filter((f) => f.id && f.name).map((f) => [f.id!, f.name!]));
    if (byId.size === 0) return [];
    const docs: { id: string; name: string; folder: string; modified: string }[] = [];
    let pageToken: string | undefined;
    do {
      const page = await api.call('listing the project documents', () =>
        api.drive.files.list({
          q: `(${[...byId.keys()].map((id) => `${driveLiteral(id)} in parents`).join(' or ')}) and mimeType = '${DOC_MIME}' and trashed = false`,
          fields: 'nextPageToken,files(id,name,parents,modifiedTime)',
          pageSize: 1000,
          spaces: 'drive',
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
          ...(pageToken ? { pageToken } : {}),
        }),
      );
      for (const f of page.files ?? []) {
        const folder = (f.parents ?? []).map((p) => byId.get(p)).find(Boolean);
        if (f.id && f.name && folder)
          docs.push({ id: f.id, name: f.name, folder, modified: f.modifiedTime ?? '' });
      }
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken);
    return docs;
  }

  private async gone(id: string): Promise<boolean> {
    const api = this.txn.api;
    try {
      const file = await api.call('checking a document', () =>
        api.drive.files.get({ fileId: id, fields: 'id,trashed', supportsAllDrives: true }),
      );
      return file.trashed === true;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  }

  /**
   * sync_catalog (the spec's Sheets → RAG): the 目録 sheet is read afresh and the cache rebuilt from it;
   * documents in the project's folders the sheet lacks get a row; rows whose Google Doc is gone are
   * archived (kept, so their id still answers).
   */
  async syncFromMaster(project: ProjectConfig, at: string): Promise<SyncCounts> {
    const sheet = this.txn.spreadsheet(project);
    await sheet.read(['catalog', 'progress']);
    const cached = new Map(
      (await this.txn.local.catalog.list({ project: project.project_id, status: 'all' })).map((e) => [
        e.doc_id,
        e,
      ]),
    );
    const rows = (await sheet.entries())
      .map((r) => entryOf(r.cells, project.project_id, cached.get((r.cells[2] ?? '').trim())))
      .filter((e): e is CatalogEntry => e !== undefined);
    const docs = await this.listDocuments(project);
    const listed = new Set(docs.map((d) => d.id));
    const known = new Set(rows.map((r) => r.doc_id));
    const changed: CatalogEntry[] = [];
    for (const row of rows) {
      if (row.source !== SOURCE_GOOGLE_DOCS || row.status === 'archived' || listed.has(row.doc_id)) continue;
      if (!(await this.gone(row.doc_id))) continue;
      const next = { ...row, status: 'archived' as const, updated_at: at };
      sheet.putEntry(next, row);
      changed.push(next);
    }
    const archived = changed.length;
    const added: CatalogEntry[] = [];
    for (const doc of docs) {
      if (known.has(doc.id)) continue;
      const entry = foundDocumentEntry(project, {
        doc_id: doc.id,
        name: doc.name,
        source: SOURCE_GOOGLE_DOCS,
        folder: doc.folder,
        location: doc.id,
        keywords: extractKeywords(doc.name, 8),
        updated_at: doc.modified || at,
        created_at: doc.modified || at,
      });
      sheet.putEntry(entry, undefined);
      added.push(entry);
    }
    const result = await reconcileCache(this.txn, project);
    // The rows this call writes (archived, added) go to the cache as well.
    for (const entry of [...changed, ...added]) await this.txn.local.catalog.put(entry);
    const all = await this.txn.local.catalog.list({ project: project.project_id, status: 'all' });
    const inSheet = new Set([...known, ...added.map((a) => a.doc_id)]);
    const indexed = all
      .filter((e) => inSheet.has(e.doc_id))
      .map((entry) => ({ entry, body: this.txn.cache.get('body', entry.doc_id) ?? '' }));
    const synced = await this.txn.local.search.rebuildCatalog(project.project_id, indexed);
    if (sheet.dirty) this.txn.touch(project.project_id);
    return { synced, added: added.length, updated: result.updated, archived: archived + result.archived };
  }
}

/** Sessions stay in the local store (the spec's memory server); saving one also refreshes the サマリ sheet. */
export function googleSessions(txn: GoogleTxn): SessionStore {
  const local = txn.local.sessions;
  return {
    get: (project, user) => local.get(project, user),
    latest: (project) => local.latest(project),
    list: (project) => local.list(project),
    async put(state: SessionState) {
      await local.put(state);
      const project = await txn.local.projects.get(state.project);
      txn.touch(state.project);
      return [
        'prismind.db',
        ...(project?.spreadsheet_id ? [`Google Sheets（${project.sheets.summary}）`] : []),
      ];
    },
  };
}

/** The local search index, keeping the start of each indexed body for a later rebuild from the sheet. */
export function googleSearch(txn: GoogleTxn): SearchIndex {
  const local = txn.local.search;
  return {
    indexDocument: async (entry, body) => {
      txn.rememberBody(entry.doc_id, body);
      await local.indexDocument(entry, body);
    },
    rebuildCatalog: (project, docs, keep) => local.rebuildCatalog(project, docs, keep),
    searchCatalog: (query) => local.searchCatalog(query),
    addKnowledge: (entry) => local.addKnowledge(entry),
    getKnowledge: (id) => local.getKnowledge(id),
    updateKnowledge: (entry) => local.updateKnowledge(entry),
    removeKnowledge: (id) => local.removeKnowledge(id),
    searchKnowledge: (query) => local.searchKnowledge(query),
    listKnowledge: (project) => local.listKnowledge(project),
  };
}
