import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@mcp-workbench/core/engine';
import type { ProjectConfig } from '../../model/types.js';
import type { DocumentChanges } from '../backend.js';
import { folderOf, projectDir, PROJECTS_DIR, type LocalContext, type RunsTransactions } from './context.js';
import { VIEW_FILES } from './documents.js';
import { bodyOfMarkdown } from './front-matter.js';
import { sha256 } from '../../model/names.js';
import type { StoreFiles } from './store-files.js';
import { TreeWatcher, type WatchFunction } from './tree-watcher.js';

/** A Markdown document of the project tree (not a hidden or temp file, not a generated view). */
export function isDocumentPath(location: string): boolean {
  if (!location.endsWith('.md')) return false;
  const parts = location.split('/');
  if (parts.some((p) => p.startsWith('.') || p === '')) return false;
  return !(parts.length === 1 && VIEW_FILES.has(location));
}

interface Watched {
  dir: string;
  watcher: TreeWatcher | undefined;
  dirty: Set<string>;
  /** Every file must be checked (first call, a watcher failure, an event without a name, a folder event). */
  full: boolean;
}

/**
 * Which document files of the local store changed beside the server: a watcher per project tree
 * (started on the project's first search) marks changed paths, and the first call for a project — or
 * the first after its watcher failed — compares every file's size and mtime with those recorded in
 * `document_files` (a watcher misses what happened while the server was down).
 */
export class LocalDocumentChanges implements DocumentChanges {
  private readonly projects = new Map<string, Watched>();
  private closed = false;

  constructor(
    private readonly backend: RunsTransactions,
    private readonly logger: Logger,
    private readonly watch?: WatchFunction,
  ) {}

  async pending(project: ProjectConfig): Promise<string[]> {
    if (this.closed) return [];
    const watched = await this.watched(project);
    if (!watched.watcher?.watching) this.startWatching(watched);
    if (!watched.full && watched.dirty.size === 0) return [];
    const dirty = [...watched.dirty];
    const full = watched.full || dirty.some((p) => !p.endsWith('.md'));
    // While no watcher runs, every search checks the whole tree (slower, never stale).
    watched.full = !watched.watcher?.watching;
    watched.dirty = new Set();
    if (!full) return dirty.filter(isDocumentPath);
    return this.fullCheck(project);
  }

  async settle(project: ProjectConfig, locations: string[]): Promise<void> {
    if (locations.length === 0) return;
    const watched = await this.watched(project);
    await this.backend.writeWith(async (_stores, ctx) => {
      const base = path.relative(ctx.store.root, watched.dir);
      recordFiles(
        ctx,
        locations.map((location) => ({
          project: project.project_id,
          location,
          file: path.join(ctx.store.root, ctx.store.spelled(path.join(base, location))),
        })),
      );
    });
  }

  retry(project: ProjectConfig, locations: string[]): void {
    const watched = this.projects.get(project.project_id.toLowerCase());
    if (!watched) return;
    for (const location of locations) watched.dirty.add(location);
  }

  forget(project: string): void {
    const key = project.toLowerCase();
    this.projects.get(key)?.watcher?.close();
    this.projects.delete(key);
  }

  close(): void {
    this.closed = true;
    for (const watched of this.projects.values()) watched.watcher?.close();
    this.projects.clear();
  }

  private async watched(project: ProjectConfig): Promise<Watched> {
    const key = project.project_id.toLowerCase();
    let watched = this.projects.get(key);
    if (!watched) {
      const dir = await this.backend.readWith(async (_stores, ctx) =>
        projectDir(ctx, folderOf(ctx, project.project_id)),
      );
      watched = this.projects.get(key) ?? { dir, watcher: undefined, dirty: new Set(), full: true };
      this.projects.set(key, watched);
    }
    return watched;
  }

  private startWatching(watched: Watched): void {
    const watcher = new TreeWatcher(watched.dir, {
      watch: this.watch,
      onChange: (relative) => {
        if (relative === undefined) watched.full = true;
        else if (!path.posix.basename(relative).startsWith('.')) watched.dirty.add(relative.normalize('NFC'));
      },
      onError: (error) => {
        // Checked in full on the next search, which also starts a new watcher.
        watched.full = true;
        watched.watcher = undefined;
        this.logger.warn(
          `Watching ${watched.dir} failed; the next search checks every document file.`,
          error,
        );
      },
    });
    try {
      watcher.start();
      watched.watcher = watcher;
    } catch (error) {
      watched.watcher = undefined;
      watched.full = true;
      // A project without documents yet has no folder: nothing to watch, nothing to warn about.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.logger.warn(
          `Cannot watch ${watched.dir}; every search checks the document files instead.`,
          error,
        );
    }
  }

  /**
   * Files whose size or mtime differ from the recorded ones, and recorded or catalogued files now gone.
   * A file never recorded (the first check after an upgrade, a file the server wrote and no search took
   * in yet) whose body hash equals its catalog row's is recorded as it is, without parsing its front
   * matter: parsing YAML costs about a millisecond per file, far too much for ten thousand of them.
   */
  private async fullCheck(project: ProjectConfig): Promise<string[]> {
    const { recorded, catalogued, store, base } = await this.backend.readWith(async (_stores, ctx) => ({
      store: ctx.store,
      base: path.posix.join(PROJECTS_DIR, folderOf(ctx, project.project_id)),
      recorded: ctx.db
        .prepare('SELECT location, size, mtime_ms FROM document_files WHERE project = ?')
        .all(project.project_id) as { location: string; size: number; mtime_ms: number }[],
      catalogued: ctx.db
        .prepare("SELECT location, content_hash FROM catalog WHERE project = ? AND status = 'active'")
        .all(project.project_id) as { location: string; content_hash: string }[],
    }));
    const known = new Map(recorded.map((r) => [r.location.normalize('NFC'), r]));
    const hashes = new Map(catalogued.map((r) => [r.location.normalize('NFC'), r.content_hash]));
    const changed: string[] = [];
    const unchanged: string[] = [];
    const present = new Set<string>();
    // Links and special files named *.md are listed too: taking them in reports them (never reads them).
    const listed = store.listMarkdown(base);
    const locations = [...listed.files, ...listed.others.map((o) => o.location)].filter(isDocumentPath);
    for (const location of locations) {
      const stat = statOf(path.join(store.root, store.spelled(path.posix.join(base, location))));
      if (!stat) continue;
      present.add(location);
      const before = known.get(location);
      if (before) {
        if (before.size !== stat.size || before.mtime_ms !== stat.mtimeMs) changed.push(location);
      } else if (
        hashes.get(location) &&
        fileHashes(store, path.posix.join(base, location)).includes(hashes.get(location)!)
      ) {
        unchanged.push(location);
      } else {
        changed.push(location);
      }
    }
    await this.settle(project, unchanged);
    const gone = new Set<string>();
    for (const location of [...known.keys(), ...hashes.keys()])
      if (!present.has(location)) gone.add(location);
    return [...changed, ...gone];
  }
}

/**
 * Records the size and mtime of the document files a write transaction placed (before its COMMIT): the
 * next full check compares them, so a person's edit made before any search — the front matter alone
 * too, which leaves the body's hash as it was — is taken in rather than taken for the server's file.
 */
export function recordWrittenDocuments(ctx: LocalContext): void {
  recordFiles(ctx, ctx.documentFiles);
}

/** Stores each file's size and mtime in `document_files`, or forgets a file that is gone. */
function recordFiles(
  ctx: LocalContext,
  files: ReadonlyArray<{ project: string; location: string; file: string }>,
) {
  if (files.length === 0) return;
  const upsert = ctx.db.prepare(
    `INSERT INTO document_files (project, location, size, mtime_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (project, location) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms`,
  );
  const remove = ctx.db.prepare('DELETE FROM document_files WHERE project = ? AND location = ?');
  for (const { project, location, file } of files) {
    const stat = statOf(file);
    if (stat) upsert.run(project, location.normalize('NFC'), stat.size, stat.mtimeMs);
    else remove.run(project, location.normalize('NFC'));
  }
}

/**
 * Hashes a catalog row of an unedited document file may hold: the whole file's, or (rows written
 * before the hash covered the front matter) its body's; none if unread.
 */
function fileHashes(store: StoreFiles, relative: string): string[] {
  try {
    const found = store.readText(relative, relative);
    return found && 'text' in found ? [sha256(found.text), sha256(bodyOfMarkdown(found.text))] : [];
  } catch {
    return [];
  }
}

/** Size and mtime of what is at a path (a link's own, never its target's). */
function statOf(file: string): { size: number; mtimeMs: number } | undefined {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return stat && !stat.isDirectory() ? { size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
}
