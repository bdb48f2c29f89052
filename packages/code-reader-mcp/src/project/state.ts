import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { FileAccess, PathPolicy, ResolveOptions } from '@mcp-workbench/core/engine';

const REALPATH_CONCURRENCY = 32;

/**
 * Per-server state: the project directory chosen with `set_project_path`. Relative paths resolve
 * against it and answers show paths relative to it. It never widens access: every path still goes
 * through the PathPolicy, so a project directory outside the roots is refused, and one that drops out
 * of the roots later (new MCP roots) makes its paths fail with PATH_OUTSIDE_ROOT.
 */
export class ProjectState {
  private dir: string | undefined;

  get projectDir(): string | undefined {
    return this.dir;
  }

  setProjectDir(realDir: string): void {
    this.dir = realDir;
  }
}

/** A PathPolicy seen through the project directory: the one object tools and engines use for paths. */
export class ProjectPaths {
  constructor(
    readonly policy: PathPolicy,
    private readonly state: ProjectState,
  ) {}

  /**
   * The directory relative inputs resolve against: the project dir, else the first root. Async because
   * the roots may be changing (client roots arrive after the handshake); resolving waits for that.
   */
  async baseDir(): Promise<string> {
    await this.policy.ready();
    const firstRoot = this.policy.roots[0]!;
    const dir = this.state.projectDir;
    return dir && this.policy.rootOf(dir) ? dir : firstRoot;
  }

  async resolve(input: string, options: ResolveOptions = {}): Promise<string> {
    const dir = this.state.projectDir;
    // A path shown with several roots starts with its root's name and resolves in that root.
    const relative = !path.isAbsolute(input) && !/^file:/i.test(input) && !this.policy.namesRoot(input);
    const absolute = dir && relative ? path.join(dir, input) : input;
    return this.policy.resolve(absolute, options);
  }

  /** Opens, reads and writes files inside the roots (what engines read through). */
  get files(): FileAccess {
    return this.policy;
  }

  /**
   * The roots and deny globs as a predicate over paths ripgrep reported (true: leave it out), checked
   * as the paths read. Paths a client names go through `resolve`; see also `allowedFiles`.
   */
  deniedPredicate(): (foundPath: string) => boolean {
    const policy = this.policy;
    if (policy.denyGlobs.length > 0) return (foundPath) => !policy.allows(foundPath);
    // Without deny globs a file is allowed exactly when its folder is (the folder lies in a root, so
    // does a name in it): one check per folder, not per file — a walk of 43,000 files spent most of
    // its time normalising each path for the containment test (issue 13).
    const folders = new Map<string, boolean>();
    return (foundPath) => {
      const cut = foundPath.lastIndexOf(path.sep);
      if (cut <= 0) return !policy.allows(foundPath);
      const folder = foundPath.slice(0, cut);
      let allowed = folders.get(folder);
      if (allowed === undefined) {
        allowed = policy.allows(folder);
        folders.set(folder, allowed);
      }
      return !allowed;
    };
  }

  /**
   * Of the files ripgrep reported, those the policy allows by their real location: each folder's real
   * path (resolved once per folder) must lie in a root, and the real file path must match no deny glob.
   * The paths as reported must already have passed `deniedPredicate` (both callers apply it first).
   * ripgrep never follows links (it runs with --no-follow and no config), so this only drops files a
   * changing tree slipped in; it is checked for every result whatever the flags.
   */
  async allowedFiles(files: Iterable<string>): Promise<Set<string>> {
    const byDir = new Map<string, string[]>();
    for (const file of new Set(files)) {
      const dir = path.dirname(file);
      const list = byDir.get(dir);
      if (list) list.push(file);
      else byDir.set(dir, [file]);
    }
    const allowed = new Set<string>();
    const dirs = [...byDir.keys()];
    for (let start = 0; start < dirs.length; start += REALPATH_CONCURRENCY) {
      const chunk = dirs.slice(start, start + REALPATH_CONCURRENCY);
      const reals = await Promise.all(chunk.map((dir) => realpath(dir).catch(() => undefined)));
      chunk.forEach((dir, index) => {
        const realDir = reals[index];
        if (realDir === undefined) return;
        // Without a link on the way (the usual case) the real path is the path, which the caller has
        // checked with deniedPredicate: nothing more to check (a listing of 43,000 files did it twice).
        const linked = realDir !== dir;
        for (const file of byDir.get(dir)!) {
          if (linked && !this.policy.allows(path.join(realDir, path.basename(file)))) continue;
          allowed.add(file);
        }
      });
    }
    return allowed;
  }

  get denyGlobs(): readonly string[] {
    return this.policy.denyGlobs;
  }

  /**
   * Display form of a resolved path, with forward slashes, that `resolve` takes back to the same file.
   * With one root: relative to the project directory when one is set ("../other.ts" for a file beside
   * it), else to the root. With several roots: the policy's form, prefixed by the root's name
   * (`api/src/x.ts`), whatever the project directory.
   */
  display(realPath: string): string {
    const dir = this.state.projectDir;
    if (dir && this.policy.roots.length === 1) {
      const rel = path.relative(dir, realPath);
      if (rel === '') return '.';
      if (!path.isAbsolute(rel)) {
        const root = this.policy.rootOf(dir);
        if (!rel.startsWith('..') || (root !== undefined && this.policy.rootOf(realPath) === root))
          return toSlash(rel);
      }
    }
    return toSlash(this.policy.displayPath(realPath));
  }
}

export function toSlash(p: string): string {
  return path.sep === '\\' ? p.replaceAll('\\', '/') : p;
}
