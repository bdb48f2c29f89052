import type { CatalogEntry } from '../../model/types.js';
import type { Catalog, CatalogFilter } from '../backend.js';
import { assertWritable, json, markDirty, type LocalContext } from './context.js';

export interface CatalogRow extends Omit<CatalogEntry, 'related_docs' | 'keywords' | 'keywords_generated'> {
  id: number;
  related_docs: string;
  keywords: string;
  keywords_generated: number;
}

export function toEntry(row: CatalogRow): CatalogEntry {
  return {
    doc_id: row.doc_id,
    name: row.name,
    source: row.source,
    doc_type: row.doc_type,
    project: row.project,
    phase_task: row.phase_task,
    feature: row.feature,
    reference_timing: row.reference_timing,
    related_docs: json<string[]>(row.related_docs, []),
    keywords: json<string[]>(row.keywords, []),
    updated_at: row.updated_at,
    created_by: row.created_by,
    status: row.status,
    created_at: row.created_at,
    location: row.location,
    content_hash: row.content_hash,
    keywords_generated: row.keywords_generated === 1,
  };
}

/** SQL conditions of a catalog filter (shared by listing and search). */
export function filterSql(
  filter: CatalogFilter,
  alias = 'c',
  fromTextIndex = false,
): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  // Under a text search the full-text match must drive the query: `+column` keeps SQLite from walking a
  // filter index over every row of the project instead.
  const col = (column: string) => `${fromTextIndex ? '+' : ''}${alias}.${column}`;
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(`${col(column)} = ?`);
    params.push(value);
  };
  eq('project', filter.project);
  eq('doc_type', filter.doc_type);
  eq('phase_task', filter.phase_task);
  eq('feature', filter.feature);
  eq('reference_timing', filter.reference_timing);
  eq('location', filter.location);
  if (filter.status !== 'all') eq('status', filter.status ?? 'active');
  if (filter.phase_task_prefix !== undefined) {
    // A range, not LIKE: the (project, phase_task) index serves it and % or _ in the prefix mean nothing.
    where.push(`${col('phase_task')} >= ? AND ${col('phase_task')} < ?`);
    params.push(filter.phase_task_prefix, `${filter.phase_task_prefix}\uffff`);
  }
  return { where, params };
}

export class LocalCatalog implements Catalog {
  constructor(private readonly ctx: LocalContext) {}

  async get(docId: string): Promise<CatalogEntry | undefined> {
    const row = this.ctx.db.prepare('SELECT * FROM catalog WHERE doc_id = ?').get(docId) as
      CatalogRow | undefined;
    return row ? toEntry(row) : undefined;
  }

  async list(filter: CatalogFilter): Promise<CatalogEntry[]> {
    const { where, params } = filterSql(filter);
    const rows = this.ctx.db
      .prepare(
        `SELECT * FROM catalog c ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ${filter.limit === undefined ? 'ORDER BY c.id' : `ORDER BY c.updated_at DESC LIMIT ${Math.trunc(filter.limit)}`}`,
      )
      .all(...params) as CatalogRow[];
    return rows.map(toEntry);
  }

  async listEach(filters: CatalogFilter[]): Promise<CatalogEntry[][]> {
    const lists: CatalogEntry[][] = [];
    for (const filter of filters) lists.push(await this.list(filter));
    return lists;
  }

  async put(entry: CatalogEntry): Promise<void> {
    assertWritable(this.ctx);
    this.ctx.db
      .prepare(
        `INSERT INTO catalog (doc_id, project, name, source, doc_type, phase_task, feature, reference_timing,
           related_docs, keywords, updated_at, created_by, status, created_at, location, content_hash,
           keywords_generated)
         VALUES (@doc_id, @project, @name, @source, @doc_type, @phase_task, @feature, @reference_timing,
           @related_docs, @keywords, @updated_at, @created_by, @status, @created_at, @location, @content_hash,
           @keywords_generated)
         ON CONFLICT (doc_id) DO UPDATE SET name = excluded.name, source = excluded.source,
           doc_type = excluded.doc_type, phase_task = excluded.phase_task, feature = excluded.feature,
           reference_timing = excluded.reference_timing, related_docs = excluded.related_docs,
           keywords = excluded.keywords, updated_at = excluded.updated_at, created_by = excluded.created_by,
           status = excluded.status, location = excluded.location, content_hash = excluded.content_hash,
           keywords_generated = excluded.keywords_generated`,
      )
      .run({
        ...entry,
        related_docs: JSON.stringify(entry.related_docs),
        keywords: JSON.stringify(entry.keywords),
        keywords_generated: entry.keywords_generated ? 1 : 0,
      });
    markDirty(this.ctx, entry.project, 'catalog');
  }
}
