import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ToolError, writeFileAtomic } from '@mcp-workbench/core/engine';
import type { CatalogEntry, KnowledgeEntry, ProjectConfig, SessionState, TaskRow } from '../model/types.js';
import { safeName } from '../model/names.js';
import { folderFor } from '../model/documents.js';
import { checkProjectId, projectNotFound, type Engine } from './engine.js';

/** `prismind-export.json`: everything of one project, beside its documents as Markdown files. */
export interface ExportFile {
  format: 'prismind-export';
  version: 1;
  exported_at: string;
  project: ProjectConfig;
  tasks: TaskRow[];
  sessions: SessionState[];
  catalog: CatalogEntry[];
  knowledge: KnowledgeEntry[];
  /** Knowledge that belongs to no project (the CLI exports it with every project). */
  general_knowledge: KnowledgeEntry[];
}

export const EXPORT_FILE = 'prismind-export.json';
const DOCS_DIR = 'documents';

function safeLocation(location: string): string {
  const normal = path.posix.normalize(location.replace(/\\/g, '/'));
  if (normal.startsWith('../') || normal.startsWith('/') || normal === '..') {
    throw new ToolError('INVALID_ARGUMENT', `Document location "${location}" leaves its folder.`);
  }
  return normal;
}

/** Everything of one project as plain data, with the bodies of its documents (one read transaction). */
export async function snapshotProject(engine: Engine, projectId: string) {
  return engine.backend.read(async (stores) => {
    const project = await stores.projects.get(projectId);
    if (!project) throw projectNotFound(projectId);
    // Documents go into the export as Markdown files under their folder; a store whose locations are
    // not paths (a Google Docs id) gets <type folder>/<name>.md, and the exported catalog says so.
    const stored = await stores.catalog.list({ project: project.project_id, status: 'all' });
    const catalog: CatalogEntry[] = [];
    const documents: { doc_id: string; location: string; body: string }[] = [];
    for (const entry of stored) {
      const location = entry.location.endsWith('.md')
        ? entry.location
        : `${folderFor(project, entry.doc_type)}/${safeName(entry.name, 'document')}.md`;
      catalog.push({ ...entry, location });
      const doc = await stores.documents.read(project, entry);
      if (doc) documents.push({ doc_id: entry.doc_id, location, body: doc.body });
    }
    const all = await stores.search.listKnowledge();
    const file: ExportFile = {
      format: 'prismind-export',
      version: 1,
      exported_at: engine.now().toISOString(),
      project,
      tasks: await stores.tracker.list(project.project_id),
      sessions: await stores.sessions.list(project.project_id),
      catalog,
      knowledge: all.filter((k) => k.project?.toLowerCase() === project.project_id.toLowerCase()),
      general_knowledge: all.filter((k) => k.project === null),
    };
    return { file, documents };
  });
}

/** Writes the project as JSON (settings, progress, sessions, catalog, knowledge) plus its documents as Markdown. */
export async function exportProject(engine: Engine, projectId: string, dir: string) {
  checkProjectId(projectId);
  const target = path.resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new ToolError('ALREADY_EXISTS', `${target} is not empty.`, {
      hint: 'Export into a new or empty folder.',
    });
  }
  const data = await snapshotProject(engine, projectId);
  mkdirSync(target, { recursive: true });
  for (const doc of data.documents) {
    await writeFileAtomic(path.join(target, DOCS_DIR, safeLocation(doc.location)), doc.body);
  }
  await writeFileAtomic(path.join(target, EXPORT_FILE), `${JSON.stringify(data.file, null, 2)}\n`);
  return {
    project: data.file.project.project_id,
    dir: target,
    documents: data.documents.length,
    tasks: data.file.tasks.length,
    knowledge: data.file.knowledge.length + data.file.general_knowledge.length,
  };
}

function readExport(dir: string): ExportFile {
  const file = path.join(path.resolve(dir), EXPORT_FILE);
  let parsed: Partial<ExportFile>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ExportFile>;
  } catch (error) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `${file} cannot be read as a Prismind export (${(error as Error).message}).`,
      {
        hint: 'Give the folder written by "prismind-mcp export <project> <dir>".',
      },
    );
  }
  if (parsed.format !== 'prismind-export' || parsed.version !== 1 || !parsed.project) {
    throw new ToolError('UNSUPPORTED_FORMAT', `${file} is not a version-1 Prismind export.`);
  }
  return parsed as ExportFile;
}

/** Imports an export into this store, in one transaction: the project must not exist here yet. */
export async function importProject(engine: Engine, dir: string) {
  const data = readExport(dir);
  checkProjectId(data.project.project_id);
  const bodies = new Map<string, string>();
  for (const entry of data.catalog) {
    const file = path.join(path.resolve(dir), DOCS_DIR, safeLocation(entry.location));
    if (existsSync(file)) bodies.set(entry.doc_id, readFileSync(file, 'utf8'));
  }
  const restore = () => restoreProject(engine, data, bodies);
  const size = {
    knowledge: data.knowledge.length + data.general_knowledge.length,
    documents: data.catalog.length,
  };
  return engine.backend.bulk ? engine.backend.bulk(size, restore) : restore();
}

/** Writes a project's data into this store, in one transaction: the project must not exist here yet. */
export async function restoreProject(engine: Engine, data: ExportFile, bodies: Map<string, string>) {
  return engine.backend.write(async (stores) => {
    if (await stores.projects.get(data.project.project_id)) {
      throw new ToolError(
        'ALREADY_EXISTS',
        `Project "${data.project.project_id}" already exists in ${engine.backend.location}.`,
        {
          hint: 'Import into another PRISMIND_HOME, or delete_project the existing one first.',
        },
      );
    }
    if (engine.backend.kind === 'google') {
      // The export's spreadsheet and folders belong to the store it came from: this one makes its own.
      data.project.spreadsheet_id = '';
      data.project.root_folder_id = '';
    }
    await stores.projects.create(data.project);
    await stores.tracker.createSheets(data.project);
    for (const task of data.tasks) await stores.tracker.add(data.project.project_id, task);
    for (const session of data.sessions) await stores.sessions.put(session);
    let documents = 0;
    for (const entry of data.catalog) {
      const body = bodies.get(entry.doc_id);
      if (body === undefined || (await stores.catalog.get(entry.doc_id))) continue;
      const location = safeLocation(entry.location);
      const created = await stores.documents.create(data.project, {
        entry,
        folder: path.posix.dirname(location),
        file_name: path.posix.basename(location, '.md'),
        body,
      });
      const stored = {
        ...entry,
        doc_id: created.doc_id ?? entry.doc_id,
        location: created.location,
        content_hash: created.content_hash,
        source: stores.documents.source ?? engine.backend.kind,
      };
      await stores.catalog.put(stored);
      await stores.search.indexDocument(stored, body);
      documents++;
    }
    const known = new Set((await stores.search.listKnowledge()).map((k) => k.knowledge_id));
    let knowledge = 0;
    for (const entry of [...data.knowledge, ...data.general_knowledge]) {
      if (known.has(entry.knowledge_id)) continue;
      await stores.search.addKnowledge(entry);
      knowledge++;
    }
    return { project: data.project.project_id, documents, tasks: data.tasks.length, knowledge };
  });
}
