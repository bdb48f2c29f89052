import type {
  CatalogEntry,
  CurrentProject,
  KnowledgeEntry,
  ProjectConfig,
  ScoredCatalogEntry,
  ScoredKnowledge,
  SessionState,
  TaskRow,
} from '../model/types.js';

/**
 * The stores of one backend. Every method is async and speaks plain data, so the same engine runs on
 * the local folder (SQLite + Markdown), on Google Workspace (Sheets/Drive/Docs) and on PostgreSQL.
 * A store method never commits on its own: it runs inside `Backend.read` or `Backend.write`.
 */
export interface Stores {
  projects: ProjectRegistry;
  sessions: SessionStore;
  documents: DocumentStore;
  tracker: Tracker;
  catalog: Catalog;
  search: SearchIndex;
}

/** Project configs (the spec's `project_config` documents) and the current project of each user. */
export interface ProjectRegistry {
  get(projectId: string): Promise<ProjectConfig | undefined>;
  list(): Promise<ProjectConfig[]>;
  /** Fails with ALREADY_EXISTS when the id is taken (even by a writer that raced this one). */
  create(config: ProjectConfig): Promise<void>;
  update(config: ProjectConfig): Promise<void>;
  /** Removes the config only; documents, progress and knowledge stay. */
  remove(projectId: string): Promise<void>;
  getCurrent(user: string): Promise<CurrentProject | undefined>;
  setCurrent(user: string, current: CurrentProject): Promise<void>;
  /** Where the project's own data lives, for messages ("…/Projects/TrapxTrapCpp"). */
  dataLocation(config: ProjectConfig): string;
}

/** Session state per project and user (the spec's MCP Memory Server key `session:{project}:{user}`). */
export interface SessionStore {
  get(project: string, user: string): Promise<SessionState | undefined>;
  /** Saves the state; returns where it went (shown as `saved_to`). */
  put(state: SessionState): Promise<string[]>;
  /**
   * The project's last handover: the most recently saved state of any user that hands something over
   * (a summary, a next action or notes; see handsOver), else the most recent state.
   */
  latest(project: string): Promise<SessionState | undefined>;
  /** Every user's state of the project (for export). */
  list(project: string): Promise<SessionState[]>;
}

/** The progress sheet: one row per task, in sheet order. */
export interface Tracker {
  list(project: string): Promise<TaskRow[]>;
  /** Fails with ALREADY_EXISTS when the phase already has that task id. */
  add(project: string, task: TaskRow): Promise<void>;
  /** Replaces the row with the same phase and task id. */
  update(project: string, task: TaskRow): Promise<void>;
  /** Creates the project's summary, progress and catalog sheets that are missing; returns their names. */
  createSheets(project: ProjectConfig): Promise<string[]>;
}

/** A document file a store did not read, and why (said in the answer). */
export interface SkippedDocument {
  location: string;
  message: string;
}

/** A document's text as stored, with the hash of its body. */
export interface StoredDocument {
  body: string;
  content_hash: string;
  /** Catalog fields the document itself carries (front matter), when it carries any. */
  fields?: Partial<CatalogEntry>;
  /** Front-matter fields typed with the wrong kind of value (a map, or one word for a list): field → the value. */
  unreadFields?: Record<string, string>;
}

export interface NewDocument {
  entry: CatalogEntry;
  /** Folder of the document inside the project (`設計書`, `実装手順書`, …). */
  folder: string;
  /** File or document name without extension, already following the naming rules. */
  file_name: string;
  body: string;
}

/** How a write changes the body, for stores that can apply the change itself (append without rewriting). */
export interface WriteChange {
  /** The text appended after the existing body (`body` is then the existing body plus this). */
  append?: string;
}

/** Design docs, procedure docs and the other document types. */
export interface DocumentStore {
  /** 保存先 of the documents this store makes (default: the backend's kind). */
  readonly source?: string;
  /** Documents carry their catalog fields (front matter) and get them written on sync (default true). */
  readonly carriesFields?: boolean;
  /**
   * Creates the document in its folder; returns its location, URL and body hash, and the document's
   * own id when the store assigns ids (a Google Docs id).
   */
  create(
    project: ProjectConfig,
    doc: NewDocument,
  ): Promise<{ location: string; url: string; content_hash: string; doc_id?: string }>;
  /**
   * The document, or undefined when it is gone. A document the store will not read (a link, a special
   * file, one over the size limit) throws a ToolError that says so.
   */
  read(project: ProjectConfig, entry: CatalogEntry): Promise<StoredDocument | undefined>;
  /** Replaces the body (and the catalog fields the document carries); returns the new body hash. */
  write(
    project: ProjectConfig,
    entry: CatalogEntry,
    body: string,
    change?: WriteChange,
  ): Promise<{ content_hash: string }>;
  /**
   * Every document found in the project's folders (for sync_catalog), and the files it did not read:
   * links, special files and files over the size limit (the local store's folder holds what people put
   * there).
   */
  scan(
    project: ProjectConfig,
  ): Promise<{ documents: { location: string; doc: StoredDocument }[]; skipped: SkippedDocument[] }>;
  url(project: ProjectConfig, entry: CatalogEntry): string;
  /** Names already used in a folder (for the next free sequence number of procedure docs). */
  namesIn(project: ProjectConfig, folder: string): Promise<string[]>;
  /** Creates the document folders that are missing; returns the names of those it created. */
  ensureFolders(project: ProjectConfig, folders: string[]): Promise<string[]>;
}

export interface CatalogFilter {
  project?: string;
  doc_type?: string;
  phase_task?: string;
  feature?: string;
  reference_timing?: string;
  status?: 'active' | 'archived' | 'all';
  /** The document at this location in the project folder (`設計書/x.md`). */
  location?: string;
  /** phase_task starting with this ("P4-" for every task of phase 4). */
  phase_task_prefix?: string;
  /** Most entries to return (newest first when set). */
  limit?: number;
}

export interface SyncCounts {
  synced: number;
  added: number;
  updated: number;
  archived: number;
}

/** The master list of documents (the spec's 目録 sheet). */
export interface Catalog {
  get(docId: string): Promise<CatalogEntry | undefined>;
  list(filter: CatalogFilter): Promise<CatalogEntry[]>;
  /**
   * `list` of each filter, in order: start_session asks for four lists at once, which a database server
   * answers in one round trip instead of four.
   */
  listEach(filters: CatalogFilter[]): Promise<CatalogEntry[][]>;
  put(entry: CatalogEntry): Promise<void>;
  /**
   * For a catalog kept apart from the documents (the Google 目録 sheet): rebuilds the cache from that
   * master, registers documents found in the project's folders that it lacks and archives rows whose
   * document is gone. Without it, sync_catalog treats the document files as the master.
   */
  syncFromMaster?(project: ProjectConfig, at: string): Promise<SyncCounts>;
}

export interface CatalogQuery extends CatalogFilter {
  query?: string;
  limit: number;
}

export interface KnowledgeQuery {
  query: string;
  category?: string;
  project?: string;
  tags?: string[];
  limit: number;
}

export interface SearchResult<T> {
  total_count: number;
  items: T[];
  /** E.g. "the embedder did not answer; n-gram similarity was used". */
  warnings: string[];
}

/** The catalog cache and the knowledge base (the spec's RAG server). */
export interface SearchIndex {
  /** Adds or refreshes the cache entry of a document (name, keywords, fields and the start of the body). */
  indexDocument(entry: CatalogEntry, body: string): Promise<void>;
  /**
   * Clears the project's cache and fills it again; returns the number of entries indexed. The entries
   * of `keep` (doc_ids of documents that could not be read this time) stay as they are.
   */
  rebuildCatalog(
    project: string,
    docs: { entry: CatalogEntry; body: string }[],
    keep?: string[],
  ): Promise<number>;
  searchCatalog(query: CatalogQuery): Promise<SearchResult<ScoredCatalogEntry>>;
  addKnowledge(entry: KnowledgeEntry): Promise<void>;
  /** One knowledge entry (inside a write: held until the transaction ends, for update or removal). */
  getKnowledge(knowledgeId: string): Promise<KnowledgeEntry | undefined>;
  /** Replaces the entry with the same id, its tags and its search index entry. */
  updateKnowledge(entry: KnowledgeEntry): Promise<void>;
  /** Removes the entry, its tags, its search index entry and its vectors. */
  removeKnowledge(knowledgeId: string): Promise<void>;
  searchKnowledge(query: KnowledgeQuery): Promise<SearchResult<ScoredKnowledge>>;
  /** Knowledge entries by id (for export). */
  listKnowledge(project?: string): Promise<KnowledgeEntry[]>;
}

export type BackendKind = 'local' | 'google' | 'postgres';

/** What a backend runs on, chosen at start (reported by list_projects as `storage`). */
export interface BackendInfo {
  backend: BackendKind;
  location: string;
  /** How terms are matched, e.g. "SQLite FTS5 trigram + short-term index", "pg_trgm …". */
  keyword_search: string;
  /** Where fuzzy candidates come from, e.g. "pgvector HNSW over n-gram vectors". */
  similarity_search: string;
  /** What relevance_score's similarity half is computed from. */
  similarity_score: string;
}

export interface WriteOptions {
  /**
   * false: leave the generated views (the local store's 目録.md …) to the next write. Taking in a hand
   * edit before a search must not rewrite a 10,000-row 目録.md (half a second) inside that search.
   * Backends without generated views ignore it.
   */
  views?: boolean;
  /**
   * false: the write saves only what can be derived again (start_session's current project and session
   * start), so a backend may commit it without waiting for its disk. PostgreSQL then commits with
   * `synchronous_commit = off`: the database stays consistent, and a crash of the database server may
   * lose the last such commits — what the local store (SQLite, WAL, synchronous NORMAL) risks on a
   * power cut for every write. Every other write waits for the disk.
   */
  durable?: boolean;
}

export interface Backend {
  readonly kind: BackendKind;
  /** Human-readable location (the home folder, a database URL without password). */
  readonly location: string;
  /** The search machinery chosen at start, for the runtime report. */
  readonly info?: BackendInfo;
  /**
   * This process may only read the store (permissions, a read-only file system): every write fails with
   * PERMISSION_DENIED, and operations that would record something on the way (a session's start, a hand
   * edit seen) answer without recording it.
   */
  readonly readOnly?: boolean;
  /**
   * Present when a person can change the documents beside the server (the local store's Markdown
   * files): searches ask it which files changed and index them first. PostgreSQL keeps documents as
   * rows only the server writes, and the Google backend reads Google's state, so they have none.
   */
  readonly documentChanges?: DocumentChanges;
  /** Runs reads on a consistent snapshot. */
  read<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /**
   * Runs reads and writes so that all of its writes happen together or not at all, serialised with
   * every other writer (other calls, other server processes on the same store).
   */
  write<T>(work: (stores: Stores) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Runs a large import (migrate, import, a benchmark's load) of about this many new rows. A backend may
   * put costly index upkeep off until the end — PostgreSQL drops its HNSW indexes and builds each once
   * (one build is many times cheaper than as many inserts). Other servers keep working meanwhile; their
   * similarity searches are slower until the index is back.
   */
  bulk?<T>(size: BulkSize, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** How many rows a bulk import adds (estimates do). */
export interface BulkSize {
  knowledge: number;
  documents: number;
}

/** What changed in a project's document files since the search index last took them in. */
export interface DocumentChanges {
  /**
   * Locations (`設計書/x.md`) of files that may differ from what the index holds: those a file watcher
   * reported, or — on the first call for a project, and after the watcher failed — every file whose
   * size or mtime differs from the recorded one, and recorded or catalogued files that are gone. Cheap
   * (no file system access) when the watcher reported nothing.
   */
  pending(project: ProjectConfig): Promise<string[]>;
  /** Records these files as taken in (their size and mtime now; the ones that are gone are forgotten). */
  settle(project: ProjectConfig, locations: string[]): Promise<void>;
  /** Taking them in failed: report them again on the next call. */
  retry(project: ProjectConfig, locations: string[]): void;
  /** Stops watching one project (its settings were removed; a new setup watches it again on its first search). */
  forget(project: string): void;
  /** Stops watching (the server is closing). */
  close(): void;
}
