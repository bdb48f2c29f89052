import type { docs_v1 } from '@googleapis/docs';
import { isToolError, ToolError } from '@mcp-workbench/core/engine';
import { phaseTaskOf } from '../../model/progress.js';
import { deriveState } from '../../model/progress.js';
import type { ProjectConfig } from '../../model/types.js';
import type { Stores } from '../backend.js';
import type { GoogleApi } from './api.js';
import type { RemoteCache } from './cache.js';
import { Folders, IdPool } from './drive.js';
import { sheetUrl } from './layout.js';
import { Spreadsheet } from './spreadsheet.js';
import { summaryRows } from './summary.js';

/**
 * What one Backend.read/write shares on the Google side: the spreadsheets read and written in this call,
 * the documents read, the folder resolver, and a journal of what reached Google, so that a failure can
 * say what was saved and what was not.
 */
export class GoogleTxn {
  private readonly sheets = new Map<string, Spreadsheet>();
  readonly docs = new Map<string, docs_v1.Schema$Document>();
  readonly folders: Folders;
  private readonly journal: string[] = [];
  private readonly dirty = new Set<string>();

  constructor(
    readonly api: GoogleApi,
    readonly cache: RemoteCache,
    readonly ids: IdPool,
    readonly local: Stores,
    readonly writable: boolean,
  ) {
    this.folders = new Folders(api, cache, ids);
  }

  saved(what: string): void {
    this.journal.push(what);
  }

  /** A journal entry taken back (the empty document was removed again). */
  unsaved(id: string): void {
    const i = this.journal.findIndex((j) => j.includes(id));
    if (i >= 0) this.journal.splice(i, 1);
  }

  /** A document's text, kept locally so that a cache rebuilt from the sheet still indexes it whole. */
  rememberBody(docId: string, body: string): void {
    if (this.writable) this.cache.set('body', docId, body);
  }

  spreadsheet(project: ProjectConfig): Spreadsheet {
    const key = project.project_id.toLowerCase();
    let sheet = this.sheets.get(key);
    if (!sheet || sheet.project.spreadsheet_id !== project.spreadsheet_id) {
      sheet = new Spreadsheet(this.api, this.cache, project);
      this.sheets.set(key, sheet);
    }
    return sheet;
  }

  /** The project's summary is regenerated when this call writes. */
  touch(project: string): void {
    this.dirty.add(project.toLowerCase());
  }

  async projectConfig(project: string): Promise<ProjectConfig> {
    const config = await this.local.projects.get(project);
    if (!config) {
      throw new ToolError('NOT_FOUND', `Project "${project}" is not registered.`, {
        hint: 'Call list_projects to see the projects, or setup_project to create it.',
      });
    }
    return config;
  }

  /** Prismind/Projects/<name> under root_folder_id (My Drive when none): found, or made when `create`. */
  async projectFolder(project: ProjectConfig, create: boolean): Promise<string | undefined> {
    const cached = this.cache.get('project_folder', project.project_id.toLowerCase());
    if (cached) return cached;
    const root = project.root_folder_id || 'root';
    const found = await this.folders.path(root, ['Prismind', 'Projects', project.name], create);
    if (!found) return undefined;
    for (const name of found.created) this.saved(`Drive にフォルダ「${name}」を作成しました`);
    if (this.writable) this.cache.set('project_folder', project.project_id.toLowerCase(), found.id);
    return found.id;
  }

  /** A document folder of the project (設計書, 実装手順書, …). */
  async docFolder(project: ProjectConfig, folder: string, create: boolean): Promise<string | undefined> {
    const parent = await this.projectFolder(project, create);
    if (!parent) return undefined;
    const found = await this.folders.child(parent, folder, create);
    if (found?.created) this.saved(`Drive にフォルダ「${folder}」を作成しました`);
    return found?.id;
  }

  /** Makes the folder if missing; true when this call made it. */
  async docFolderCreated(project: ProjectConfig, folder: string): Promise<boolean> {
    const parent = await this.projectFolder(project, true);
    const found = await this.folders.child(parent!, folder, true);
    if (found?.created) this.saved(`Drive にフォルダ「${folder}」を作成しました`);
    return found?.created ?? false;
  }

  /** Sends every project's sheet writes, each with its regenerated summary, one batchUpdate per spreadsheet. */
  async flush(): Promise<string[]> {
    const warnings: string[] = [];
    for (const key of this.dirty) {
      const project = await this.local.projects.get(key);
      if (!project?.spreadsheet_id) continue;
      const sheet = this.spreadsheet(project);
      await sheet.read(sheet.needs());
      const tasks = (await sheet.tasks()).map((t) => t.task);
      const current = deriveState(tasks).current;
      const related = current
        ? await this.local.catalog.list({
            project: project.project_id,
            phase_task: phaseTaskOf(current),
            status: 'active',
          })
        : [];
      const session = await this.local.sessions.latest(project.project_id);
      const sheetId = (title: string) => {
        const id = this.cache.get('sheet', `${project.spreadsheet_id}/${title}`);
        return id === undefined ? undefined : Number(id);
      };
      sheet.setSummary(
        summaryRows(project, tasks, session, related, {
          progress: sheetUrl(project.spreadsheet_id, sheetId(project.sheets.progress)),
          catalog: sheetUrl(project.spreadsheet_id, sheetId(project.sheets.catalog)),
        }),
      );
      await sheet.flush();
      this.saved(
        `スプレッドシート（${project.sheets.progress} / ${project.sheets.catalog} / ${project.sheets.summary}）に書き込みました`,
      );
      warnings.push(...sheet.warnings);
    }
    this.dirty.clear();
    return warnings;
  }

  /**
   * A failure, told with what reached Google before it and what did not (the local state of this call
   * is rolled back, so only the journal's entries were kept).
   */
  explain(error: unknown): unknown {
    if (this.journal.length === 0) return error;
    const base = isToolError(error)
      ? error
      : new ToolError('BACKEND_UNAVAILABLE', String((error as Error)?.message ?? error));
    const documentMade = this.journal.some((j) => j.includes('ドキュメント「') && j.includes('作成'));
    return new ToolError(
      base.code,
      `${base.message}\n保存されたもの: ${this.journal.join('、')}。\n保存されなかったもの: この呼び出しのそれ以外の変更（目録・進捗シートへの書き込み、ローカルの状態）。`,
      {
        hint:
          (documentMade
            ? 'Run sync_catalog once Google answers again: it registers the created document in the catalog. '
            : '') + (base.hint ?? 'Try again once Google answers again.'),
        details: { ...(base.details ?? {}), saved: [...this.journal] },
        cause: error,
      },
    );
  }
}
