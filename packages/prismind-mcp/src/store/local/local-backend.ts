import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import type { Logger } from '@mcp-workbench/core/engine';
import type { Embedder } from '../../search/embedder.js';
import type { Backend, BackendInfo, Stores, WriteOptions } from '../backend.js';
import { LocalCatalog } from './catalog.js';
import { DB_FILE, PROJECTS_DIR, type LocalContext, type RunsTransactions } from './context.js';
import { openDatabase, retryBusy, type Db } from './database.js';
import { LocalDocumentChanges, recordWrittenDocuments } from './document-changes.js';
import { LocalDocuments } from './documents.js';
import { Mutex } from './mutex.js';
import { LocalProjects } from './projects.js';
import { LocalSearchIndex } from './search-index.js';
import { LocalSessions } from './sessions.js';
import { StagedFiles } from './staged-files.js';
import { removeStaleTemps } from './stale-temps.js';
import { StoreFiles } from './store-files.js';
import { LocalTracker } from './tracker.js';
import type { WatchFunction } from './tree-watcher.js';
import { storeVectors, type PendingVector } from './vectors.js';
import { indexAgainIfNeeded } from './upgrade.js';
import { stageViews } from './views.js';

export interface LocalBackendOptions {
  home: string;
  busyTimeoutMs: number;
  embedder?: Embedder | undefined;
  logger: Logger;
  /** Regenerate the Markdown views (進捗.md, 目録.md, サマリ.md) on writes (default true). */
  views?: boolean;
  /** fs.watch, or a stand-in (tests make it fail). */
  watch?: WatchFunction | undefined;
  /** limits.max_document_bytes: document files larger than this (plus front matter) are not read. */
  maxDocumentBytes?: number;
  /** Whether a path of the store may be read or written (--root / --deny-glob); default: all. */
  permits?: ((file: string) => boolean) | undefined;
}

/** The default of limits.max_document_bytes (config.ts), for callers that open a store without a config. */
const DEFAULT_DOCUMENT_BYTES = 1024 * 1024;

/** Every write on a store this process may only read. */
export function readOnlyStore(home: string): ToolError {
  return new ToolError(
    'PERMISSION_DENIED',
    `The store at ${home} is read-only for this process (no write permission, or a read-only file system): reads work, nothing was saved.`,
    {
      hint: 'Give this user write access to the store folder, or point PRISMIND_HOME at a writable copy of it.',
      details: { store: home, read_only: true },
    },
  );
}

/**
 * The embedded default: one folder ($PRISMIND_HOME) with prismind.db (SQLite, WAL) and the Markdown
 * documents and views under Projects/. Several server processes may share it: writers take SQLite's
 * write lock with BEGIN IMMEDIATE (waiting, never failing, while another holds it), and within one
 * process a mutex keeps the shared connection to one transaction at a time.
 */
export class LocalBackend implements Backend, RunsTransactions {
  readonly kind = 'local' as const;
  private readonly mutex = new Mutex();
  readonly documentChanges: LocalDocumentChanges;

  private readonly store: StoreFiles;

  private constructor(
    private readonly db: Db,
    /** This process may not write the store (permissions, a read-only file system): reads only. */
    readonly readOnly: boolean,
    private readonly options: LocalBackendOptions,
  ) {
    this.documentChanges = new LocalDocumentChanges(this, options.logger, options.watch);
    this.store = new StoreFiles(
      realpathSync.native(options.home), // as each file is checked (store-files.ts): the on-disk spelling
      options.maxDocumentBytes ?? DEFAULT_DOCUMENT_BYTES,
      options.permits,
    );
  }

  static async open(options: LocalBackendOptions): Promise<LocalBackend> {
    const { db, readOnly } = await openDatabase(path.join(options.home, DB_FILE), {
      busyTimeoutMs: options.busyTimeoutMs,
    });
    const backend = new LocalBackend(db, readOnly, options);
    if (readOnly) {
      options.logger.warn(`The store at ${options.home} is read-only for this process: reads only.`);
      return backend;
    }
    // Temp files of a writer killed mid-transaction: the documents and views live under Projects/.
    removeStaleTemps(path.join(options.home, PROJECTS_DIR), options.logger);
    try {
      await indexAgainIfNeeded(backend, options.logger);
    } catch (error) {
      await backend.close();
      throw error;
    }
    return backend;
  }

  get location(): string {
    return this.options.home;
  }

  get info(): BackendInfo {
    return {
      backend: this.kind,
      location: this.location,
      keyword_search: 'SQLite FTS5 trigram index + short-term index (1–2 character CJK pieces, words)',
      similarity_search: 'rarest indexed pieces of the query (fts5vocab)',
      similarity_score: this.options.embedder
        ? `embeddings (${this.options.embedder.model}), n-grams while the endpoint is down`
        : 'character n-grams',
    };
  }

  private context(writable: boolean): { ctx: LocalContext; stores: Stores; vectors: PendingVector[] } {
    const ctx: LocalContext = {
      db: this.db,
      home: this.options.home,
      store: this.store,
      checkedDirs: new Set(),
      files: new StagedFiles(this.store.permits),
      documentFiles: [],
      readFiles: new Map(),
      writable,
      dirty: new Map(),
      after: [],
      embedder: this.options.embedder,
      logger: this.options.logger,
    };
    const vectors: PendingVector[] = [];
    const stores: Stores = {
      projects: new LocalProjects(ctx),
      sessions: new LocalSessions(ctx),
      documents: new LocalDocuments(ctx),
      tracker: new LocalTracker(ctx),
      catalog: new LocalCatalog(ctx),
      search: new LocalSearchIndex(ctx, vectors),
    };
    return { ctx, stores, vectors };
  }

  async read<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.readWith((stores) => work(stores));
  }

  async write<T>(work: (stores: Stores) => Promise<T>, options?: WriteOptions): Promise<T> {
    return this.writeWith((stores) => work(stores), options);
  }

  /** read() that also hands the work its transaction context (for backends built on this one). */
  async readWith<T>(work: (stores: Stores, ctx: LocalContext) => Promise<T>): Promise<T> {
    const { ctx, stores, vectors } = this.context(false);
    const result = await this.mutex.run(async () => {
      // One snapshot for every statement of the read (WAL: never blocked by writers).
      this.db.exec('BEGIN DEFERRED');
      try {
        return await work(stores, ctx);
      } finally {
        if (this.db.inTransaction) this.db.exec('COMMIT');
      }
    });
    await this.finish(ctx, vectors);
    return result;
  }

  /** write() that also hands the work its transaction context (for backends built on this one). */
  async writeWith<T>(
    work: (stores: Stores, ctx: LocalContext) => Promise<T>,
    options?: WriteOptions,
  ): Promise<T> {
    if (this.readOnly) throw readOnlyStore(this.options.home);
    const { ctx, stores, vectors } = this.context(true);
    const result = await this.mutex.run(async () => {
      await retryBusy(() => this.db.exec('BEGIN IMMEDIATE'), 'starting a write');
      try {
        const value = await work(stores, ctx);
        if (this.options.views !== false && options?.views !== false) await stageViews(ctx);
        await ctx.files.place();
        recordWrittenDocuments(ctx);
        try {
          await retryBusy(() => this.db.exec('COMMIT'), 'committing');
        } catch (error) {
          ctx.files.revert();
          throw error;
        }
        ctx.files.clear();
        return value;
      } catch (error) {
        ctx.files.revert();
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
    await this.finish(ctx, vectors);
    return result;
  }

  /** Runs the after-transaction work (embedding) and stores the vectors it produced in a short write. */
  private async finish(ctx: LocalContext, vectors: PendingVector[]): Promise<void> {
    for (const task of ctx.after) {
      try {
        await task();
      } catch (error) {
        this.options.logger.warn('Background work after a transaction failed', error);
      }
    }
    if (vectors.length === 0 || this.readOnly) return;
    try {
      await this.mutex.run(async () => {
        await retryBusy(() => this.db.exec('BEGIN IMMEDIATE'), 'storing vectors');
        try {
          storeVectors(ctx, vectors);
          this.db.exec('COMMIT');
        } catch (error) {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
          throw error;
        }
      });
    } catch (error) {
      this.options.logger.warn('Storing embedding vectors failed; they will be computed again', error);
    }
  }

  async close(): Promise<void> {
    this.documentChanges.close();
    await this.mutex.run(async () => {
      try {
        // Fold the WAL back into the database so the folder is one file again when nobody uses it.
        if (!this.readOnly) this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      } catch {
        // another process is using the database: it checkpoints later
      }
      this.db.close();
    });
  }
}
