/**
 * Names of prismind's tables in its schema, quoted once (the schema name is checked to be a plain
 * identifier before it gets here). Every statement uses these, never the search_path: servers of
 * several stores (schemas) may share one session pool (PGlite's socket multiplexes one session).
 */
export interface Tables {
  schema: string;
  migrations: string;
  meta: string;
  projects: string;
  folders: string;
  current: string;
  sessions: string;
  tasks: string;
  catalog: string;
  /**
   * The rest of a long document's search cache: its sections after the first (see catalogSections);
   * the first stays in the catalog row's own search columns.
   */
  catalogText: string;
  documents: string;
  knowledge: string;
  vectors: string;
  knowledgeVec: string;
  catalogVec: string;
}

export function tablesOf(schema: string): Tables {
  const q = (name: string) => `"${schema}"."${name}"`;
  return {
    schema: `"${schema}"`,
    migrations: q('migrations'),
    meta: q('meta'),
    projects: q('projects'),
    folders: q('project_folders'),
    current: q('current_project'),
    sessions: q('sessions'),
    tasks: q('tasks'),
    catalog: q('catalog'),
    catalogText: q('catalog_text'),
    documents: q('documents'),
    knowledge: q('knowledge'),
    vectors: q('vectors'),
    knowledgeVec: q('knowledge_vec'),
    catalogVec: q('catalog_vec'),
  };
}

/** Where the extensions live (their schema, quoted), if they are installed. */
export interface Extensions {
  trgm: string | undefined;
  /** pgvector's schema when searches use the n-gram vectors (installed and storage.pgvector on). */
  vector: string | undefined;
  /**
   * pgvector's schema when the n-gram vector tables exist: every write fills them and a bulk load
   * rebuilds their indexes whatever this server's storage.pgvector says, so a teammate with it off
   * leaves no entry unfound by those who search with vectors.
   */
  vectorTables: string | undefined;
}

/** Storage options of every GIN index (see migration 2). */
const GIN_OPTIONS = 'gin_pending_list_limit = 256';

/**
 * maintenance_work_mem of an HNSW build (this transaction only): a graph that does not fit is built far
 * more slowly. 100,000 n-gram vectors take about 150 MB; memory is only taken as the graph grows.
 */
export const INDEX_BUILD_MEMORY = '1GB';

/** Dimension of the hashed character n-gram vectors kept for pgvector's HNSW index. */
export const GRAM_DIM = 256;

/**
 * Versioned migrations of the PostgreSQL store, applied in order under an advisory lock (two servers
 * starting together migrate once); `migrations` records each version. Never edit a released one: add
 * the next. Timestamps stay ISO 8601 text, exactly as the tools show them and as the local store keeps them.
 */
export function migrations(t: Tables): readonly string[] {
  return [
    // 1: every store of part 1.
    `
    CREATE TABLE ${t.meta} (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE ${t.projects} (
      project_key text PRIMARY KEY,
      project_id text NOT NULL,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      config jsonb NOT NULL,
      created_at text NOT NULL,
      updated_at text NOT NULL,
      deleted_at text,
      views_created boolean NOT NULL DEFAULT false
    );
    CREATE TABLE ${t.folders} (
      project_key text NOT NULL,
      folder text NOT NULL,
      PRIMARY KEY (project_key, folder)
    );
    CREATE TABLE ${t.current} (
      user_name text PRIMARY KEY,
      project_id text NOT NULL,
      switched_at text NOT NULL
    );
    CREATE TABLE ${t.sessions} (
      project_key text NOT NULL,
      project text NOT NULL,
      user_name text NOT NULL,
      current_phase text NOT NULL DEFAULT '',
      current_task text NOT NULL DEFAULT '',
      last_completed text NOT NULL DEFAULT '',
      blockers jsonb NOT NULL DEFAULT '[]',
      notes text NOT NULL DEFAULT '',
      last_summary text NOT NULL DEFAULT '',
      next_action text NOT NULL DEFAULT '',
      started_at text,
      updated_at text NOT NULL,
      PRIMARY KEY (project_key, user_name)
    );
    CREATE INDEX sessions_latest ON ${t.sessions} (project_key, updated_at);
    CREATE TABLE ${t.tasks} (
      id bigserial PRIMARY KEY,
      project_key text NOT NULL,
      phase text NOT NULL,
      task_id text NOT NULL,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      status text NOT NULL CHECK (status IN ('not_started', 'in_progress', 'completed', 'blocked')),
      blockers jsonb NOT NULL DEFAULT '[]',
      completed_at text,
      notes text NOT NULL DEFAULT '',
      priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')),
      category text NOT NULL DEFAULT '',
      blocked_by jsonb NOT NULL DEFAULT '[]',
      updated_at text NOT NULL,
      -- Bumped by every update: a row version for readers that compare what they saw.
      version integer NOT NULL DEFAULT 1
    );
    CREATE UNIQUE INDEX tasks_by_task ON ${t.tasks} (project_key, phase, lower(task_id));
    CREATE TABLE ${t.catalog} (
      id bigserial PRIMARY KEY,
      doc_id text NOT NULL UNIQUE,
      project text NOT NULL,
      project_key text NOT NULL,
      name text NOT NULL,
      source text NOT NULL,
      doc_type text NOT NULL,
      phase_task text NOT NULL,
      feature text NOT NULL DEFAULT '',
      reference_timing text NOT NULL DEFAULT '',
      related_docs jsonb NOT NULL DEFAULT '[]',
      keywords jsonb NOT NULL DEFAULT '[]',
      updated_at text NOT NULL,
      created_by text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
      created_at text NOT NULL,
      location text NOT NULL,
      content_hash text NOT NULL,
      keywords_generated boolean NOT NULL DEFAULT false,
      -- The search cache: normalised text (pg_trgm) and the short-term lexemes (1–2 character CJK pieces, words).
      search_text text,
      tokens tsvector,
      version integer NOT NULL DEFAULT 1
    );
    CREATE INDEX catalog_by_project ON ${t.catalog} (project_key, status, updated_at);
    CREATE INDEX catalog_by_phase_task ON ${t.catalog} (project_key, phase_task);
    CREATE UNIQUE INDEX catalog_by_location ON ${t.catalog} (project_key, location);
    CREATE INDEX catalog_tokens ON ${t.catalog} USING gin (tokens);
    CREATE TABLE ${t.documents} (
      project_key text NOT NULL,
      location text NOT NULL,
      doc_id text NOT NULL,
      folder text NOT NULL,
      file_name text NOT NULL,
      body text NOT NULL,
      content_hash text NOT NULL,
      updated_at text NOT NULL,
      PRIMARY KEY (project_key, location)
    );
    CREATE INDEX documents_by_folder ON ${t.documents} (project_key, folder);
    CREATE TABLE ${t.knowledge} (
      id bigserial PRIMARY KEY,
      knowledge_id text NOT NULL UNIQUE,
      content text NOT NULL,
      category text NOT NULL,
      project text,
      project_key text,
      tags jsonb NOT NULL DEFAULT '[]',
      tag_keys text[] NOT NULL DEFAULT '{}',
      source text NOT NULL DEFAULT '',
      created_at text NOT NULL,
      search_text text NOT NULL,
      tokens tsvector NOT NULL
    );
    CREATE INDEX knowledge_by_project ON ${t.knowledge} (project_key, category);
    CREATE INDEX knowledge_tag_keys ON ${t.knowledge} USING gin (tag_keys);
    CREATE INDEX knowledge_tokens ON ${t.knowledge} USING gin (tokens);
    CREATE TABLE ${t.vectors} (
      kind text NOT NULL,
      item bigint NOT NULL,
      model text NOT NULL,
      dim integer NOT NULL,
      vector real[] NOT NULL,
      PRIMARY KEY (kind, item, model)
    );
    `,
    // 2: GIN indexes move new entries from their pending list into the index at 256 kB instead of 4 MB.
    // Every search scans that list linearly: after a bulk load a full one made each search_knowledge
    // take 100 ms or more (and planning as much again) until autovacuum came by.
    `
    ALTER INDEX ${t.schema}.knowledge_tokens SET (${GIN_OPTIONS});
    ALTER INDEX ${t.schema}.knowledge_tag_keys SET (${GIN_OPTIONS});
    ALTER INDEX ${t.schema}.catalog_tokens SET (${GIN_OPTIONS});
    ALTER INDEX IF EXISTS ${t.schema}.knowledge_trgm SET (${GIN_OPTIONS});
    ALTER INDEX IF EXISTS ${t.schema}.catalog_trgm SET (${GIN_OPTIONS});
    `,
    // 3: start_session looks up the documents marked for session start: without an index that was a
    // scan of the whole catalog on every call.
    `
    CREATE INDEX catalog_by_reference_timing ON ${t.catalog} (project_key, reference_timing);
    `,
    // 4: start_session's lists (a task's, the session-start and the common documents: the newest five of
    // each) are read from the index in order; before, every matching row was fetched and sorted — 2,000
    // common documents of 10,000 took 20 ms. The new indexes serve every lookup of the ones they replace.
    `
    CREATE INDEX catalog_recent_by_phase_task
      ON ${t.catalog} (project_key, phase_task, status, updated_at DESC, id DESC);
    CREATE INDEX catalog_recent_by_reference_timing
      ON ${t.catalog} (project_key, reference_timing, status, updated_at DESC, id DESC);
    DROP INDEX ${t.schema}.catalog_by_phase_task;
    DROP INDEX ${t.schema}.catalog_by_reference_timing;
    `,
    // 5: documents are indexed whole, in sections of about 4,000 characters (a tsvector holds at most
    // 1 MB, and a search rechecks the rows it finds). The catalog row's own search columns keep the
    // fields and the first section; the sections after it, of long documents only, are rows here. The
    // documents longer than the 2,000 characters version 4 indexed are indexed again at this start
    // (migrate.ts); the GIN indexes of this table are built then too (bulkIndexes).
    `
    CREATE TABLE ${t.catalogText} (
      id bigint NOT NULL REFERENCES ${t.catalog} (id) ON DELETE CASCADE,
      part integer NOT NULL CHECK (part > 0),
      search_text text NOT NULL,
      tokens tsvector NOT NULL,
      PRIMARY KEY (id, part)
    );
    -- A section (about 12 kB of Japanese) is stored out of line; uncompressed, a search that rechecks
    -- it (LIKE after the trigram index) reads it instead of decompressing it.
    ALTER TABLE ${t.catalogText} ALTER COLUMN search_text SET STORAGE EXTERNAL;
    `,
    // 6: a long document's first section is a row of catalog_text too (part 0), and every catalog row's
    // lexemes carry the three-character pieces of its Japanese: a search then finds Japanese terms
    // through the lexemes' GIN indexes alone. The rows are indexed again at this start (migrate.ts),
    // which writes them anew under the catalog's new storage setting: a row stays uncompressed up to a
    // page (8 kB) instead of 2 kB, so a search that checks the text of the rows its lexemes found does
    // not decompress each (「レプリケーション」 on 765 rows: 5.9 ms with the default, 1.6 ms with this).
    `
    ALTER TABLE ${t.catalog} SET (toast_tuple_target = 8160);
    ALTER TABLE ${t.catalogText} DROP CONSTRAINT catalog_text_part_check,
      ADD CONSTRAINT catalog_text_part_check CHECK (part >= 0);
    `,
  ];
}

/** Objects that need pg_trgm: trigram indexes for substring (LIKE) and word-similarity search. */
export function trgmFeature(t: Tables, ext: string): string {
  return `
    CREATE INDEX IF NOT EXISTS knowledge_trgm ON ${t.knowledge} USING gin (search_text ${ext}.gin_trgm_ops)
      WITH (${GIN_OPTIONS});
    CREATE INDEX IF NOT EXISTS catalog_trgm ON ${t.catalog} USING gin (search_text ${ext}.gin_trgm_ops)
      WITH (${GIN_OPTIONS});
    CREATE INDEX IF NOT EXISTS catalog_text_trgm ON ${t.catalogText} USING gin (search_text ${ext}.gin_trgm_ops)
      WITH (${GIN_OPTIONS});
  `;
}

/** Objects that need pgvector: n-gram vectors with HNSW indexes (cosine) for similarity candidates. */
export function vectorFeature(t: Tables, ext: string): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.knowledgeVec} (
      id bigint PRIMARY KEY REFERENCES ${t.knowledge} (id) ON DELETE CASCADE,
      vec ${ext}.vector(${GRAM_DIM}) NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${t.catalogVec} (
      id bigint PRIMARY KEY REFERENCES ${t.catalog} (id) ON DELETE CASCADE,
      vec ${ext}.vector(${GRAM_DIM}) NOT NULL
    );
    ${vectorIndex(t, ext, 'knowledge')};
    ${vectorIndex(t, ext, 'catalog')};
  `;
}

/** The HNSW indexes of the n-gram vectors, made with their tables. */
export const VECTOR_INDEXES = { knowledge: 'knowledge_vec_hnsw', catalog: 'catalog_vec_hnsw' } as const;

/**
 * The indexes of knowledge or catalog rows that a bulk load drops and builds again at the end (one
 * build is far cheaper than as many inserts: GIN sorts its entries once, HNSW links each vector once):
 * the search cache's lexemes, trigrams and n-gram vectors, as far as the extensions are there.
 */
export function bulkIndexes(
  t: Tables,
  ext: Extensions,
  kind: 'knowledge' | 'catalog',
): { name: string; create: string }[] {
  // The catalog's search text: the catalog row's own columns (the first section) and catalog_text.
  const tables: [string, string][] =
    kind === 'knowledge'
      ? [['knowledge', t.knowledge]]
      : [
          ['catalog', t.catalog],
          ['catalog_text', t.catalogText],
        ];
  const indexes = tables.map(([prefix, table]) => ({
    name: `${prefix}_tokens`,
    create: `CREATE INDEX IF NOT EXISTS ${prefix}_tokens ON ${table} USING gin (tokens) WITH (${GIN_OPTIONS})`,
  }));
  if (kind === 'knowledge') {
    indexes.push({
      name: 'knowledge_tag_keys',
      create: `CREATE INDEX IF NOT EXISTS knowledge_tag_keys ON ${t.knowledge} USING gin (tag_keys) WITH (${GIN_OPTIONS})`,
    });
  }
  if (ext.trgm) {
    for (const [prefix, table] of tables) {
      indexes.push({
        name: `${prefix}_trgm`,
        create: `CREATE INDEX IF NOT EXISTS ${prefix}_trgm ON ${table} USING gin (search_text ${ext.trgm}.gin_trgm_ops) WITH (${GIN_OPTIONS})`,
      });
    }
  }
  if (ext.vectorTables)
    indexes.push({ name: VECTOR_INDEXES[kind], create: vectorIndex(t, ext.vectorTables, kind) });
  return indexes;
}

/**
 * HNSW parameters: half pgvector's defaults (m 16, ef_construction 64). On the benchmark's 100,000
 * knowledge vectors (loaded machine) the build took 23 s instead of about 110 s, and each insert walks
 * a smaller graph; recall of the exact 10 nearest (ef_search 100, bench/hnsw-recall.mjs) went from
 * 98.5 % to 90.5 %. These vectors only gather candidates, which are then ranked by the exact n-gram cosine.
 * An index built before keeps its parameters until a bulk load builds it again.
 */
const HNSW_PARAMETERS = 'm = 8, ef_construction = 32';

export function vectorIndex(t: Tables, ext: string, kind: keyof typeof VECTOR_INDEXES): string {
  const table = kind === 'knowledge' ? t.knowledgeVec : t.catalogVec;
  return `CREATE INDEX IF NOT EXISTS ${VECTOR_INDEXES[kind]} ON ${table} USING hnsw (vec ${ext}.vector_cosine_ops)
    WITH (${HNSW_PARAMETERS})`;
}
