import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import {
  openRegularBeneath,
  PathChangedError,
  readOpened,
  ToolError,
  writeFileAtomic,
} from '@mcp-workbench/core/engine';
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

/** The largest export file read (JSON of settings, progress, sessions, catalog and knowledge). */
const MAX_EXPORT_BYTES = 512 * 1024 * 1024;

/**
 * Reads a file of an export folder without following any link below the folder (an export holds none)
 * and only if it is a regular file; the folder itself is resolved once.
 */
async function readInExport(root: string, relative: string, maxBytes: number): Promise<string> {
  const parts = relative.split('/').filter(Boolean);
  let opened;
  try {
    opened = await openRegularBeneath(root, parts, relative);
  } catch (error) {
    if (error instanceof PathChangedError) {
      throw new ToolError(
        'INVALID_ARGUMENT',
        `${relative} in ${root} is a symbolic link; an export holds none.`,
        {
          hint: 'Import the folder that `prismind-mcp export` wrote, without links in it.',
          details: { file: relative },
        },
      );
    }
    throw error;
  }
  try {
    return (await readOpened(opened, { maxBytes, shownAs: relative })).toString('utf8');
  } finally {
    await opened.handle.close();
  }
}

async function readExport(root: string): Promise<ExportFile> {
  const file = path.join(root, EXPORT_FILE);
  let parsed: Partial<ExportFile>;
  try {
    parsed = JSON.parse(await readInExport(root, EXPORT_FILE, MAX_EXPORT_BYTES)) as Partial<ExportFile>;
  } catch (error) {
    if (error instanceof ToolError && error.code !== 'NOT_FOUND') throw error;
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
  const data = parsed as ExportFile;
  checkProjectId(data.project.project_id);
  checkBelongs(data);
  return data;
}

/**
 * An export writes into the project it declares and nowhere else: a session, catalog row or knowledge
 * entry of another project (a hand-made or hostile export) refuses the whole import.
 */
function checkBelongs(data: ExportFile): void {
  const id = data.project.project_id.toLowerCase();
  const strays = [
    ...(data.sessions ?? [])
      .filter((s) => s.project?.toLowerCase() !== id)
      .map((s) => `session of ${s.project}`),
    ...(data.catalog ?? [])
      .filter((e) => e.project?.toLowerCase() !== id)
      .map((e) => `document ${e.doc_id} of ${e.project}`),
    ...(data.knowledge ?? [])
      .filter((k) => k.project?.toLowerCase() !== id)
      .map((k) => `knowledge ${k.knowledge_id} of ${k.project ?? 'no project'}`),
    ...(data.general_knowledge ?? [])
      .filter((k) => k.project !== null)
      .map((k) => `general knowledge ${k.knowledge_id} of ${k.project}`),
  ];
  if (strays.length > 0) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `The export declares project "${data.project.project_id}" but holds data of other projects: ${strays.slice(0, 5).join(', ')}${strays.length > 5 ? ', …' : ''}. Nothing was imported.`,
      {
        hint: 'Import only folders written by `prismind-mcp export`; an export writes into the one project it declares.',
        details: { project: data.project.project_id, strays: strays.slice(0, 20) },
      },
    );
  }
}

export interface ImportOptions {
  /**
   * Into a project this store already has: add what it lacks (tasks, documents, knowledge, the session
   * states of users without one), change nothing it has. Without it such a project is refused.
   */
  merge?: boolean;
}

/** Imports an export into this store, in one transaction (see ImportOptions for an existing project). */
export async function importProject(engine: Engine, dir: string, options: ImportOptions = {}) {
  const root = await realpath(path.resolve(dir)).catch((error: unknown) => {
    throw new ToolError('NOT_FOUND', `${dir} cannot be read (${(error as Error).message}).`, {
      hint: 'Give the folder written by "prismind-mcp export <project> <dir>".',
    });
  });
  const data = await readExport(root);
  const bodies = new Map<string, string>();
  for (const entry of data.catalog) {
    const relative = path.posix.join(DOCS_DIR, safeLocation(entry.location));
    try {
      bodies.set(entry.doc_id, await readInExport(root, relative, engine.config.limits.max_document_bytes));
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    }
  }
  const restore = () => restoreProject(engine, data, bodies, options);
  const size = {
    knowledge: data.knowledge.length + data.general_knowledge.length,
    documents: data.catalog.length,
  };
  return engine.backend.bulk ? engine.backend.bulk(size, restore) : restore();
}

/**
 * Writes a project's data into this store, in one transaction: the project must not exist here yet,
 * unless `merge` (then only what it lacks is added). Every record goes to the declared project.
 */
export async function restoreProject(
  engine: Engine,
  data: ExportFile,
  bodies: Map<string, string>,
  options: ImportOptions = {},
) {
  checkBelongs(data);
  return engine.backend.write(async (stores) => {
    const existing = await stores.projects.get(data.project.project_id);
    if (existing && !options.merge) {
      throw new ToolError(
        'ALREADY_EXISTS',
        `Project "${data.project.project_id}" already exists in ${engine.backend.location}.`,
        {
          hint: 'Import with --merge to add what it lacks, into another PRISMIND_HOME, or delete_project the existing one first.',
        },
      );
    }
    const projectId = existing?.project_id ?? data.project.project_id;
    if (!existing) {
      if (engine.backend.kind === 'google') {
        // The export's spreadsheet and folders belong to the store it came from: this one makes its own.
        data.project.spreadsheet_id = '';
        data.project.root_folder_id = '';
      }
      await stores.projects.create(data.project);
      await stores.tracker.createSheets(data.project);
    }
    const project = existing ?? data.project;
    const known = (await stores.tracker.list(projectId)).map(
      (t) => `${t.phase}\u0000${t.task_id.toLowerCase()}`,
    );
    let tasks = 0;
    for (const task of data.tasks) {
      if (known.includes(`${task.phase}\u0000${task.task_id.toLowerCase()}`)) continue;
      await stores.tracker.add(projectId, task);
      tasks++;
    }
    for (const session of data.sessions) {
      if (existing && (await stores.sessions.get(projectId, session.user))) continue;
      await stores.sessions.put({ ...session, project: projectId });
    }
    let documents = 0;
    for (const exported of data.catalog) {
      const entry = { ...exported, project: projectId };
      const body = bodies.get(entry.doc_id);
      if (body === undefined || (await stores.catalog.get(entry.doc_id))) continue;
      const location = safeLocation(entry.location);
      const created = await stores.documents.create(project, {
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
    const knownKnowledge = new Set((await stores.search.listKnowledge()).map((k) => k.knowledge_id));
    let knowledge = 0;
    for (const entry of [
      ...data.knowledge.map((k) => ({ ...k, project: projectId })),
      ...data.general_knowledge.map((k) => ({ ...k, project: null })),
    ]) {
      if (knownKnowledge.has(entry.knowledge_id)) continue;
      await stores.search.addKnowledge(entry);
      knowledge++;
    }
    return { project: projectId, documents, tasks, knowledge, merged: existing !== undefined };
  });
}
