import type { CatalogEntry, KnowledgeEntry, ScoredCatalogEntry, ScoredKnowledge } from '../../model/types.js';
import { coverage, LOOSE_MIN_RELEVANCE, relevance } from '../../search/rank.js';
import { catalogText, knowledgeText, tagKey } from '../../search/texts.js';
import type { CatalogQuery, KnowledgeQuery, SearchIndex, SearchResult } from '../backend.js';
import { queryTerms, type QueryTerm } from '../../text/terms.js';
import { filterSql, toEntry, type CatalogRow } from './catalog.js';
import { assertWritable, json, type LocalContext } from './context.js';
import { TextIndex } from './text-index.js';
import { embedLater, similarities, type PendingVector } from './vectors.js';

/** How many rows that contain every term are scored at most (the newest first). */
const STRICT_CANDIDATES = 80;
interface KnowledgeRow extends Omit<KnowledgeEntry, 'tags'> {
  id: number;
  tags: string;
}

function toKnowledge(row: KnowledgeRow): KnowledgeEntry {
  return {
    knowledge_id: row.knowledge_id,
    content: row.content,
    category: row.category,
    project: row.project,
    tags: json<string[]>(row.tags, []),
    source: row.source,
    created_at: row.created_at,
  };
}

/** The catalog cache and the knowledge base, with trigram + short-term full-text search. */
export class LocalSearchIndex implements SearchIndex {
  private readonly catalogIndex: TextIndex;
  private readonly knowledgeIndex: TextIndex;

  constructor(
    private readonly ctx: LocalContext,
    private readonly vectorQueue: PendingVector[],
  ) {
    this.catalogIndex = new TextIndex(ctx.db, 'catalog');
    this.knowledgeIndex = new TextIndex(ctx.db, 'knowledge');
  }

  private catalogRowId(docId: string): number {
    const row = this.ctx.db.prepare('SELECT id FROM catalog WHERE doc_id = ?').get(docId) as
      { id: number } | undefined;
    if (!row) throw new Error(`indexDocument: ${docId} has no catalog row`);
    return row.id;
  }

  async indexDocument(entry: CatalogEntry, body: string): Promise<void> {
    assertWritable(this.ctx);
    const id = this.catalogRowId(entry.doc_id);
    const text = catalogText(entry, body);
    this.catalogIndex.put(id, text);
    this.ctx.db.prepare("DELETE FROM vectors WHERE kind = 'catalog' AND item = ?").run(id);
    embedLater(this.ctx, 'catalog', id, text, this.vectorQueue);
  }

  async rebuildCatalog(
    project: string,
    docs: { entry: CatalogEntry; body: string }[],
    keep: string[] = [],
  ): Promise<number> {
    assertWritable(this.ctx);
    const kept = new Set(keep);
    const ids = this.ctx.db.prepare('SELECT id, doc_id FROM catalog WHERE project = ?').all(project) as {
      id: number;
      doc_id: string;
    }[];
    this.catalogIndex.clear(ids.filter((r) => !kept.has(r.doc_id)).map((r) => r.id));
    for (const doc of docs) await this.indexDocument(doc.entry, doc.body);
    return docs.length;
  }

  async searchCatalog(query: CatalogQuery): Promise<SearchResult<ScoredCatalogEntry>> {
    const terms = queryTerms(query.query ?? '');
    const filter = filterSql(query, 'c', terms.length > 0);
    const warnings: string[] = [];
    if (terms.length === 0) {
      const where = filter.where.length ? `WHERE ${filter.where.join(' AND ')}` : '';
      const total = this.ctx.db
        .prepare(`SELECT count(*) AS n FROM catalog c ${where}`)
        .get(...filter.params) as {
        n: number;
      };
      const rows = this.ctx.db
        .prepare(`SELECT * FROM catalog c ${where} ORDER BY c.updated_at DESC, c.id DESC LIMIT ?`)
        .all(...filter.params, query.limit) as CatalogRow[];
      return {
        total_count: total.n,
        items: rows.map((r) => ({ ...toEntry(r), relevance_score: 1, all_terms: true })),
        warnings,
      };
    }
    const found = this.search<CatalogRow>('catalog', this.catalogIndex, terms, filter, query.limit);
    const bodies = (row: CatalogRow) => catalogText(toEntry(row), '');
    const scored = await this.score('catalog', query.query ?? '', terms, found, bodies, warnings);
    return {
      total_count: scored.total,
      items: scored.rows
        .slice(0, query.limit)
        .map(({ row, score, strict }) => ({ ...toEntry(row), relevance_score: score, all_terms: strict })),
      warnings,
    };
  }

  async addKnowledge(entry: KnowledgeEntry): Promise<void> {
    assertWritable(this.ctx);
    const result = this.ctx.db
      .prepare(
        `INSERT INTO knowledge (knowledge_id, content, category, project, tags, source, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        entry.knowledge_id,
        entry.content,
        entry.category,
        entry.project,
        JSON.stringify(entry.tags),
        entry.source,
        entry.created_at,
      );
    const id = Number(result.lastInsertRowid);
    const tag = this.ctx.db.prepare('INSERT OR IGNORE INTO knowledge_tags (tag, id) VALUES (?, ?)');
    for (const t of entry.tags) tag.run(tagKey(t), id);
    const text = knowledgeText(entry);
    this.knowledgeIndex.insert(id, text);
    embedLater(this.ctx, 'knowledge', id, text, this.vectorQueue);
  }

  async getKnowledge(knowledgeId: string): Promise<KnowledgeEntry | undefined> {
    const row = this.ctx.db.prepare('SELECT * FROM knowledge WHERE knowledge_id = ?').get(knowledgeId) as
      KnowledgeRow | undefined;
    return row ? toKnowledge(row) : undefined;
  }

  async updateKnowledge(entry: KnowledgeEntry): Promise<void> {
    assertWritable(this.ctx);
    const row = this.ctx.db
      .prepare(
        `UPDATE knowledge SET content = ?, category = ?, project = ?, tags = ?, source = ?
         WHERE knowledge_id = ? RETURNING id`,
      )
      .get(
        entry.content,
        entry.category,
        entry.project,
        JSON.stringify(entry.tags),
        entry.source,
        entry.knowledge_id,
      ) as { id: number } | undefined;
    if (!row) throw new Error(`updateKnowledge: ${entry.knowledge_id} is gone`);
    this.ctx.db.prepare('DELETE FROM knowledge_tags WHERE id = ?').run(row.id);
    const tag = this.ctx.db.prepare('INSERT OR IGNORE INTO knowledge_tags (tag, id) VALUES (?, ?)');
    for (const t of entry.tags) tag.run(tagKey(t), row.id);
    const text = knowledgeText(entry);
    this.knowledgeIndex.put(row.id, text);
    this.ctx.db.prepare("DELETE FROM vectors WHERE kind = 'knowledge' AND item = ?").run(row.id);
    embedLater(this.ctx, 'knowledge', row.id, text, this.vectorQueue);
  }

  async removeKnowledge(knowledgeId: string): Promise<void> {
    assertWritable(this.ctx);
    const row = this.ctx.db
      .prepare('DELETE FROM knowledge WHERE knowledge_id = ? RETURNING id')
      .get(knowledgeId) as { id: number } | undefined;
    if (!row) return;
    // knowledge_tags goes with the row (ON DELETE CASCADE).
    this.knowledgeIndex.remove(row.id);
    this.ctx.db.prepare("DELETE FROM vectors WHERE kind = 'knowledge' AND item = ?").run(row.id);
  }

  async searchKnowledge(query: KnowledgeQuery): Promise<SearchResult<ScoredKnowledge>> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.project !== undefined) {
      where.push('+k.project = ?');
      params.push(query.project);
    }
    if (query.category !== undefined) {
      where.push('+k.category = ?');
      params.push(query.category);
    }
    for (const t of new Set((query.tags ?? []).map(tagKey))) {
      where.push('EXISTS (SELECT 1 FROM knowledge_tags t WHERE t.tag = ? AND t.id = k.id)');
      params.push(t);
    }
    const warnings: string[] = [];
    const terms = queryTerms(query.query);
    const found = this.search<KnowledgeRow>(
      'knowledge',
      this.knowledgeIndex,
      terms,
      { where, params },
      query.limit,
    );
    const scored = await this.score(
      'knowledge',
      query.query,
      terms,
      found,
      (r) => knowledgeText(toKnowledge(r)),
      warnings,
    );
    return {
      total_count: scored.total,
      items: scored.rows.slice(0, query.limit).map(({ row, score, strict }) => ({
        ...toKnowledge(row),
        relevance_score: score,
        all_terms: strict,
      })),
      warnings,
    };
  }

  /** Indexes again the knowledge entries whose text passes `test` (an upgrade); returns how many. */
  indexKnowledgeAgain(test: (text: string) => boolean): number {
    assertWritable(this.ctx);
    const rows = this.ctx.db.prepare('SELECT * FROM knowledge').all() as KnowledgeRow[];
    let count = 0;
    for (const row of rows) {
      const text = knowledgeText(toKnowledge(row));
      if (!test(text)) continue;
      this.knowledgeIndex.put(row.id, text);
      count++;
    }
    return count;
  }

  async listKnowledge(project?: string): Promise<KnowledgeEntry[]> {
    const rows = (
      project === undefined
        ? this.ctx.db.prepare('SELECT * FROM knowledge ORDER BY id').all()
        : this.ctx.db.prepare('SELECT * FROM knowledge WHERE project = ? ORDER BY id').all(project)
    ) as KnowledgeRow[];
    return rows.map(toKnowledge);
  }

  /**
   * Candidates from the index, never from a scan of the table: rows containing every term (the strict
   * set, counted in full), then — when those are fewer than asked — rows sharing some piece of the query.
   */
  private search<R extends { id: number }>(
    table: 'catalog' | 'knowledge',
    index: TextIndex,
    terms: QueryTerm[],
    filter: { where: string[]; params: unknown[] },
    limit: number,
  ): { strict: R[]; loose: R[]; strictTotal: number } {
    const alias = table === 'catalog' ? 'c' : 'k';
    const match = index.strict(terms);
    // The full-text match drives the join (filters only check the matched rows); one pass yields every
    // matching id, newest first: their number is the total, the first ones are scored.
    const ids = (
      this.ctx.db
        .prepare(
          `SELECT m.id AS id FROM (${match.sql}) m JOIN ${table} ${alias} ON ${alias}.id = m.id
           ${filter.where.length ? `WHERE ${filter.where.join(' AND ')}` : ''} ORDER BY m.id DESC`,
        )
        .all(...match.params, ...filter.params) as { id: number }[]
    ).map((r) => r.id);
    const strictTotal = ids.length;
    const strict = this.rowsOf<R>(table, ids.slice(0, STRICT_CANDIDATES));
    if (strict.length >= limit) return { strict, loose: [], strictTotal };
    const seen = new Set(strict.map((r) => r.id));
    const near = index.loose(terms).filter((id) => !seen.has(id));
    if (near.length === 0) return { strict, loose: [], strictTotal };
    const looseWhere = [`${alias}.id IN (SELECT value FROM json_each(?))`, ...filter.where];
    const loose = this.ctx.db
      .prepare(`SELECT * FROM ${table} ${alias} WHERE ${looseWhere.join(' AND ')}`)
      .all(JSON.stringify(near), ...filter.params) as R[];
    return { strict, loose, strictTotal };
  }

  /** Rows by id, in the order of the ids. */
  private rowsOf<R extends { id: number }>(table: 'catalog' | 'knowledge', ids: number[]): R[] {
    if (ids.length === 0) return [];
    const rows = this.ctx.db
      .prepare(`SELECT * FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as R[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)!).filter(Boolean);
  }

  private async score<R extends { id: number }>(
    kind: 'catalog' | 'knowledge',
    query: string,
    terms: QueryTerm[],
    found: { strict: R[]; loose: R[]; strictTotal: number },
    textOf: (row: R) => string,
    warnings: string[],
  ): Promise<{ total: number; rows: { row: R; score: number; strict: boolean }[] }> {
    const all = [...found.strict, ...found.loose];
    const texts = all.map((row) => ({ id: row.id, text: textOf(row) }));
    const sims = await similarities(this.ctx, kind, query, texts, warnings, this.vectorQueue);
    const rows = all
      .map((row, i) => {
        // Strict rows contain every term by the index's own test (the document body included).
        const strict = i < found.strict.length;
        const share = strict ? 1 : coverage(terms, texts[i]!.text);
        return { row, score: relevance(share, sims[i]!), strict };
      })
      .filter((r) => r.strict || r.score >= LOOSE_MIN_RELEVANCE)
      .sort((a, b) => b.score - a.score || b.row.id - a.row.id);
    // The total counts the entries containing every term: the near ones depend on how many were asked
    // for (they are only looked for when the full matches do not fill the page).
    return { total: found.strictTotal, rows };
  }
}
