import type { Logger } from '@mcp-workbench/core/engine';
import type { Embedder } from '../../search/embedder.js';
import { LocalBackend } from '../local/local-backend.js';
import type { LocalContext } from '../local/context.js';
import type { Backend, ProjectRegistry, Stores } from '../backend.js';
import { GoogleApi } from './api.js';
import { loadAuth, type LoadedAuth } from './auth.js';
import { RemoteCache } from './cache.js';
import { GoogleDocuments } from './documents.js';
import { IdPool } from './drive.js';
import { folderUrl, sheetUrl } from './layout.js';
import type { GoogleSettings } from './settings.js';
import { GoogleCatalog, GoogleTracker, googleSearch, googleSessions } from './stores.js';
import { GoogleTxn } from './txn.js';

export interface GoogleBackendOptions {
  home: string;
  busyTimeoutMs: number;
  settings: GoogleSettings;
  embedder?: Embedder | undefined;
  logger: Logger;
}

/**
 * `storage.backend = "google"`: what the spec keeps in Google lives there — progress, catalog and
 * summary in the project's spreadsheet (the master), documents as Google Docs in the project's Drive
 * folders — and what it keeps in its RAG and memory servers stays in the local store: project configs,
 * session states, knowledge, and the catalog cache with its search index. Each call is one local
 * transaction around its Google requests: the local changes commit only when Google took the call's
 * writes; if Google fails, the answer says what reached Google and what did not.
 */
export class GoogleBackend implements Backend {
  readonly kind = 'google' as const;
  private readonly ids: IdPool;

  private constructor(
    private readonly local: LocalBackend,
    readonly api: GoogleApi,
    private readonly auth: LoadedAuth,
    private readonly options: GoogleBackendOptions,
  ) {
    this.ids = new IdPool(api);
  }

  static async open(options: GoogleBackendOptions): Promise<GoogleBackend> {
    const auth = await loadAuth(options.settings, options.logger);
    const api = new GoogleApi(auth.client, options.settings, options.logger);
    const local = await LocalBackend.open({
      home: options.home,
      busyTimeoutMs: options.busyTimeoutMs,
      embedder: options.embedder,
      logger: options.logger,
      views: false,
    });
    return new GoogleBackend(local, api, auth, options);
  }

  /** The local cache is where every call of this backend commits: read-only there means read-only. */
  get readOnly(): boolean {
    return this.local.readOnly;
  }

  get location(): string {
    return `Google Workspace (${this.auth.description}); cache ${this.options.home}`;
  }

  private stores(local: Stores, ctx: LocalContext, writable: boolean): { txn: GoogleTxn; stores: Stores } {
    const cache = new RemoteCache(ctx.db);
    const txn = new GoogleTxn(this.api, cache, this.ids, local, writable);
    const projects: ProjectRegistry = {
      get: (id) => local.projects.get(id),
      list: () => local.projects.list(),
      create: (config) => local.projects.create(config),
      update: (config) => local.projects.update(config),
      remove: (id) => local.projects.remove(id),
      getCurrent: (user) => local.projects.getCurrent(user),
      setCurrent: (user, current) => local.projects.setCurrent(user, current),
      dataLocation: (config) => {
        const folder = cache.get('project_folder', config.project_id.toLowerCase());
        if (folder) return folderUrl(folder);
        if (config.spreadsheet_id) return sheetUrl(config.spreadsheet_id);
        return `Google Drive: Prismind/Projects/${config.name}`;
      },
    };
    return {
      txn,
      stores: {
        projects,
        sessions: googleSessions(txn),
        documents: new GoogleDocuments(txn),
        tracker: new GoogleTracker(txn),
        catalog: new GoogleCatalog(txn),
        search: googleSearch(txn),
      },
    };
  }

  read<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.local.readWith((local, ctx) => work(this.stores(local, ctx, false).stores));
  }

  write<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.local.writeWith(async (local, ctx) => {
      const { txn, stores } = this.stores(local, ctx, true);
      try {
        const value = await work(stores);
        const warnings = await txn.flush();
        if (warnings.length > 0 && value && typeof value === 'object' && !Array.isArray(value)) {
          const answer = value as Record<string, unknown>;
          answer.warnings = [...((answer.warnings as string[] | undefined) ?? []), ...warnings];
        }
        return value;
      } catch (error) {
        throw txn.explain(error);
      }
    });
  }

  async close(): Promise<void> {
    await this.auth.settle();
    await this.local.close();
  }
}
