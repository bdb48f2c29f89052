import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import type { Logger } from '@mcp-workbench/core/engine';
import type { Embedder } from '../../search/embedder.js';
import type { Stores, WriteOptions } from '../backend.js';
import type { Db } from './database.js';
import type { StagedFiles } from './staged-files.js';
import type { StoreFiles } from './store-files.js';

export type ViewKind = 'progress' | 'catalog' | 'summary';

/** What the local stores share inside one read or write transaction. */
export interface LocalContext {
  db: Db;
  home: string;
  /** Reads and folders of the store's files, never through a link (see store-files.ts). */
  store: StoreFiles;
  /** Folders of the store checked in this transaction to be real folders (StoreFiles.ensureDir). */
  checkedDirs: Set<string>;
  files: StagedFiles;
  /**
   * Document files this transaction writes: their size and mtime are recorded once they are in place
   * (document-changes.ts), so a person's later edit of one, if only of its front matter, shows.
   */
  documentFiles: { project: string; location: string; file: string }[];
  /** Size and mtime of the document files read in this transaction: a write over one checks them. */
  readFiles: Map<string, { size: number; mtimeMs: number }>;
  writable: boolean;
  /** Projects whose Markdown views (進捗.md, 目録.md, サマリ.md) are regenerated before COMMIT. */
  dirty: Map<string, Set<ViewKind>>;
  /** Work to run after the transaction (e.g. embedding new text: no network call holds the write lock). */
  after: (() => Promise<void>)[];
  embedder: Embedder | undefined;
  logger: Logger;
}

/** Runs work in a transaction and hands it the context too (the local backend; the Google backend builds on it). */
export interface RunsTransactions {
  readWith<T>(work: (stores: Stores, ctx: LocalContext) => Promise<T>): Promise<T>;
  writeWith<T>(work: (stores: Stores, ctx: LocalContext) => Promise<T>, options?: WriteOptions): Promise<T>;
}

export const PROJECTS_DIR = 'Projects';
export const DB_FILE = 'prismind.db';

export function markDirty(ctx: LocalContext, project: string, ...kinds: ViewKind[]): void {
  const key = project.toLowerCase();
  const set = ctx.dirty.get(key) ?? new Set<ViewKind>();
  for (const kind of kinds) set.add(kind);
  ctx.dirty.set(key, set);
}

export function assertWritable(ctx: LocalContext): void {
  if (!ctx.writable) throw new Error('A store write ran inside Backend.read; use Backend.write.');
}

/** The project's folder (absolute), from its registered folder name. */
export function projectDir(ctx: LocalContext, folder: string): string {
  return path.join(ctx.home, PROJECTS_DIR, folder);
}

export function folderOf(ctx: LocalContext, projectId: string): string {
  const row = ctx.db.prepare('SELECT folder FROM projects WHERE project_id = ?').get(projectId) as
    { folder: string } | undefined;
  if (!row) {
    throw new ToolError('NOT_FOUND', `Project "${projectId}" is not registered.`, {
      hint: 'Call list_projects to see the projects, or setup_project to create it.',
    });
  }
  return row.folder;
}

export function json<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
