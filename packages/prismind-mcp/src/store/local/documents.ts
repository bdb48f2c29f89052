import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ToolError } from '@mcp-workbench/core/engine';
import type { CatalogEntry, ProjectConfig } from '../../model/types.js';
import type { DocumentStore, NewDocument, SkippedDocument, StoredDocument } from '../backend.js';
import { assertWritable, folderOf, PROJECTS_DIR, type LocalContext } from './context.js';
import { refusalError, refusalMessage } from './store-files.js';
import { parseMarkdown, renderMarkdown } from './front-matter.js';
import { sha256 } from '../../model/names.js';

/** The Markdown views of a project: generated, never documents. */
export const VIEW_FILES = new Set(['進捗.md', '目録.md', 'サマリ.md']);

/** Catalog fields a document carries in its front matter (what a person sees and may edit). */
function frontMatter(entry: CatalogEntry): Record<string, unknown> {
  return {
    doc_id: entry.doc_id,
    name: entry.name,
    doc_type: entry.doc_type,
    project: entry.project,
    phase_task: entry.phase_task,
    feature: entry.feature,
    keywords: entry.keywords,
    reference_timing: entry.reference_timing,
    related_docs: entry.related_docs,
    status: entry.status,
    created_by: entry.created_by,
    created_at: entry.created_at,
    updated_at: entry.updated_at,
  };
}

/** A hand-typed value shown back in a warning: as YAML would print it inline, cut to a line. */
function shown(value: unknown): string {
  const inline = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Uint8Array ? `<${v.length} bytes>` : v,
  );
  return inline.length > 60 ? `${inline.slice(0, 59)}…` : inline;
}

/**
 * Reads back the catalog fields of front matter a person may have edited (unknown keys are ignored). A
 * value of the wrong kind — a map or list where one value belongs, one value where a list belongs, binary
 * data — is not read but named in `unread`, so the reader can say so instead of dropping it silently.
 */
function fieldsOf(
  raw: Record<string, unknown> | undefined,
): { fields: Partial<CatalogEntry>; unread: Record<string, string> } | undefined {
  if (!raw) return undefined;
  const fields: Record<string, unknown> = {};
  const unread: Record<string, string> = {};
  const scalar = (value: unknown): string | undefined => {
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
    return undefined;
  };
  for (const key of SCALAR_FIELDS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    const read = scalar(value);
    if (read === undefined) unread[key] = shown(value);
    else fields[key] = read;
  }
  for (const key of LIST_FIELDS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    const items = Array.isArray(value)
      ? value.map((item: unknown) => (item === null ? '' : scalar(item)))
      : [];
    if (!Array.isArray(value) || items.includes(undefined)) unread[key] = shown(value);
    else fields[key] = items;
  }
  return { fields, unread };
}

const SCALAR_FIELDS = [
  'doc_id',
  'name',
  'doc_type',
  'project',
  'phase_task',
  'feature',
  'reference_timing',
  'status',
  'created_by',
  'created_at',
  'updated_at',
] as const;
const LIST_FIELDS = ['keywords', 'related_docs'] as const;

/** A document file read back; a store document whose front matter a hand edit broke is refused. */
function toStored(content: string, location: string): StoredDocument {
  const file = parseMarkdown(content);
  if (file.frontMatterError !== undefined) throw brokenFrontMatter(location, file.frontMatterError);
  const read = fieldsOf(file.fields);
  return {
    body: file.body,
    content_hash: sha256(file.body),
    ...(read ? { fields: read.fields } : {}),
    ...(read && Object.keys(read.unread).length > 0 ? { unreadFields: read.unread } : {}),
  };
}

function brokenFrontMatter(location: string, why: string): ToolError {
  return new ToolError(
    'UNSUPPORTED_FORMAT',
    `The front matter of ${location} cannot be read (${why}); the file was left as it is.`,
    {
      hint: 'Fix the front matter by hand (quote a value that holds ": ", "#", "[" or starts with a quote), then call again.',
      details: { location, reason: 'front-matter' },
    },
  );
}

/** Documents as Markdown files with front matter under Projects/<name>/<folder>/. */
export class LocalDocuments implements DocumentStore {
  constructor(private readonly ctx: LocalContext) {}

  /** The project's folder, relative to the store folder (`Projects/<name>`). */
  private base(project: ProjectConfig): string {
    return path.posix.join(PROJECTS_DIR, folderOf(this.ctx, project.project_id));
  }

  /** A location of the project (`設計書/x.md`) relative to the store folder; never leaves the project. */
  private relative(project: ProjectConfig, location: string): string {
    const normal = path.posix.normalize(location.replace(/\\/g, '/'));
    if (normal === '..' || normal.startsWith('../') || path.posix.isAbsolute(normal)) {
      throw new ToolError('INVALID_ARGUMENT', `Document location "${location}" leaves the project folder.`);
    }
    return path.posix.join(this.base(project), normal);
  }

  /** The file of an existing document, as spelled on disk (see StoreFiles.spelled). */
  private fileOf(project: ProjectConfig, location: string): string {
    return path.join(this.ctx.store.root, this.ctx.store.spelled(this.relative(project, location)));
  }

  async create(project: ProjectConfig, doc: NewDocument) {
    assertWritable(this.ctx);
    const location = path.posix.join(doc.folder, `${doc.file_name}.md`);
    const relative = this.relative(project, location);
    this.ctx.store.ensureDir(path.posix.dirname(relative), this.ctx.checkedDirs);
    const file = path.join(this.ctx.store.root, relative); // a new file: as the location spells it
    if (this.ctx.store.lstat(relative) || this.ctx.files.pending(file) !== undefined) {
      throw new ToolError('ALREADY_EXISTS', `A document file ${location} already exists.`, {
        hint: 'Choose another name, or update the existing document with update_document.',
      });
    }
    this.ctx.files.stage(file, renderMarkdown(frontMatter({ ...doc.entry, location }), doc.body));
    this.ctx.documentFiles.push({ project: project.project_id, location, file });
    return { location, url: pathToFileURL(file).href, content_hash: sha256(doc.body) };
  }

  /** The document at `location`: undefined when there is no file; a refused file throws (see StoreFiles). */
  async read(project: ProjectConfig, entry: CatalogEntry): Promise<StoredDocument | undefined> {
    const file = this.fileOf(project, entry.location);
    const pending = this.ctx.files.pending(file);
    if (pending !== undefined) return toStored(pending, entry.location);
    const found = this.ctx.store.readText(this.relative(project, entry.location), entry.location);
    if (found === undefined) return undefined;
    if ('refused' in found) throw refusalError(found.refused);
    this.ctx.readFiles.set(file, { size: found.stats.size, mtimeMs: found.stats.mtimeMs });
    return toStored(found.text, entry.location);
  }

  async write(project: ProjectConfig, entry: CatalogEntry, body: string) {
    assertWritable(this.ctx);
    const relative = this.relative(project, entry.location);
    this.ctx.store.ensureDir(path.posix.dirname(relative), this.ctx.checkedDirs);
    const file = this.fileOf(project, entry.location);
    // Written over what this transaction read of it: the file must still be that when it is replaced.
    this.ctx.files.stage(file, renderMarkdown(frontMatter(entry), body), true, this.ctx.readFiles.get(file));
    this.ctx.documentFiles.push({ project: project.project_id, location: entry.location, file });
    return { content_hash: sha256(body) };
  }

  async scan(project: ProjectConfig) {
    const documents: { location: string; doc: StoredDocument }[] = [];
    const skipped: SkippedDocument[] = [];
    const base = this.base(project);
    const listed = this.ctx.store.listMarkdown(base);
    for (const other of listed.others) {
      const limit = this.ctx.store.limit;
      skipped.push({
        location: other.location,
        message: refusalMessage(other.location, other.reason, limit),
      });
    }
    for (const location of listed.files) {
      if (VIEW_FILES.has(location)) continue;
      const found = this.ctx.store.readText(path.posix.join(base, location), location);
      if (found === undefined) continue; // removed meanwhile
      if ('refused' in found) {
        skipped.push({ location, message: found.refused.message });
        continue;
      }
      try {
        documents.push({ location, doc: toStored(found.text, location) });
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        skipped.push({ location, message: error.message });
      }
    }
    return { documents, skipped };
  }

  url(project: ProjectConfig, entry: CatalogEntry): string {
    return pathToFileURL(this.fileOf(project, entry.location)).href;
  }

  async ensureFolders(project: ProjectConfig, folders: string[]): Promise<string[]> {
    const created: string[] = [];
    for (const folder of folders) {
      const relative = this.relative(project, folder);
      if (this.ctx.store.isDir(relative)) continue;
      // An empty folder is harmless if the transaction fails, so it is made at once.
      this.ctx.store.ensureDir(relative, this.ctx.checkedDirs);
      created.push(folder);
    }
    return created;
  }

  async namesIn(project: ProjectConfig, folder: string): Promise<string[]> {
    const relative = this.relative(project, folder);
    if (!this.ctx.store.isDir(relative)) return [];
    return readdirSync(path.join(this.ctx.store.root, relative))
      .filter((n) => n.endsWith('.md'))
      .map((n) => n.slice(0, -3));
  }
}
