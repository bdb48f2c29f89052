import type { CatalogStatus, DocType, Priority, TaskStatus } from './vocab.js';

/** The spec's `project_config` document (RAG metadata in the original). */
export interface ProjectConfig {
  project_id: string;
  name: string;
  description: string;
  /** Required by the Google backend only; the local backend keeps it so a project can move later. */
  spreadsheet_id: string;
  root_folder_id: string;
  sheets: { summary: string; progress: string; catalog: string };
  drive: { design_folder: string; procedure_folder: string };
  docs: { template_folder_id: string; default_template: string };
  options: { auto_sync_catalog: boolean; auto_create_folders: boolean } & Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface CurrentProject {
  project_id: string;
  switched_at: string;
}

/** The spec's `SessionState` (key `session:{project}:{user}`), plus when the running session began. */
export interface SessionState {
  project: string;
  user: string;
  current_phase: string;
  current_task: string;
  last_completed: string;
  blockers: string[];
  notes: string;
  last_summary: string;
  next_action: string;
  updated_at: string;
  /** Start of the session now running (set by start_session, cleared by end_session). */
  started_at: string | null;
}

/** One row of the progress sheet (columns A–J). */
export interface TaskRow {
  phase: string;
  task_id: string;
  name: string;
  status: TaskStatus;
  blockers: string[];
  completed_at: string | null;
  notes: string;
  priority: Priority;
  category: string;
  blocked_by: string[];
  description: string;
  updated_at: string;
}

/** Every field of the spec's catalog schema, plus where the document lives and its content hash. */
export interface CatalogEntry {
  doc_id: string;
  name: string;
  /** 保存先 */
  source: string;
  doc_type: DocType;
  project: string;
  phase_task: string;
  feature: string;
  reference_timing: string;
  related_docs: string[];
  keywords: string[];
  updated_at: string;
  created_by: string;
  status: CatalogStatus;
  created_at: string;
  /** Backend-specific location: a path below the project folder (local), a Docs id (Google). */
  location: string;
  /** SHA-256 of the body as last written or seen by the server. */
  content_hash: string;
  /** The keywords were generated (not given), so they follow the content when it changes. */
  keywords_generated: boolean;
}

export interface KnowledgeEntry {
  knowledge_id: string;
  content: string;
  category: string;
  project: string | null;
  tags: string[];
  source: string;
  created_at: string;
}

export interface ScoredKnowledge extends KnowledgeEntry {
  relevance_score: number;
  /** The entry contains every term of the query (not only some pieces of it). */
  all_terms: boolean;
}

export interface ScoredCatalogEntry extends CatalogEntry {
  relevance_score: number;
  /** The entry contains every term of the query (not only some pieces of it). */
  all_terms: boolean;
}
