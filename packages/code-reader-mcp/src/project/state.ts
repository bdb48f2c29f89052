import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError, type FileAccess, type PathPolicy, type ResolveOptions } from '@mcp-workbench/core/engine';
import { SLICE_MS } from '../util/yield.js';

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
    // No root is open when the client's MCP roots all lie outside --root: the policy's error says so
    // (was a TypeError on `undefined`, answered as INTERNAL).
    const firstRoot = this.policy.firstRoot();
    const dir = this.state.projectDir;
    return dir && this.policy.rootOf(dir) ? dir : firstRoot;
  }

  async resolve(input: string, options: ResolveOptions = {}): Promise<string> {
    const dir = this.state.projectDir;
    // A path shown with several roots starts with its root's name and resolves in that root.
    const relative = !path.isAbsolute(input) && !/^file:/i.test(input) && !this.policy.namesRoot(input);
    if (!dir || !relative) return this.policy.resolve(input, options);
    try {
      return await this.policy.resolve(path.join(dir, input), options);
    } catch (error) {
      throw againstProject(error, this.policy, dir);
    }
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
      const folder = folderOf(foundPath);
      let allowed = folders.get(folder);
      if (allowed === undefined) {
        allowed = plainlyInRoots(folder, policy.roots) || policy.allows(folder);
        folders.set(folder, allowed);
      }
      return !allowed;
    };
  }

  /**
   * Of the files ripgrep reported, those the policy allows by their real location, as a predicate over
   * those files: each folder's real path must lie in a root, and the real file path must match no deny
   * glob. The paths as reported must already have passed `deniedPredicate` (both callers apply it
   * first). ripgrep never follows links (it runs with --no-follow and no config), so this only drops
   * files a changing tree slipped in; it is checked for every result whatever the flags. A predicate,
   * not a set: a set of 43,000 paths cost more than the checks themselves.
   */
  async allowedFiles(files: Iterable<string>): Promise<(file: string) => boolean> {
    const allowed = this.allowedFileCheck();
    // Synchronous file system calls in time slices: thousands of promise realpaths through libuv's
    // thread pool cost more than the walk that found the files; the event loop still turns every
    // SLICE_MS.
    let sliceStart = performance.now();
    let checked = 0;
    for (const file of files) {
      if ((++checked & 255) === 0 && performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      allowed(file);
    }
    return allowed;
  }

  /**
   * allowedFiles' check one file at a time, for a walk that checks folders as they come (while ripgrep
   * still walks): synchronous, the file system asked once per folder and the answers kept — so one
   * check per listing, made afresh for each.
   */
  allowedFileCheck(): (file: string) => boolean {
    const policy = this.policy;
    /** Per folder: reached from a root without a link (its files are allowed as reported). */
    const plainFolders = new Map<string, boolean>();
    const realFolders = new Map<string, string | undefined>();
    const linkFree = linkFreeFolders(policy.roots);
    return (file) => {
      const dir = folderOf(file);
      let plain = plainFolders.get(dir);
      if (plain === undefined) {
        plain = linkFree(dir);
        plainFolders.set(dir, plain);
      }
      if (plain) return true;
      // A link on the way (or a folder that could not be read): where does the file really live?
      if (!realFolders.has(dir)) realFolders.set(dir, realPathOrUndefined(dir));
      const realDir = realFolders.get(dir);
      if (realDir === undefined) return false; // gone since the walk: not listed
      return realDir === dir || policy.allows(path.join(realDir, path.basename(file)));
    };
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
    // One root, no project folder: the policy shows the path relative to the root.
    const roots = this.policy.roots;
    if (!dir && roots.length === 1) {
      const start = plainlyBelow(realPath, roots[0]!);
      if (start >= 0) return start < realPath.length ? realPath.slice(start) : '.';
    }
    return toSlash(this.policy.displayPath(realPath));
  }
}

/**
 * The policy's error for a path resolved in the project folder, its hint naming that folder: the
 * policy names the first root ("relative paths resolve against /repo"), wrong after set_project_path.
 */
function againstProject(error: unknown, policy: PathPolicy, dir: string): unknown {
  if (!(error instanceof ToolError) || error.hint === undefined || policy.roots.length === 0) return error;
  const root = policy.firstRoot();
  const hint = error.hint.replaceAll(`resolve against ${root}`, `resolve against ${dir} (set_project_path)`);
  if (hint === error.hint) return error;
  return new ToolError(error.code, error.message, {
    hint,
    ...(error.details ? { details: error.details } : {}),
    cause: error,
  });
}

export function toSlash(p: string): string {
  return path.sep === '\\' ? p.replaceAll('\\', '/') : p;
}

/**
 * The folder of an absolute path found by a walk: the text before its last separator, without
 * path.dirname's normalising (tens of thousands of paths); path.dirname for a file right below a
 * filesystem root ("/x", "C:\\x"), where the folder keeps its separator.
 */
function folderOf(file: string): string {
  const cut = file.lastIndexOf(path.sep);
  return cut > 0 && file.indexOf(path.sep) !== cut ? file.slice(0, cut) : path.dirname(file);
}

/** A `//`, `/./` or `/../` segment, or a trailing `/`, `/.` or `/..`: text normalising would change. */
const UNCLEAN = /\/\.{0,2}(?:\/|$)/;

/**
 * Where the path relative to `base` begins in `p`, when `p` is, as text, `base` or below it (POSIX): a
 * path with no segment that normalising would change, that starts with `base` and a separator; -1
 * when that is not plain to see (the caller asks the policy then). `base` is a root or another real,
 * normalised path. The policy's answers for such paths are the same, but it normalises and parses both
 * paths on every call: most of a first count's policy time, and of a first search's row paths (issue 25).
 */
function plainlyBelow(p: string, base: string): number {
  if (path.sep !== '/' || UNCLEAN.test(p)) return -1;
  if (p === base) return p.length;
  const prefix = base.endsWith('/') ? base.length - 1 : base.length;
  return p.charCodeAt(prefix) === 0x2f && p.startsWith(base) ? prefix + 1 : -1;
}

/** True when a folder a walk found is plainly a root or below one (see plainlyBelow). */
function plainlyInRoots(folder: string, roots: readonly string[]): boolean {
  for (const root of roots) if (plainlyBelow(folder, root) >= 0) return true;
  return false;
}

/**
 * Whether a folder is reached from a root without a symbolic link on the way (so its real path is its
 * path): each folder between it and the root is a real directory. One lstat per folder, remembered for
 * every folder below it, where realpath would look at every component of every folder again.
 */
function linkFreeFolders(roots: readonly string[]): (dir: string) => boolean {
  const known = new Map<string, boolean>(roots.map((root) => [root, true]));
  const check = (dir: string): boolean => {
    const seen = known.get(dir);
    if (seen !== undefined) return seen;
    const parent = folderOf(dir);
    let free = false;
    if (parent !== dir) {
      try {
        free = lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true && check(parent);
      } catch {
        free = false; // unreadable on the way: realpath decides
      }
    }
    known.set(dir, free);
    return free;
  };
  return check;
}

function realPathOrUndefined(dir: string): string | undefined {
  try {
    return realpathSync.native(dir);
  } catch {
    return undefined;
  }
}
