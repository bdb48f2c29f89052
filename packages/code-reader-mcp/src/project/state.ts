import path from 'node:path';
import type { PathPolicy, ResolveOptions } from '@mcp-workbench/core/engine';

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
    const absolute = dir && !path.isAbsolute(input) && !/^file:/i.test(input) ? path.join(dir, input) : input;
    return this.policy.resolve(absolute, options);
  }

  /**
   * The server's deny globs and roots as a predicate over real paths found by walking a root (ripgrep
   * output), or undefined when there are no deny globs. Paths a client names go through `resolve`.
   */
  deniedPredicate(): ((realPath: string) => boolean) | undefined {
    if (this.policy.denyGlobs.length === 0) return undefined;
    return (realPath) => !this.policy.allows(realPath);
  }

  get denyGlobs(): readonly string[] {
    return this.policy.denyGlobs;
  }

  /**
   * Display form of a resolved path, with forward slashes: relative to the project directory when one is
   * set and the path lies in the same root ("../other.ts" for a file beside it, so every shown path
   * resolves back to the same file), else root-relative.
   */
  display(realPath: string): string {
    const dir = this.state.projectDir;
    if (dir) {
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
