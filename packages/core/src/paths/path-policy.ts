import { realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../errors.js';
import {
  hostFlavor,
  isDrivePath,
  isWithin,
  normalizeSeparators,
  pathApi,
  relativeTo,
} from './containment.js';
import type { PathFlavor } from './containment.js';
import { DenyGlobs } from './deny-globs.js';
import { resolveRealPath } from './real-path.js';

export interface PathPolicyOptions {
  /** Allowed roots. Relative inputs resolve against the first one. */
  roots: readonly string[];
  /** .gitignore-style globs refused even inside a root, e.g. `.env`, `secrets/` (see DenyGlobs). */
  denyGlobs?: readonly string[];
}

export interface ResolveOptions {
  /** Fail with NOT_FOUND when nothing exists at the path (default false: a file may be created). */
  mustExist?: boolean;
  /** When the path exists, require this kind (default 'any'). */
  kind?: 'file' | 'directory' | 'any';
}

interface Root {
  /** As configured (absolute, normalised). */
  given: string;
  /** Its realpath: a root that is itself a symlink is compared by where it points. */
  real: string;
}

/**
 * Decides whether a path given by a client may be touched, and returns its canonical real path.
 * Every file any tool reads or writes goes through `resolve`.
 */
export class PathPolicy {
  private rootList: Root[] = [];
  private deny: DenyGlobs;
  private pending: Promise<void> = Promise.resolve();
  private readonly flavor: PathFlavor = hostFlavor();

  private constructor(denyGlobs: readonly string[]) {
    this.deny = new DenyGlobs(denyGlobs, { caseInsensitive: this.flavor === 'win32' });
  }

  /** Builds a policy; every root must be an existing directory. */
  static async create(options: PathPolicyOptions): Promise<PathPolicy> {
    const policy = new PathPolicy(options.denyGlobs ?? []);
    await policy.setRoots(options.roots);
    return policy;
  }

  /** The canonical (real) roots, first one first. */
  get roots(): string[] {
    return this.rootList.map((root) => root.real);
  }

  get denyGlobs(): readonly string[] {
    return this.deny.patterns;
  }

  /**
   * Replaces the roots (CLI flags at start, MCP client roots later). Throws if a root is unusable,
   * or, with `skipMissing`, only if none is.
   */
  async setRoots(roots: readonly string[], options: { skipMissing?: boolean } = {}): Promise<void> {
    if (roots.length === 0) {
      throw new ToolError('INVALID_ARGUMENT', 'At least one root directory is required.', {
        hint: 'Start the server with --root <dir> (repeatable).',
      });
    }
    const next: Root[] = [];
    for (const input of roots) {
      try {
        const root = await this.loadRoot(input);
        if (!next.some((known) => known.real === root.real)) next.push(root);
      } catch (error) {
        if (!options.skipMissing) throw error;
      }
    }
    if (next.length === 0) {
      throw new ToolError('NOT_FOUND', `None of the roots is an existing directory: ${roots.join(', ')}`);
    }
    this.rootList = next;
  }

  private async loadRoot(input: string): Promise<Root> {
    const given = this.absoluteFromInput(input, process.cwd());
    let real: string;
    try {
      real = await realpath(given);
    } catch {
      throw new ToolError('NOT_FOUND', `Root directory does not exist: ${given}`, {
        hint: 'Create the directory or pass an existing one with --root.',
      });
    }
    if (!(await stat(real)).isDirectory()) {
      throw new ToolError('INVALID_ARGUMENT', `Root is not a directory: ${given}`, {
        hint: 'Pass a directory with --root.',
      });
    }
    return { given, real };
  }

  /**
   * Lets callers (the MCP roots sync) swap roots asynchronously; `resolve` waits for the swap so no
   * tool call runs against stale roots.
   */
  updateRootsAsync(load: () => Promise<readonly string[] | undefined>): Promise<void> {
    const next = this.pending
      .catch(() => undefined)
      .then(async () => {
        const roots = await load();
        if (roots && roots.length > 0) await this.setRoots(roots, { skipMissing: true });
      });
    this.pending = next;
    return next;
  }

  /** Resolves once any pending roots update (e.g. from the MCP client) has been applied or failed. */
  async ready(): Promise<void> {
    await this.pending.catch(() => undefined);
  }

  /** Resolves a client-given path to an allowed real path, or throws a ToolError saying why not. */
  async resolve(input: string, options: ResolveOptions = {}): Promise<string> {
    await this.ready();
    const { mustExist = false, kind = 'any' } = options;
    const base = this.rootList[0];
    if (!base) throw new ToolError('INVALID_ARGUMENT', 'No root directory is configured.');

    const absolute = this.absoluteFromInput(input, base.real);
    const lexicalRoot = this.rootList.find(
      (r) => this.within(r.given, absolute) || this.within(r.real, absolute),
    );
    if (!lexicalRoot) throw this.outside(input, absolute);
    this.checkDenied(input, absolute);

    const { real, exists } = await this.realPathOf(absolute);
    const realRoot = this.rootList.find((r) => this.within(r.real, real));
    if (!realRoot) throw this.outside(input, real, true);
    this.checkDenied(input, real);

    if (!exists) {
      const alternative = mustExist ? await this.unicodeAlternative(input, options) : undefined;
      if (alternative) return alternative;
      if (mustExist) {
        throw new ToolError('NOT_FOUND', `File not found: ${input}`, {
          hint: `Check the name; relative paths resolve against ${base.real}.`,
          details: { resolved: real },
        });
      }
      return real;
    }
    if (kind !== 'any') {
      const isDirectory = (await stat(real)).isDirectory();
      if (kind === 'file' && isDirectory) {
        throw new ToolError('INVALID_ARGUMENT', `Expected a file but found a directory: ${input}`, {
          hint: 'Give the path of a file inside the directory.',
        });
      }
      if (kind === 'directory' && !isDirectory) {
        throw new ToolError('INVALID_ARGUMENT', `Expected a directory but found a file: ${input}`, {
          hint: 'Give the path of a directory.',
        });
      }
    }
    return real;
  }

  /**
   * For paths the server found itself (a directory walk, ripgrep output) rather than ones a client
   * named: true when the real path lies in a root and matches no deny glob. Client paths go through
   * `resolve`.
   */
  allows(realPath: string): boolean {
    return this.rootOf(realPath) !== undefined && this.deniedBy(realPath) === undefined;
  }

  /** A resolved path shown relative to the root that holds it (for compact, portable answers). */
  displayPath(realPath: string): string {
    const root = this.rootList.find((r) => this.within(r.real, realPath));
    if (!root) return realPath;
    return relativeTo(root.real, realPath, this.flavor) || '.';
  }

  /** The root that holds a resolved path, if any. */
  rootOf(realPath: string): string | undefined {
    return this.rootList.find((r) => this.within(r.real, realPath))?.real;
  }

  private within(root: string, candidate: string): boolean {
    return isWithin(root, candidate, this.flavor);
  }

  private absoluteFromInput(input: string, base: string): string {
    if (typeof input !== 'string' || input.trim() === '') {
      throw new ToolError('INVALID_ARGUMENT', 'The path is empty.', {
        hint: 'Give a file or directory path.',
      });
    }
    if (input.includes('\0')) {
      throw new ToolError('INVALID_ARGUMENT', 'The path contains a NUL byte.', {
        hint: 'Remove the NUL character from the path.',
      });
    }
    let text = input;
    if (/^file:/i.test(text)) {
      try {
        text = fileURLToPath(text);
      } catch {
        throw new ToolError('INVALID_ARGUMENT', `Not a valid file URL: ${input}`, {
          hint: 'Use a plain path or a file:///absolute/path URL.',
        });
      }
    }
    if (text === '~' || text.startsWith('~/') || text.startsWith('~\\')) text = os.homedir() + text.slice(1);
    if (this.flavor === 'posix' && isDrivePath(text)) {
      throw this.outside(input, text);
    }
    const api = pathApi(this.flavor);
    const normalized = normalizeSeparators(text, this.flavor);
    return api.isAbsolute(normalized) ? api.normalize(normalized) : api.resolve(base, normalized);
  }

  private async realPathOf(absolute: string) {
    try {
      return await resolveRealPath(absolute);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENAMETOOLONG') {
        throw new ToolError('INVALID_ARGUMENT', 'The path is too long for the file system.', {
          hint: 'Shorten the path or one of its names.',
        });
      }
      throw error;
    }
  }

  /**
   * The denied prefix of `candidate` relative to ANY root (by its real or given path) that holds it:
   * with nested roots [root/a, root], `a/secrets/**` must still deny root/a/secrets/key.txt.
   */
  private deniedBy(candidate: string): string | undefined {
    for (const root of this.rootList) {
      for (const base of root.given === root.real ? [root.real] : [root.real, root.given]) {
        if (!this.within(base, candidate)) continue;
        const hit = this.deny.match(relativeTo(base, candidate, this.flavor));
        if (hit !== undefined) return hit;
      }
    }
    return undefined;
  }

  private checkDenied(input: string, candidate: string): void {
    const hit = this.deniedBy(candidate);
    if (hit !== undefined) {
      throw new ToolError(
        'PATH_DENIED',
        `Access to "${input}" is denied by the server's deny globs (${hit}).`,
        {
          hint: 'Choose a file that is not excluded by --deny-glob.',
          details: { denied: hit, deny_globs: [...this.deny.patterns] },
        },
      );
    }
  }

  private outside(input: string, resolved: string, viaSymlink = false): ToolError {
    const roots = this.roots;
    const how = viaSymlink ? ' through a symbolic link' : '';
    return new ToolError(
      'PATH_OUTSIDE_ROOT',
      `Path "${input}" resolves${how} to ${resolved}, outside the allowed roots: ${roots.join(', ')}.`,
      {
        hint: `Use a path inside ${roots.join(' or ')} (relative paths resolve against ${roots[0] ?? 'the first root'}).`,
        details: { allowed_roots: roots },
      },
    );
  }

  /** macOS and some clients send NFD names; Linux stores bytes. Try the other Unicode form once. */
  private async unicodeAlternative(input: string, options: ResolveOptions): Promise<string | undefined> {
    for (const form of ['NFC', 'NFD'] as const) {
      const variant = input.normalize(form);
      if (variant === input) continue;
      try {
        return await this.resolve(variant, { ...options, mustExist: true });
      } catch {
        // The other form does not exist either; report the original input.
      }
    }
    return undefined;
  }
}
