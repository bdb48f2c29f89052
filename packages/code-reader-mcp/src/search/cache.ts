import { stat } from 'node:fs/promises';
import path from 'node:path';
import { putRecent } from '../util/lru.js';

/** A file or directory as it was when the result was computed. */
interface Stamp {
  path: string;
  mtimeMs: number;
  /** ctime changes on every write and every mtime change (even one that sets mtime back). */
  ctimeMs: number;
  size: number;
}

/** File times come from a coarse kernel clock that may lag Date.now() by a few milliseconds. */
const CLOCK_SLACK_MS = 10;

interface Entry<V> {
  value: V;
  /** Resolves to the stamps of everything searched, or undefined when the entry must not be used. */
  stamps: Promise<Stamp[] | undefined>;
}

export interface CacheOptions {
  maxEntries?: number;
}

/**
 * Results keyed by every parameter that changes them. An entry lives only while every file it searched
 * (and every directory holding one, so added or removed files count too, and every ignore file that
 * applies) keeps its mtime and size; the first lookup after a change drops it.
 */
export class StampedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly maxEntries: number;

  constructor(options: CacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 64;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Stores a result. `files` lists the searched files (it may resolve later, e.g. from a background
   * listing); `startedAt` is when the search began: a file modified since then may have been read
   * half-way, so such a result is not kept.
   */
  set(
    key: string,
    value: V,
    files: Promise<string[] | undefined>,
    startedAt: number,
    roots: string[] = [],
  ): void {
    const stamps = files
      .then((list) => (list ? stampAll(list, roots, startedAt) : undefined))
      .catch(() => undefined);
    putRecent(this.entries, key, { value, stamps }, this.maxEntries);
  }

  /** The cached value if nothing it depends on changed; otherwise undefined (and the entry is gone). */
  async get(key: string): Promise<V | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const stamps = await entry.stamps;
    if (!stamps || !(await unchanged(stamps))) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      return undefined;
    }
    putRecent(this.entries, key, entry, this.maxEntries);
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
  }
}

async function stampAll(files: string[], roots: string[], startedAt: number): Promise<Stamp[] | undefined> {
  // Directories from each file up to its search root: a file added or removed anywhere below a root
  // changes the mtime of one of them (empty or fully ignored directories are the one blind spot).
  // A search over named files (no roots) depends on those files only.
  const stop = new Set(roots);
  const dirs = new Set<string>(roots);
  for (const file of roots.length > 0 ? files : []) {
    let dir = path.dirname(file);
    while (!dirs.has(dir)) {
      dirs.add(dir);
      const parent = path.dirname(dir);
      if (parent === dir || stop.has(dir)) break;
      dir = parent;
    }
  }
  const ignores = roots.length > 0 ? await existingIgnoreFiles(dirs, roots) : [];
  const stamps = await statEach([...files, ...dirs, ...ignores]);
  if (!stamps) return undefined;
  // Changed after the search began: ripgrep may have seen the old or a half-written content.
  if (stamps.some((s) => s.ctimeMs >= startedAt - CLOCK_SLACK_MS)) return undefined;
  return stamps;
}

/** The files whose rules ripgrep applies to a directory's walk (`.git/info/exclude` holds a repo's own). */
const IGNORE_FILES = ['.gitignore', '.ignore', '.rgignore', path.join('.git', 'info', 'exclude')];

/**
 * The ignore files that exist in the stamped directories and above the roots (ripgrep reads the
 * parents' too): editing one changes what a search sees without touching any searched file. A new
 * ignore file in a stamped directory changes that directory's mtime, so only existing ones are kept.
 */
async function existingIgnoreFiles(dirs: Set<string>, roots: string[]): Promise<string[]> {
  const where = new Set(dirs);
  for (const root of roots) {
    for (let dir = path.dirname(root); !where.has(dir); dir = path.dirname(dir)) {
      where.add(dir);
      if (path.dirname(dir) === dir) break;
    }
  }
  const candidates = [...where].flatMap((dir) => IGNORE_FILES.map((name) => path.join(dir, name)));
  const existing: string[] = [];
  for (let start = 0; start < candidates.length; start += 256) {
    const part = candidates.slice(start, start + 256);
    const isFile = await Promise.all(
      part.map((file) =>
        stat(file).then(
          (s) => s.isFile(),
          () => false,
        ),
      ),
    );
    existing.push(...part.filter((_, i) => isFile[i]));
  }
  return existing;
}

async function statEach(paths: string[]): Promise<Stamp[] | undefined> {
  const stamps: Stamp[] = [];
  const chunk = 128;
  for (let start = 0; start < paths.length; start += chunk) {
    const part = paths.slice(start, start + chunk);
    const stats = await Promise.all(part.map((p) => stat(p).catch(() => undefined)));
    for (let i = 0; i < part.length; i++) {
      const info = stats[i];
      if (!info) return undefined;
      stamps.push({ path: part[i] as string, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, size: info.size });
    }
  }
  return stamps;
}

async function unchanged(stamps: Stamp[]): Promise<boolean> {
  const now = await statEach(stamps.map((s) => s.path));
  if (!now) return false;
  return now.every((s, i) => {
    const then = stamps[i];
    return s.mtimeMs === then?.mtimeMs && s.ctimeMs === then.ctimeMs && s.size === then.size;
  });
}
