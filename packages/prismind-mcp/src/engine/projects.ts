import { ToolError } from '@mcp-workbench/core/engine';
import { safeName } from '../model/names.js';
import type { ProjectConfig } from '../model/types.js';
import { textSimilarity } from '../text/ngram.js';
import { normalizeText } from '../text/normalize.js';
import { checkProjectId, nowIso, projectNotFound, userOf, type Engine } from './engine.js';

export interface SetupProjectInput {
  project: string;
  name: string;
  spreadsheet_id?: string | undefined;
  root_folder_id?: string | undefined;
  description?: string | undefined;
  create_sheets?: boolean | undefined;
  create_folders?: boolean | undefined;
  force?: boolean | undefined;
  similarity_threshold?: number | undefined;
}

export interface SimilarProject {
  project_id: string;
  name: string;
  description: string;
  similarity: number;
}

export interface SetupProjectResult {
  success: boolean;
  project_id: string;
  name: string;
  sheets_created: string[];
  folders_created: string[];
  message: string;
  requires_confirmation: boolean;
  duplicate_id: boolean;
  duplicate_name: string;
  similar_projects: SimilarProject[];
}

/**
 * Similarity of a new project to an existing one: the better of name-to-name and
 * (name + description)-to-(name + description), so a new project is compared on what it has.
 */
export function projectSimilarity(a: { name: string; description: string }, b: ProjectConfig): number {
  const byName = textSimilarity(a.name, b.name);
  const byAll = textSimilarity(`${a.name} ${a.description}`, `${b.name} ${b.description}`);
  return Math.round(Math.max(byName, byAll) * 100) / 100;
}

export function defaultConfig(input: SetupProjectInput, at: string): ProjectConfig {
  return {
    project_id: input.project,
    name: input.name,
    description: input.description ?? '',
    spreadsheet_id: input.spreadsheet_id ?? '',
    root_folder_id: input.root_folder_id ?? '',
    sheets: { summary: 'サマリ', progress: '進捗', catalog: '目録' },
    drive: { design_folder: '設計書', procedure_folder: '実装手順書' },
    docs: { template_folder_id: '', default_template: '' },
    options: { auto_sync_catalog: true, auto_create_folders: true },
    created_at: at,
    updated_at: at,
  };
}

/** The spec's setup_project flow: ID duplicate → error result; name duplicate or similar → confirm; else create. */
export async function setupProject(engine: Engine, input: SetupProjectInput): Promise<SetupProjectResult> {
  checkProjectId(input.project);
  const name = input.name.trim();
  if (!name)
    throw new ToolError('INVALID_ARGUMENT', 'name is empty.', { hint: 'Give the project a display name.' });
  const threshold = input.similarity_threshold ?? 0.7;
  const description = input.description ?? '';
  const base = {
    project_id: input.project,
    name,
    sheets_created: [] as string[],
    folders_created: [] as string[],
    requires_confirmation: false,
    duplicate_id: false,
    duplicate_name: '',
    similar_projects: [] as SimilarProject[],
  };
  return engine.backend.write(async (stores) => {
    if (await stores.projects.get(input.project)) {
      return {
        ...base,
        success: false,
        duplicate_id: true,
        message: `プロジェクト '${input.project}' は既に存在します。update_project で設定を更新するか、別のIDで作成してください。`,
      };
    }
    const existing = await stores.projects.list();
    const sameName = existing.find((p) => normalizeText(p.name) === normalizeText(name));
    const similar = existing
      .map((p) => ({
        project_id: p.project_id,
        name: p.name,
        description: p.description,
        similarity: projectSimilarity({ name, description }, p),
      }))
      .filter((p) => p.similarity >= threshold)
      .sort((a, b) => b.similarity - a.similarity);
    if (!input.force && (sameName || similar.length > 0)) {
      const lines: string[] = [];
      if (sameName)
        lines.push(`プロジェクト名 '${name}' は既にプロジェクト '${sameName.project_id}' で使われています。`);
      if (similar.length > 0) {
        lines.push('類似のプロジェクトが見つかりました:');
        for (const p of similar)
          lines.push(`- ${p.project_id} (類似度: ${Math.round(p.similarity * 100)}%): ${p.name}`);
      }
      lines.push('新規プロジェクトとして作成しますか？（作成する場合は force=true で再実行してください）');
      return {
        ...base,
        success: false,
        requires_confirmation: true,
        duplicate_name: sameName?.project_id ?? '',
        similar_projects: similar,
        message: lines.join('\n'),
      };
    }
    const at = nowIso(engine);
    const config = defaultConfig({ ...input, name, description }, at);
    await stores.projects.create(config);
    const sheets = input.create_sheets === false ? [] : await stores.tracker.createSheets(config);
    const folders =
      input.create_folders === false
        ? []
        : await stores.documents.ensureFolders(config, [
            config.drive.design_folder,
            config.drive.procedure_folder,
          ]);
    await stores.projects.setCurrent(userOf(engine), { project_id: config.project_id, switched_at: at });
    const where = stores.projects.dataLocation(config);
    return {
      ...base,
      success: true,
      duplicate_name: sameName?.project_id ?? '',
      similar_projects: similar,
      sheets_created: sheets,
      folders_created: folders,
      message: `プロジェクト '${config.project_id}' (${config.name}) をセットアップしました。現在のプロジェクトに設定しました。保存先: ${where}`,
    };
  });
}

export async function switchProject(engine: Engine, project: string) {
  checkProjectId(project);
  return engine.backend.write(async (stores) => {
    const config = await stores.projects.get(project);
    if (!config) throw projectNotFound(project);
    await stores.projects.setCurrent(userOf(engine), {
      project_id: config.project_id,
      switched_at: nowIso(engine),
    });
    if (engine.active && engine.active.project.toLowerCase() !== config.project_id.toLowerCase()) {
      // A session of another project cannot continue on this one.
      engine.active = undefined;
    }
    return {
      success: true,
      project_id: config.project_id,
      name: config.name,
      message: `プロジェクト '${config.project_id}' (${config.name}) に切り替えました。start_session で作業を再開できます。`,
    };
  });
}

export async function listProjects(engine: Engine) {
  return engine.backend.read(async (stores) => {
    const projects = await stores.projects.list();
    const current =
      engine.active?.project ?? (await stores.projects.getCurrent(userOf(engine)))?.project_id ?? '';
    return {
      success: true,
      projects: projects.map((p) => ({
        project_id: p.project_id,
        name: p.name,
        description: p.description,
        updated_at: p.updated_at,
      })),
      current_project: current,
      ...(engine.backend.info ? { storage: engine.backend.info } : {}),
      message:
        projects.length === 0
          ? 'プロジェクトはまだありません。setup_project で作成してください。'
          : `${projects.length}件のプロジェクトがあります。`,
    };
  });
}

export interface UpdateProjectInput {
  project: string;
  name?: string | undefined;
  description?: string | undefined;
  spreadsheet_id?: string | undefined;
  root_folder_id?: string | undefined;
  sheets?: Partial<ProjectConfig['sheets']> | undefined;
  drive?: Partial<ProjectConfig['drive']> | undefined;
  docs?: Partial<ProjectConfig['docs']> | undefined;
  options?: Record<string, unknown> | undefined;
}

/**
 * A document folder of the project is one folder name inside the project's folder: a path ("../x",
 * "/tmp/x", "a/b") or a name the store would have to rewrite is refused, never silently changed.
 */
function checkFolderName(field: string, value: unknown): void {
  if (value === undefined) return;
  const name = typeof value === 'string' ? value : '';
  const problem = !name.trim()
    ? 'is empty'
    : /[/\\]/.test(name) || name === '.' || name === '..'
      ? 'is a path, not a folder name'
      : safeName(name, '') !== name.normalize('NFC')
        ? 'has characters a folder name cannot have'
        : undefined;
  if (!problem) return;
  throw new ToolError('INVALID_ARGUMENT', `${field} "${name}" ${problem}.`, {
    hint: 'Give one folder name inside the project folder, e.g. "設計書" (no "/", "..", or absolute path).',
    details: { field },
  });
}

export async function updateProject(engine: Engine, input: UpdateProjectInput) {
  checkProjectId(input.project);
  if (input.name !== undefined && !input.name.trim()) {
    throw new ToolError('INVALID_ARGUMENT', 'name is empty.', {
      hint: 'Give a display name or leave name out.',
    });
  }
  return engine.backend.write(async (stores) => {
    const config = await stores.projects.get(input.project);
    if (!config) throw projectNotFound(input.project);
    const next: ProjectConfig = structuredClone(config);
    const updated: string[] = [];
    const top = ['name', 'description', 'spreadsheet_id', 'root_folder_id'] as const;
    for (const key of top) {
      const value = key === 'name' ? input.name?.trim() : input[key];
      if (value !== undefined && value !== next[key]) {
        next[key] = value;
        updated.push(key);
      }
    }
    const nested = (
      group: 'sheets' | 'drive' | 'docs' | 'options',
      patch: Record<string, unknown> | undefined,
    ) => {
      const target = next[group] as Record<string, unknown>;
      for (const [key, value] of Object.entries(patch ?? {})) {
        if (value === undefined || JSON.stringify(target[key]) === JSON.stringify(value)) continue;
        target[key] = value;
        updated.push(`${group}.${key}`);
      }
    };
    nested('sheets', input.sheets);
    for (const [key, value] of Object.entries(input.drive ?? {})) checkFolderName(`drive.${key}`, value);
    nested('drive', input.drive);
    nested('docs', input.docs);
    nested('options', input.options);
    if (updated.length > 0) {
      next.updated_at = nowIso(engine);
      await stores.projects.update(next);
    }
    return {
      success: true,
      project_id: config.project_id,
      updated_fields: updated,
      message:
        updated.length === 0
          ? '変更はありません。'
          : `プロジェクト '${config.project_id}' の設定を更新しました（${updated.join(', ')}）。`,
    };
  });
}

export async function deleteProject(engine: Engine, project: string, confirm: boolean) {
  checkProjectId(project);
  return engine.backend.write(async (stores) => {
    const config = await stores.projects.get(project);
    if (!config) throw projectNotFound(project);
    const where = stores.projects.dataLocation(config);
    if (!confirm) {
      return {
        success: false,
        project_id: config.project_id,
        message:
          `プロジェクト '${config.project_id}' (${config.name}) の設定を削除するには confirm=true を指定してください。` +
          `ドキュメント・進捗・知見は削除されず ${where} に残ります。`,
      };
    }
    await stores.projects.remove(config.project_id);
    // Its folder stays, and so would its watches (a kernel budget shared with the user's editors).
    engine.backend.documentChanges?.forget(config.project_id);
    if (engine.active?.project.toLowerCase() === config.project_id.toLowerCase()) engine.active = undefined;
    return {
      success: true,
      project_id: config.project_id,
      message:
        `プロジェクト '${config.project_id}' の設定を削除しました。ドキュメント・進捗・知見は ${where} に残っています。` +
        `同じIDで setup_project すると再び使えます。`,
    };
  });
}
