/**
 * Versioned schema migrations of the local store, applied in order under BEGIN IMMEDIATE (so two
 * servers starting together migrate once). `PRAGMA user_version` records the version reached. Never
 * edit a released migration: add the next one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: every store of part 1.
  `
  CREATE TABLE projects (
    project_id TEXT PRIMARY KEY COLLATE NOCASE,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    folder TEXT NOT NULL,
    config TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    -- delete_project removes the config from view but keeps the row: the folder stays reserved for the
    -- project's data, and setting the same id up again finds that data.
    deleted_at TEXT
  );
  CREATE TABLE current_project (
    user TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    switched_at TEXT NOT NULL
  );
  CREATE TABLE sessions (
    project TEXT NOT NULL COLLATE NOCASE,
    user TEXT NOT NULL,
    current_phase TEXT NOT NULL DEFAULT '',
    current_task TEXT NOT NULL DEFAULT '',
    last_completed TEXT NOT NULL DEFAULT '',
    blockers TEXT NOT NULL DEFAULT '[]',
    notes TEXT NOT NULL DEFAULT '',
    last_summary TEXT NOT NULL DEFAULT '',
    next_action TEXT NOT NULL DEFAULT '',
    started_at TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (project, user)
  );
  CREATE TABLE tasks (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL COLLATE NOCASE,
    phase TEXT NOT NULL,
    task_id TEXT NOT NULL COLLATE NOCASE,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('not_started', 'in_progress', 'completed', 'blocked')),
    blockers TEXT NOT NULL DEFAULT '[]',
    completed_at TEXT,
    notes TEXT NOT NULL DEFAULT '',
    priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')),
    category TEXT NOT NULL DEFAULT '',
    blocked_by TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL,
    UNIQUE (project, phase, task_id)
  );
  CREATE TABLE catalog (
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL COLLATE NOCASE,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    doc_type TEXT NOT NULL,
    phase_task TEXT NOT NULL,
    feature TEXT NOT NULL DEFAULT '',
    reference_timing TEXT NOT NULL DEFAULT '',
    related_docs TEXT NOT NULL DEFAULT '[]',
    keywords TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at TEXT NOT NULL,
    location TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    keywords_generated INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX catalog_by_project ON catalog (project, status, updated_at);
  CREATE INDEX catalog_by_phase_task ON catalog (project, phase_task);
  CREATE UNIQUE INDEX catalog_by_location ON catalog (project, location);
  CREATE VIRTUAL TABLE catalog_tri USING fts5 (text, tokenize = 'trigram', content = '', contentless_delete = 1);
  CREATE VIRTUAL TABLE catalog_short USING fts5 (text, tokenize = 'ascii', content = '', contentless_delete = 1);
  CREATE TABLE knowledge (
    id INTEGER PRIMARY KEY,
    knowledge_id TEXT NOT NULL UNIQUE,
    content TEXT NOT NULL,
    category TEXT NOT NULL,
    project TEXT COLLATE NOCASE,
    tags TEXT NOT NULL DEFAULT '[]',
    source TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
  );
  CREATE INDEX knowledge_by_project ON knowledge (project, category);
  CREATE TABLE knowledge_tags (
    tag TEXT NOT NULL,
    id INTEGER NOT NULL REFERENCES knowledge (id) ON DELETE CASCADE,
    PRIMARY KEY (tag, id)
  ) WITHOUT ROWID;
  CREATE VIRTUAL TABLE knowledge_tri USING fts5 (text, tokenize = 'trigram', content = '', contentless_delete = 1);
  CREATE VIRTUAL TABLE knowledge_short USING fts5 (text, tokenize = 'ascii', content = '', contentless_delete = 1);
  CREATE TABLE vectors (
    kind TEXT NOT NULL,
    item INTEGER NOT NULL,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (kind, item, model)
  ) WITHOUT ROWID;
  `,
  // 2: document frequencies of the indexed pieces, so a fuzzy search starts from the rarest ones.
  `
  CREATE VIRTUAL TABLE catalog_tri_vocab USING fts5vocab (catalog_tri, 'row');
  CREATE VIRTUAL TABLE catalog_short_vocab USING fts5vocab (catalog_short, 'row');
  CREATE VIRTUAL TABLE knowledge_tri_vocab USING fts5vocab (knowledge_tri, 'row');
  CREATE VIRTUAL TABLE knowledge_short_vocab USING fts5vocab (knowledge_short, 'row');
  `,
  // 3: what a remote backend remembers between calls (Google: folder and sheet ids, indexed document text).
  `
  CREATE TABLE remote_cache (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (kind, key)
  ) WITHOUT ROWID;
  `,
  // 4: size and mtime of each document file as the search index last took it in, so the check after a
  // start reads only the files that changed while no watcher was running.
  `
  CREATE TABLE document_files (
    project TEXT NOT NULL COLLATE NOCASE,
    location TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    PRIMARY KEY (project, location)
  ) WITHOUT ROWID;
  `,
  // 5: documents are indexed whole (before: their first 2,000 characters) and emoji are indexed; the
  // documents and knowledge this changes are indexed again once, at the next open (upgrade.ts).
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('index_again', 'whole documents, emoji');
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
