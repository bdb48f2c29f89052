import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import type { CatalogEntry, ProjectConfig } from '../../model/types.js';
import type { DocumentStore, NewDocument, StoredDocument } from '../backend.js';
import { sha256 } from '../../model/names.js';
import { assertWritable, keyOf, lockProject, query, queryOne, type PgContext } from './context.js';

/** The MCP resource of a document: what a client can open (the text lives in the database). */
const documentUrl = (docId: string) => `prismind://documents/${encodeURIComponent(docId)}`;

function alreadyExists(location: string): ToolError {
  return new ToolError('ALREADY_EXISTS', `A document ${location} already exists.`, {
    hint: 'Choose another name, or update the existing document with update_document.',
  });
}

/**
 * Documents as rows (Markdown text, keyed by project and `folder/name.md`, as in the local tree), so
 * every server of a team reads the same text. The catalog fields live in the catalog table only.
 */
export class PgDocuments implements DocumentStore {
  constructor(private readonly ctx: PgContext) {}

  async create(project: ProjectConfig, doc: NewDocument) {
    assertWritable(this.ctx);
    await lockProject(this.ctx, project.project_id);
    const location = path.posix.join(doc.folder, `${doc.file_name}.md`);
    const hash = sha256(doc.body);
    // ON CONFLICT instead of catching 23505: one round trip, and no savepoint per document on bulk loads.
    const inserted = await query(
      this.ctx,
      `INSERT INTO ${this.ctx.t.documents} (project_key, location, doc_id, folder, file_name, body, content_hash, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING 1`,
      [
        keyOf(project.project_id),
        location,
        doc.entry.doc_id,
        doc.folder,
        doc.file_name,
        doc.body,
        hash,
        doc.entry.updated_at,
      ],
    );
    if (inserted.length === 0) throw alreadyExists(location);
    return { location, url: documentUrl(doc.entry.doc_id), content_hash: hash };
  }

  async read(project: ProjectConfig, entry: CatalogEntry): Promise<StoredDocument | undefined> {
    const row = await queryOne<{ body: string; content_hash: string }>(
      this.ctx,
      `SELECT body, content_hash FROM ${this.ctx.t.documents} WHERE project_key = $1 AND location = $2`,
      [keyOf(project.project_id), entry.location],
    );
    return row ? { body: row.body, content_hash: row.content_hash } : undefined;
  }

  async write(project: ProjectConfig, entry: CatalogEntry, body: string) {
    assertWritable(this.ctx);
    await lockProject(this.ctx, project.project_id);
    const hash = sha256(body);
    const folder = path.posix.dirname(entry.location);
    await query(
      this.ctx,
      `INSERT INTO ${this.ctx.t.documents} (project_key, location, doc_id, folder, file_name, body, content_hash, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (project_key, location) DO UPDATE SET doc_id = excluded.doc_id, body = excluded.body,
         content_hash = excluded.content_hash, updated_at = excluded.updated_at`,
      [
        keyOf(project.project_id),
        entry.location,
        entry.doc_id,
        folder === '.' ? '' : folder,
        path.posix.basename(entry.location, '.md'),
        body,
        hash,
        entry.updated_at,
      ],
    );
    return { content_hash: hash };
  }

  /** The documents themselves are the master here: sync_catalog re-reads every one of them. */
  async scan(project: ProjectConfig) {
    const rows = await query<{ location: string; doc_id: string; body: string; content_hash: string }>(
      this.ctx,
      `SELECT location, doc_id, body, content_hash FROM ${this.ctx.t.documents} WHERE project_key = $1 ORDER BY location`,
      [keyOf(project.project_id)],
    );
    return {
      documents: rows.map((r) => ({
        location: r.location,
        doc: { body: r.body, content_hash: r.content_hash, fields: { doc_id: r.doc_id } },
      })),
      skipped: [],
    };
  }

  url(_project: ProjectConfig, entry: CatalogEntry): string {
    return documentUrl(entry.doc_id);
  }

  async namesIn(project: ProjectConfig, folder: string): Promise<string[]> {
    // Under the project lock: two writers never pick the same next sequence number.
    await lockProject(this.ctx, project.project_id);
    const rows = await query<{ file_name: string }>(
      this.ctx,
      `SELECT file_name FROM ${this.ctx.t.documents} WHERE project_key = $1 AND folder = $2`,
      [keyOf(project.project_id), folder],
    );
    return rows.map((r) => r.file_name);
  }

  async ensureFolders(project: ProjectConfig, folders: string[]): Promise<string[]> {
    if (folders.length === 0) return [];
    assertWritable(this.ctx);
    const rows = await query<{ folder: string }>(
      this.ctx,
      `INSERT INTO ${this.ctx.t.folders} (project_key, folder) SELECT $1, unnest($2::text[])
       ON CONFLICT DO NOTHING RETURNING folder`,
      [keyOf(project.project_id), folders],
    );
    const created = new Set(rows.map((r) => r.folder));
    return folders.filter((f) => created.has(f));
  }
}
