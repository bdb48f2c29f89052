import type { CatalogEntry } from '../../model/types.js';
import type { Catalog, CatalogFilter } from '../backend.js';
import {
  assertWritable,
  forUpdate,
  keyOf,
  lockProject,
  query,
  queryOne,
  send,
  type PgContext,
} from './context.js';

/** Columns of a catalog row that make a CatalogEntry. */
export const ENTRY_COLUMNS = `doc_id, name, source, doc_type, project, phase_task, feature, reference_timing,
  related_docs, keywords, updated_at, created_by, status, created_at, location, content_hash, keywords_generated`;

/** Numbered parameters for statements built piece by piece. */
export class Params {
  readonly values: unknown[] = [];
  constructor(start: unknown[] = []) {
    this.values.push(...start);
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * SQL conditions of a catalog filter (shared by listing and search). `recheck`: written so that no
 * index serves them (`col || ''`), for rows another index already found (see PgSearchIndex.search).
 */
export function catalogFilter(filter: CatalogFilter, params: Params, alias = 'c', recheck = false): string[] {
  const where: string[] = [];
  const col = (column: string) => (recheck ? `(${alias}.${column} || '')` : `${alias}.${column}`);
  const eq = (column: string, value: string | undefined) => {
    if (value !== undefined) where.push(`${col(column)} = ${params.add(value)}`);
  };
  if (filter.project !== undefined)
    where.push(`${col('project_key')} = ${params.add(keyOf(filter.project))}`);
  eq('doc_type', filter.doc_type);
  eq('phase_task', filter.phase_task);
  eq('feature', filter.feature);
  eq('reference_timing', filter.reference_timing);
  eq('location', filter.location);
  if (filter.status !== 'all') eq('status', filter.status ?? 'active');
  if (filter.phase_task_prefix !== undefined) {
    // A range, not LIKE: the (project_key, phase_task) index serves it and % or _ in the prefix mean nothing.
    where.push(
      `${col('phase_task')} >= ${params.add(filter.phase_task_prefix)} AND ${col('phase_task')} < ${params.add(`${filter.phase_task_prefix}\uffff`)}`,
    );
  }
  return where;
}

export class PgCatalog implements Catalog {
  constructor(private readonly ctx: PgContext) {}

  async get(docId: string): Promise<CatalogEntry | undefined> {
    let lock = '';
    if (this.ctx.writable) {
      const owner = await queryOne<{ project: string }>(
        this.ctx,
        `SELECT project FROM ${this.ctx.t.catalog} WHERE doc_id = $1`,
        [docId],
      );
      if (!owner) return undefined;
      // Project lock first, then the row: the same order as every other writer of the project. A write
      // that already holds another project only looks (related_docs, a copied file's own id): a second
      // project's lock, or its row, taken after the first deadlocks with a writer going the other way.
      const key = keyOf(owner.project);
      if (this.ctx.locked.size === 0 || this.ctx.locked.has(key)) {
        await lockProject(this.ctx, owner.project);
        lock = forUpdate(this.ctx);
      }
    }
    return queryOne<CatalogEntry>(
      this.ctx,
      `SELECT ${ENTRY_COLUMNS} FROM ${this.ctx.t.catalog} WHERE doc_id = $1 ${lock}`,
      [docId],
    );
  }

  async list(filter: CatalogFilter): Promise<CatalogEntry[]> {
    const params = new Params();
    const where = catalogFilter(filter, params);
    const order =
      filter.limit === undefined
        ? 'ORDER BY c.id'
        : `ORDER BY c.updated_at DESC, c.id DESC LIMIT ${params.add(Math.trunc(filter.limit))}`;
    return query<CatalogEntry>(
      this.ctx,
      `SELECT ${ENTRY_COLUMNS} FROM ${this.ctx.t.catalog} c ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${order}`,
      params.values,
    );
  }

  /** Every filter's list in one statement: the lists tagged with their number, each ordered and limited. */
  async listEach(filters: CatalogFilter[]): Promise<CatalogEntry[][]> {
    if (filters.length === 0) return [];
    const params = new Params();
    // Each list's ids first, in order from the index (an index-only scan where the visibility map
    // allows), then only those rows: a prefix's thousand matches are not fetched to keep five.
    const parts = filters.map((filter, n) => {
      const where = catalogFilter(filter, params);
      const order = filter.limit === undefined ? 'c.id' : 'c.updated_at DESC, c.id DESC';
      const limit = filter.limit === undefined ? '' : `LIMIT ${params.add(Math.trunc(filter.limit))}`;
      return `(SELECT ${n} AS list_no, l.pos, ${ENTRY_COLUMNS.split(',')
        .map((c) => `e.${c.trim()}`)
        .join(', ')}
        FROM (SELECT c.id, row_number() OVER (ORDER BY ${order}) AS pos FROM ${this.ctx.t.catalog} c
          ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} ${limit}) l
        JOIN ${this.ctx.t.catalog} e ON e.id = l.id)`;
    });
    const rows = await query<CatalogEntry & { list_no: number; pos: string }>(
      this.ctx,
      `${parts.join(' UNION ALL ')} ORDER BY list_no, pos`,
      params.values,
    );
    const lists: CatalogEntry[][] = filters.map(() => []);
    for (const { list_no, pos: _pos, ...entry } of rows) lists[list_no]!.push(entry);
    return lists;
  }

  async put(entry: CatalogEntry): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, entry.project);
    // Sent without waiting (nothing needs its answer): a bulk load prepares the next statement meanwhile;
    // a failure fails the transaction at its next statement or COMMIT.
    await send(
      this.ctx,
      `INSERT INTO ${this.ctx.t.catalog} (project_key, ${ENTRY_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
       ON CONFLICT (doc_id) DO UPDATE SET name = excluded.name, source = excluded.source,
         doc_type = excluded.doc_type, phase_task = excluded.phase_task, feature = excluded.feature,
         reference_timing = excluded.reference_timing, related_docs = excluded.related_docs,
         keywords = excluded.keywords, updated_at = excluded.updated_at, created_by = excluded.created_by,
         status = excluded.status, location = excluded.location, content_hash = excluded.content_hash,
         keywords_generated = excluded.keywords_generated, version = ${this.ctx.t.catalog}.version + 1`,
      [
        keyOf(entry.project),
        entry.doc_id,
        entry.name,
        entry.source,
        entry.doc_type,
        entry.project,
        entry.phase_task,
        entry.feature,
        entry.reference_timing,
        JSON.stringify(entry.related_docs),
        JSON.stringify(entry.keywords),
        entry.updated_at,
        entry.created_by,
        entry.status,
        entry.created_at,
        entry.location,
        entry.content_hash,
        entry.keywords_generated,
      ],
    );
  }
}
