import type { CatalogEntry, KnowledgeEntry, ScoredCatalogEntry, ScoredKnowledge } from '../../model/types.js';
import { coverage, LOOSE_MIN_RELEVANCE, relevance } from '../../search/rank.js';
import { catalogSections, catalogText, knowledgeText, tagKey } from '../../search/texts.js';
import type { CatalogQuery, KnowledgeQuery, SearchIndex, SearchResult } from '../backend.js';
import { cjkTrigramList, shortTermTokenList } from '../../text/grams.js';
import { normalizeText, textRuns } from '../../text/normalize.js';
import { queryTerms, trigramsOf, type QueryTerm } from '../../text/terms.js';
import { catalogFilter, ENTRY_COLUMNS, Params } from './catalog.js';
import type { Tables } from './schema.js';
import {
  assertWritable,
  containsPattern,
  flushPending,
  forUpdate,
  keyOf,
  lockProject,
  query,
  queryOne,
  send,
  sendChecked,
  submit,
  type PgContext,
} from './context.js';
import {
  embedLater,
  foldedGramVector,
  similarities,
  type PendingVector,
  type VectorKind,
} from './vectors.js';

/** How many rows that contain every term are scored at most (the newest first). */
const STRICT_CANDIDATES = 80;
/** How many loosely matching rows (similar, or sharing pieces of the query) are scored at most. */
const LOOSE_CANDIDATES = 100;
/** How many terms, the first of the query, are compared on their own by pg_trgm (without pgvector). */
const LOOSE_TERMS = 8;
/** Knowledge rows sent in one INSERT at most (a bulk load's statement stays a few MB). */
const KNOWLEDGE_BATCH = 1000;
/** Knowledge INSERTs sent and not answered yet at most (see flushKnowledge). */
const KNOWLEDGE_IN_FLIGHT = 3;

const KNOWLEDGE_COLUMNS =
  'k.id, k.knowledge_id, k.content, k.category, k.project, k.tags, k.source, k.created_at';
const CATALOG_COLUMNS = `c.id, ${ENTRY_COLUMNS.split(',')
  .map((c) => `c.${c.trim()}`)
  .join(', ')}`;

interface Identified {
  id: string | number;
}
type KnowledgeRow = KnowledgeEntry & Identified;
type CatalogRow = CatalogEntry & Identified;

function toKnowledge(row: KnowledgeRow): KnowledgeEntry {
  return {
    knowledge_id: row.knowledge_id,
    content: row.content,
    category: row.category,
    project: row.project,
    tags: row.tags,
    source: row.source,
    created_at: row.created_at,
  };
}

function toEntry(row: CatalogRow): CatalogEntry {
  const { id: _id, ...entry } = row as CatalogRow & { total_count?: unknown };
  delete (entry as { total_count?: unknown }).total_count;
  return entry;
}

/** A tsquery lexeme in quotes (its own quotes doubled, backslashes escaped): data, never syntax. */
function lexeme(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * A Japanese term's three-character pieces, for text whose pieces are lexemes (the catalog's search
 * columns, see sectionRows); undefined for a term that is not one Japanese run of three or more.
 */
function cjkPieces(term: QueryTerm): string[] | undefined {
  if (term.kind !== 'trigram') return undefined;
  const runs = textRuns(term.text);
  return runs.length === 1 && runs[0]!.cjk && runs[0]!.text === term.text ? trigramsOf(term.text) : undefined;
}

/**
 * The conditions a row must meet to contain every term, each term decided on its own: one or two
 * characters — and Latin words — through the lexemes of the short-term index (a tsvector with a GIN
 * index: 「罠」 is a lexeme of 「罠を仕掛ける」, "ui" of "UI design", "trigger:*" a prefix of "triggers").
 * Japanese of three characters or more: in the catalog, through its pieces, lexemes there too — a
 * three-character term is its one piece, a longer one is then checked as a substring on the rows its
 * pieces found (a LIKE written so that no trigram index is asked too: ANDing the trigram index's
 * bitmap with the lexemes' took most of a search, 3.9 ms of 4.3 for 「ノード 設計」 on 10,000
 * documents); in the knowledge base as a substring through pg_trgm's trigram index (LIKE).
 */
function strictConditions(
  terms: QueryTerm[],
  alias: string,
  params: Params,
  piecesIndexed: boolean,
): string[] {
  const where: string[] = [];
  const lexemes: string[] = [];
  for (const term of terms) {
    if (term.kind !== 'trigram') {
      lexemes.push(lexemeOf(term));
      continue;
    }
    const pieces = piecesIndexed ? cjkPieces(term) : undefined;
    const pattern = containsPattern(term.text);
    if (!pieces) {
      where.push(`${alias}.search_text LIKE ${params.add(pattern)}`);
      continue;
    }
    lexemes.push(...pieces.map(lexeme));
    // With its (default) ESCAPE spelled out, the check costs PostgreSQL's planner one function more than
    // a filter's `(column || '') = value`, so it runs after the filters on the rows they keep: equal
    // costs left it first, reading the text of every row the pieces found (「レプリケーション」 in
    // 実装手順書: 765 rows read for the 130 of that type, 4.4 → 3.6 ms a statement).
    if ([...term.text].length > 3)
      where.push(`(${alias}.search_text || '') LIKE ${params.add(pattern)} ESCAPE '\\'`);
  }
  if (lexemes.length > 0) where.push(`${alias}.tokens @@ ${params.add(lexemes.join(' & '))}::tsquery`);
  return where;
}

function lexemeOf(term: QueryTerm): string {
  return term.kind === 'word' ? `${lexeme(term.text)}:*` : lexeme(term.text);
}

/**
 * The ids of the long documents (those with sections in catalog_text) that contain every term, each term
 * in some section, not necessarily the same one (part 0, the first section, is there too). Only long
 * documents are looked at: a document whose terms are all in its first section is found by the catalog
 * row's own conditions, through its GIN index.
 */
function acrossSections(terms: QueryTerm[], t: Tables, params: Params): string {
  const sets = terms.map((term) => {
    // A Japanese term of three characters or more: its pieces are lexemes of the sections (see
    // sectionRows); a section holding every piece holds the term (for a three-character term exactly,
    // for a longer one unless its pieces only occur apart). Other text keeps LIKE.
    const pieces = cjkPieces(term);
    const condition = pieces
      ? `s.tokens @@ ${params.add(pieces.map(lexeme).join(' & '))}::tsquery`
      : term.kind === 'trigram'
        ? `s.search_text LIKE ${params.add(containsPattern(term.text))}`
        : `s.tokens @@ ${params.add(lexemeOf(term))}::tsquery`;
    return `SELECT s.id FROM ${t.catalogText} s WHERE ${condition}`;
  });
  // A document once, though many of its sections hold the term (INTERSECT keeps each id once too).
  return sets.length === 1 ? `SELECT DISTINCT id FROM (${sets[0]}) one` : sets.join(' INTERSECT ');
}

/**
 * A document's sections: normalised text (pg_trgm) and lexemes, with the three-character pieces of their
 * Japanese as lexemes too: a Japanese term is then found through the lexemes' GIN index alone
 * (strictConditions, acrossSections), with no LIKE recheck of every row or section holding a common
 * word (a section is about 12 kB; 「ノード」 in 460 of them took 13 ms to recheck).
 */
export function sectionRows(entry: CatalogEntry, body: string): { search_text: string; tokens: string[] }[] {
  return catalogSections(entry, body).map((section) => {
    const searchText = normalizeText(section);
    return { search_text: searchText, tokens: catalogTokens(searchText) };
  });
}

/** The lexemes of a catalog section's normalised text: short terms and words, and Japanese pieces. */
export function catalogTokens(searchText: string): string[] {
  const runs = textRuns(searchText);
  return [...shortTermTokenList(runs), ...cjkTrigramList(runs)];
}

/** The catalog cache and the knowledge base, searched with pg_trgm and the short-term lexemes. */
export class PgSearchIndex implements SearchIndex {
  constructor(
    private readonly ctx: PgContext,
    private readonly vectorQueue: PendingVector[],
  ) {}

  /** Knowledge rows added in this transaction and not sent yet (see addKnowledge). */
  private readonly knowledgeBuffer: KnowledgeEntry[] = [];

  async indexDocument(entry: CatalogEntry, body: string): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, entry.project);
    const text = catalogText(entry, body);
    const { t, ext } = this.ctx;
    const sections = sectionRows(entry, body);
    const head = sections[0]!;
    // A long document's sections, the first one included (part 0), are rows of catalog_text: a term is
    // looked for across them in that one table (acrossSections). A short document has none there.
    const parts = sections.length > 1 ? sections : [];
    // One round trip: the first section into the catalog row, the sections written over the old ones
    // (any beyond the new count removed), the folded n-gram vector, and the end of the old embeddings.
    const params = new Params([entry.doc_id, head.search_text, head.tokens, parts.length - 1]);
    const vector = ext.vectorTables
      ? `, vec AS (INSERT INTO ${t.catalogVec} (id, vec) SELECT id, ${params.add(foldedGramVector(text))}::${ext.vectorTables}.vector FROM cached
           ON CONFLICT (id) DO UPDATE SET vec = excluded.vec)`
      : '';
    const rest =
      parts.length > 0
        ? `, input AS (SELECT * FROM jsonb_to_recordset(${params.add(JSON.stringify(parts.map((s, part) => ({ part, ...s }))))}::jsonb)
             AS r(part integer, search_text text, tokens jsonb)),
           put AS (
             INSERT INTO ${t.catalogText} (id, part, search_text, tokens)
             SELECT cached.id, r.part, r.search_text, array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r.tokens)))
             FROM cached, input r
             ON CONFLICT (id, part) DO UPDATE SET search_text = excluded.search_text, tokens = excluded.tokens
           )`
        : '';
    // Sent without waiting: its answer is only checked (a bulk load prepares the next document meanwhile);
    // a missing row fails the transaction at its next statement or COMMIT.
    await sendChecked<{ id: string }>(
      this.ctx,
      `WITH cached AS (
         UPDATE ${t.catalog} SET search_text = $2, tokens = array_to_tsvector($3::text[]) WHERE doc_id = $1 RETURNING id
       )${rest},
       extra AS (DELETE FROM ${t.catalogText} WHERE id IN (SELECT id FROM cached) AND part > $4)${vector},
       stale AS (DELETE FROM ${t.vectors} WHERE kind = 'catalog' AND item IN (SELECT id FROM cached))
       SELECT id FROM cached`,
      params.values,
      (rows) => {
        if (rows.length === 0) throw new Error(`indexDocument: ${entry.doc_id} has no catalog row`);
        embedLater(this.ctx, 'catalog', Number(rows[0]!.id), text, this.vectorQueue);
      },
    );
  }

  async rebuildCatalog(
    project: string,
    docs: { entry: CatalogEntry; body: string }[],
    keep: string[] = [],
  ): Promise<number> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, project);
    const { t } = this.ctx;
    await query(
      this.ctx,
      `WITH cleared AS (
         UPDATE ${t.catalog} SET search_text = NULL, tokens = NULL
         WHERE project_key = $1 AND NOT (doc_id = ANY($2::text[])) RETURNING id
       )
       DELETE FROM ${t.catalogText} WHERE id IN (SELECT id FROM cleared)`,
      [keyOf(project), keep],
    );
    for (const doc of docs) await this.indexDocument(doc.entry, doc.body);
    return docs.length;
  }

  async searchCatalog(q: CatalogQuery): Promise<SearchResult<ScoredCatalogEntry>> {
    const terms = queryTerms(q.query ?? '');
    const warnings: string[] = [];
    if (terms.length === 0) {
      const params = new Params();
      const where = catalogFilter(q, params);
      const rows = await query<CatalogRow & { total_count: string }>(
        this.ctx,
        `SELECT ${CATALOG_COLUMNS}, count(*) OVER () AS total_count FROM ${this.ctx.t.catalog} c
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY c.updated_at DESC, c.id DESC LIMIT ${params.add(q.limit)}`,
        params.values,
      );
      const total = rows.length > 0 ? Number(rows[0]!.total_count) : await this.countCatalog(q);
      return {
        total_count: total,
        items: rows.map((r) => ({ ...toEntry(r), relevance_score: 1, all_terms: true })),
        warnings,
      };
    }
    const found = await this.search<CatalogRow>(
      'catalog',
      terms,
      q.query ?? '',
      (params, recheck) => catalogFilter(q, params, 'c', recheck),
      q.limit,
    );
    const scored = await this.score(
      'catalog',
      q.query ?? '',
      terms,
      found,
      (r) => catalogText(r, ''),
      warnings,
    );
    return {
      total_count: scored.total,
      items: scored.rows
        .slice(0, q.limit)
        .map(({ row, score, strict }) => ({ ...toEntry(row), relevance_score: score, all_terms: strict })),
      warnings,
    };
  }

  /** The number of matches when the page asked for is empty (limit beyond them, or none). */
  private async countCatalog(q: CatalogQuery): Promise<number> {
    const params = new Params();
    const where = catalogFilter(q, params);
    const rows = await query<{ n: string }>(
      this.ctx,
      `SELECT count(*) AS n FROM ${this.ctx.t.catalog} c ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
      params.values,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Buffers the entry: rows added in one transaction go to PostgreSQL together, in one statement per
   * KNOWLEDGE_BATCH rows, before the transaction's next statement or its COMMIT (import and migrate add
   * thousands; one round trip each made a bulk load 24× slower than the local store).
   */
  async addKnowledge(entry: KnowledgeEntry): Promise<void> {
    assertWritable(this.ctx);
    this.knowledgeBuffer.push(entry);
    this.ctx.pending = () => this.flushKnowledge();
    if (this.knowledgeBuffer.length >= KNOWLEDGE_BATCH) await flushPending(this.ctx);
  }

  private async flushKnowledge(): Promise<void> {
    const entries = this.knowledgeBuffer.splice(0);
    if (entries.length === 0) return;
    const { t, ext } = this.ctx;
    const texts = entries.map(knowledgeText);
    const rows = entries.map((entry, i) => {
      // One normalisation per text for its search text, its tokens and its vector.
      const searchText = normalizeText(texts[i]!);
      const runs = textRuns(searchText);
      return {
        n: i,
        knowledge_id: entry.knowledge_id,
        content: entry.content,
        category: entry.category,
        project: entry.project,
        project_key: entry.project === null ? null : keyOf(entry.project),
        tags: entry.tags,
        tag_keys: [...new Set(entry.tags.map(tagKey))],
        source: entry.source,
        created_at: entry.created_at,
        search_text: searchText,
        tokens: shortTermTokenList(runs),
        vec: ext.vectorTables ? foldedGramVector(texts[i]!, runs) : null,
      };
    });
    const json = (column: string) => `ARRAY(SELECT jsonb_array_elements_text(r.${column}))`;
    // Rows in the order they were added (ids are "newest first" in search), as one jsonb parameter.
    const vector = ext.vectorTables
      ? `, vec AS (INSERT INTO ${t.knowledgeVec} (id, vec)
           SELECT added.id, r.vec::${ext.vectorTables}.vector FROM added JOIN input r ON r.knowledge_id = added.knowledge_id)`
      : '';
    // At most a few batches in flight: a load in one transaction must not queue its whole self in memory.
    while (this.ctx.inflight.length >= KNOWLEDGE_IN_FLIGHT) await this.ctx.inflight.shift();
    // Sent without waiting (context.ts send): the rows of the next batch are prepared while PostgreSQL
    // inserts these, on the other core; the transaction's next statement or COMMIT waits for it.
    const sent = submit<{ id: string; n: number }>(
      this.ctx,
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(n integer, knowledge_id text, content text, category text,
           project text, project_key text, tags jsonb, tag_keys jsonb, source text, created_at text,
           search_text text, tokens jsonb, vec text)
       ),
       added AS (
         INSERT INTO ${t.knowledge} (knowledge_id, content, category, project, project_key, tags, tag_keys,
           source, created_at, search_text, tokens)
         SELECT r.knowledge_id, r.content, r.category, r.project, r.project_key, r.tags, ${json('tag_keys')},
           r.source, r.created_at, r.search_text, array_to_tsvector(${json('tokens')})
         FROM input r ORDER BY r.n
         RETURNING id, knowledge_id
       )${vector}
       SELECT added.id, r.n FROM added JOIN input r ON r.knowledge_id = added.knowledge_id`,
      [JSON.stringify(rows)],
      false,
    );
    const added = sent.then((ids) => {
      for (const row of ids.rows)
        embedLater(this.ctx, 'knowledge', Number(row.id), texts[row.n]!, this.vectorQueue);
    });
    added.catch(() => undefined);
    this.ctx.inflight.push(added);
  }

  async getKnowledge(knowledgeId: string): Promise<KnowledgeEntry | undefined> {
    const row = await queryOne<KnowledgeRow>(
      this.ctx,
      `SELECT ${KNOWLEDGE_COLUMNS} FROM ${this.ctx.t.knowledge} k WHERE k.knowledge_id = $1 ${forUpdate(this.ctx)}`,
      [knowledgeId],
    );
    return row ? toKnowledge(row) : undefined;
  }

  async updateKnowledge(entry: KnowledgeEntry): Promise<void> {
    assertWritable(this.ctx);
    const { t, ext } = this.ctx;
    const text = knowledgeText(entry);
    const searchText = normalizeText(text);
    const runs = textRuns(searchText);
    const params = new Params([
      entry.knowledge_id,
      entry.content,
      entry.category,
      entry.project,
      entry.project === null ? null : keyOf(entry.project),
      JSON.stringify(entry.tags),
      [...new Set(entry.tags.map(tagKey))],
      entry.source,
      searchText,
      shortTermTokenList(runs),
    ]);
    // One round trip: the row with its search cache, its folded n-gram vector, the end of its embeddings.
    const vector = ext.vectorTables
      ? `, vec AS (INSERT INTO ${t.knowledgeVec} (id, vec) SELECT id, ${params.add(foldedGramVector(text, runs))}::${ext.vectorTables}.vector FROM changed
           ON CONFLICT (id) DO UPDATE SET vec = excluded.vec)`
      : '';
    const rows = await query<{ id: string }>(
      this.ctx,
      `WITH changed AS (
         UPDATE ${t.knowledge} SET content = $2, category = $3, project = $4, project_key = $5, tags = $6,
           tag_keys = $7::text[], source = $8, search_text = $9, tokens = array_to_tsvector($10::text[])
         WHERE knowledge_id = $1 RETURNING id
       )${vector},
       stale AS (DELETE FROM ${t.vectors} WHERE kind = 'knowledge' AND item IN (SELECT id FROM changed))
       SELECT id FROM changed`,
      params.values,
    );
    if (rows.length === 0) throw new Error(`updateKnowledge: ${entry.knowledge_id} is gone`);
    embedLater(this.ctx, 'knowledge', Number(rows[0]!.id), text, this.vectorQueue);
  }

  async removeKnowledge(knowledgeId: string): Promise<void> {
    assertWritable(this.ctx);
    const { t } = this.ctx;
    // The n-gram vector goes with the row (ON DELETE CASCADE); stored embeddings are keyed by its id.
    await query(
      this.ctx,
      `WITH gone AS (DELETE FROM ${t.knowledge} WHERE knowledge_id = $1 RETURNING id)
       DELETE FROM ${t.vectors} WHERE kind = 'knowledge' AND item IN (SELECT id FROM gone)`,
      [knowledgeId],
    );
  }

  async searchKnowledge(q: KnowledgeQuery): Promise<SearchResult<ScoredKnowledge>> {
    const warnings: string[] = [];
    const terms = queryTerms(q.query);
    const filter = (params: Params, recheck: boolean) => {
      const where: string[] = [];
      const column = (name: string) => (recheck ? `(k.${name} || '')` : `k.${name}`);
      if (q.project !== undefined) where.push(`${column('project_key')} = ${params.add(keyOf(q.project))}`);
      if (q.category !== undefined) where.push(`${column('category')} = ${params.add(q.category)}`);
      const tags = [...new Set((q.tags ?? []).map(tagKey))];
      if (tags.length > 0) where.push(`k.tag_keys @> ${params.add(tags)}::text[]`);
      return where;
    };
    const found = await this.search<KnowledgeRow>('knowledge', terms, q.query, filter, q.limit);
    const scored = await this.score('knowledge', q.query, terms, found, (r) => knowledgeText(r), warnings);
    return {
      total_count: scored.total,
      items: scored.rows.slice(0, q.limit).map(({ row, score, strict }) => ({
        ...toKnowledge(row),
        relevance_score: score,
        all_terms: strict,
      })),
      warnings,
    };
  }

  async listKnowledge(project?: string): Promise<KnowledgeEntry[]> {
    const rows =
      project === undefined
        ? await query<KnowledgeRow>(
            this.ctx,
            `SELECT ${KNOWLEDGE_COLUMNS} FROM ${this.ctx.t.knowledge} k ORDER BY k.id`,
          )
        : await query<KnowledgeRow>(
            this.ctx,
            `SELECT ${KNOWLEDGE_COLUMNS} FROM ${this.ctx.t.knowledge} k WHERE k.project_key = $1 ORDER BY k.id`,
            [keyOf(project)],
          );
    return rows.map(toKnowledge);
  }

  /**
   * Candidates from the indexes, never from a scan of the table, in one statement (one round trip):
   * rows containing every term (counted in full, the newest scored), then — only when those are fewer
   * than asked — rows near the query: the nearest folded n-gram vectors by pgvector's HNSW index, or
   * (without pgvector) rows whose words are similar to it by pg_trgm's word similarity. The near part
   * sits behind a one-time filter on the strict count, so PostgreSQL does not run it when not needed.
   */
  private async search<R extends Identified>(
    kind: VectorKind,
    terms: QueryTerm[],
    text: string,
    filter: (params: Params, recheck: boolean) => string[],
    limit: number,
  ): Promise<{ strict: R[]; loose: R[]; strictTotal: number }> {
    const { ext, t } = this.ctx;
    const table = kind === 'catalog' ? t.catalog : t.knowledge;
    const alias = kind === 'catalog' ? 'c' : 'k';
    const columns = kind === 'catalog' ? CATALOG_COLUMNS : KNOWLEDGE_COLUMNS;
    const params = new Params();
    const filters = filter(params, false);
    // The rows containing the terms, with the filters checked on those rows: given the filters as
    // indexable conditions, PostgreSQL ANDs a bitmap of every row of the project and category (20,000
    // of the benchmark's 100,000) with the terms' bitmaps, which took longer than checking the rows the
    // terms found (EXPLAIN ANALYZE: 12 ms of a 23 ms search on a loaded machine).
    const termConditions = strictConditions(terms, alias, params, kind === 'catalog');
    const strictWhere =
      termConditions.length > 0 ? [...termConditions, ...filter(params, true)] : [...filters];
    // Long documents may hold their terms in different sections (see acrossSections). Their ids are
    // few: the catalog rows are fetched by primary key and the filters written plainly (written so that
    // no index serves them, their one-row estimate made PostgreSQL probe the ids once per catalog row).
    // The sections come first, on their own (a materialised CTE): left to join them with the catalog,
    // PostgreSQL walked every section by primary key and matched each one's lexemes, decompressing them
    // (14 ms for 「レプリケーション」 on 930 sections) instead of asking their GIN index (0.5 ms).
    const sections =
      kind === 'catalog' && terms.length > 0
        ? `sections AS MATERIALIZED (${acrossSections(terms, t, params)}),`
        : '';
    const across = sections
      ? `UNION SELECT ${alias}.id FROM sections a JOIN ${table} ${alias} ON ${alias}.id = a.id
           ${filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : ''}`
      : '';
    const nearWhere = [
      ...filters,
      `${alias}.id NOT IN (SELECT id FROM strict)`,
      `(SELECT count(*) FROM strict) < ${params.add(limit)}`,
    ];
    if (kind === 'catalog') nearWhere.push(`${alias}.search_text IS NOT NULL`);
    let near: string | undefined;
    if (ext.vector) {
      // hnsw.ef_search and hnsw.iterative_scan are set per connection (see PostgresBackend.connect):
      // filters are checked after the index walk, and pgvector keeps walking until enough rows pass.
      const vectors = kind === 'catalog' ? t.catalogVec : t.knowledgeVec;
      near = `SELECT ${columns} FROM ${vectors} v JOIN ${table} ${alias} ON ${alias}.id = v.id
        WHERE ${nearWhere.join(' AND ')}
        ORDER BY v.vec OPERATOR(${ext.vector}.<=>) ${params.add(foldedGramVector(text))}::${ext.vector}.vector
        LIMIT ${LOOSE_CANDIDATES}`;
    } else if (ext.trgm) {
      // pg_trgm.word_similarity_threshold is set per connection (see PostgresBackend.connect). Each term
      // is compared on its own: the whole query's word similarity falls with every word added, so a
      // longer query lost the rows matching one of its terms.
      const similar = (terms.length > 0 ? terms.slice(0, LOOSE_TERMS).map((term) => term.text) : [text]).map(
        (piece) => `${params.add(normalizeText(piece))} OPERATOR(${ext.trgm}.<%) ${alias}.search_text`,
      );
      near = `SELECT ${columns} FROM ${table} ${alias}
        WHERE (${similar.join(' OR ')}) AND ${nearWhere.join(' AND ')}
        ORDER BY ${alias}.id DESC LIMIT ${LOOSE_CANDIDATES}`;
    }
    // The sections' lexemes (about 11 kB a section, stored compressed) are matched exactly by their GIN
    // index; a table of a few hundred sections looks cheap to scan, but a scan decompresses every
    // tsvector: 5 ms a term against 0.5–1 ms through the index (10,000 documents, 513 sections). Not
    // waited for: it goes out in front of the search, for this transaction only.
    if (across) await send(this.ctx, 'SET LOCAL enable_seqscan = off');
    const rows = await query<R & { total_count: string | null; strict: boolean }>(
      this.ctx,
      // The matches first, then the newest of them: given `ORDER BY id DESC LIMIT` over the matching
      // rows, PostgreSQL walks the primary key backwards filtering every row (the count needs them all),
      // a scan of the whole table; the CTE makes it use the trigram and lexeme indexes (bitmap scans).
      `WITH ${sections} matches AS MATERIALIZED (
         SELECT ${alias}.id FROM ${table} ${alias}
         WHERE ${strictWhere.length > 0 ? strictWhere.join(' AND ') : 'true'}
         ${across}
       ),
       strict AS MATERIALIZED (
         SELECT ${columns}, (SELECT count(*) FROM matches) AS total_count FROM ${table} ${alias}
         WHERE ${alias}.id IN (SELECT id FROM matches ORDER BY id DESC LIMIT ${STRICT_CANDIDATES})
         ORDER BY ${alias}.id DESC
       )
       SELECT *, true AS strict FROM strict
       ${near ? `UNION ALL SELECT *, NULL, false FROM (${near}) near` : ''}`,
      params.values,
    );
    const strict: R[] = [];
    const loose: R[] = [];
    let strictTotal = 0;
    for (const r of rows) {
      const { total_count, strict: isStrict, ...row } = r;
      if (isStrict) {
        strictTotal = Number(total_count);
        strict.push(row as unknown as R);
      } else loose.push(row as unknown as R);
    }
    return { strict, loose, strictTotal };
  }

  private async score<R extends Identified>(
    kind: VectorKind,
    text: string,
    terms: QueryTerm[],
    found: { strict: R[]; loose: R[]; strictTotal: number },
    textOf: (row: R) => string,
    warnings: string[],
  ): Promise<{ total: number; rows: { row: R; score: number; strict: boolean }[] }> {
    const all = [...found.strict, ...found.loose];
    const texts = all.map((row) => ({ id: Number(row.id), text: textOf(row) }));
    const sims = await similarities(this.ctx, kind, text, texts, warnings, this.vectorQueue);
    const rows = all
      .map((row, i) => {
        const strict = i < found.strict.length;
        const share = strict ? 1 : coverage(terms, texts[i]!.text);
        return { row, score: relevance(share, sims[i]!), strict };
      })
      .filter((r) => r.strict || r.score >= LOOSE_MIN_RELEVANCE)
      .sort((a, b) => b.score - a.score || Number(b.row.id) - Number(a.row.id));
    // The total counts the entries containing every term: the near ones depend on how many were asked
    // for (they are only looked for when the full matches do not fill the page).
    return { total: found.strictTotal, rows };
  }
}
