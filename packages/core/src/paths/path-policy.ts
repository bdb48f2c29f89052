import { realpath, stat, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../errors.js';
import { atomicWriteIn, type AtomicWriteOptions } from '../fs/atomic-write.js';
import { PathChangedError, openDirBeneath } from '../fs/beneath.js';
import {
  openRegularBeneath,
  readOpened,
  requireRegularFile,
  type FileAccess,
  type OpenedFile,
  type ReadFileOptions,
} from '../fs/file-access.js';
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
  /**
   * The roots were not chosen by the user (a bootstrap's working-directory default). MCP client roots
   * then replace them instead of only narrowing them, and a filesystem root or the home folder itself
   * is not used: until the client offers roots, every path fails with an error that names --root.
   * Default false: the roots are the user's, and client roots can only narrow them.
   */
  implicitRoots?: boolean;
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

/** Why a client whose roots all lie outside the user's roots is refused everything. */
function disjointRootsMessage(client: readonly Root[], user: readonly Root[]): string {
  const list = (roots: readonly Root[]) => roots.map((root) => root.real).join(', ');
  return (
    `The client's roots (${list(client)}) lie outside the server's --root directories ` +
    `(${list(user)}), so no directory is open to this client.`
  );
}

/**
 * The names that stand for the roots in shown paths when there are several: each root's own folder
 * name, made unique with `~2`, `~3` (in root order) when two roots share a name.
 */
function rootNames(roots: readonly Root[], flavor: PathFlavor): Map<Root, string> {
  const api = pathApi(flavor);
  const key = (name: string) => (flavor === 'win32' ? name.toLowerCase() : name);
  const taken = new Set<string>();
  const names = new Map<Root, string>();
  for (const root of roots) {
    const base = api.basename(root.given) || api.basename(root.real) || 'root';
    let name = base;
    for (let n = 2; taken.has(key(name)); n++) name = `${base}~${n}`;
    taken.add(key(name));
    names.set(root, name);
  }
  return names;
}

/**
 * Decides whether a path given by a client may be touched, and returns its canonical real path; and
 * opens, reads and writes files inside the roots without a check-then-open race (`FileAccess`).
 * Every file any tool reads or writes goes through it.
 */
export class PathPolicy implements FileAccess {
  private rootList: Root[] = [];
  /** With several roots: the name each root goes by in shown paths (see `displayPath`). */
  private names = new Map<Root, string>();
  /** The user's roots (undefined when implicit): client roots may only narrow them. */
  private userRoots: Root[] | undefined;
  /** The roots the deny globs were given for: anchored globs stay anchored there after a roots change. */
  private denyBases: Root[] = [];
  /** Why there is no root yet (an implicit root that was refused), for the error of every call. */
  private noRootReason: string | undefined;
  private deny: DenyGlobs;
  private pending: Promise<void> = Promise.resolve();
  private readonly flavor: PathFlavor = hostFlavor();

  private constructor(denyGlobs: readonly string[]) {
    this.deny = new DenyGlobs(denyGlobs, { caseInsensitive: this.flavor === 'win32' });
  }

  /** Builds a policy; every root must be an existing directory. */
  static async create(options: PathPolicyOptions): Promise<PathPolicy> {
    const policy = new PathPolicy(options.denyGlobs ?? []);
    if (options.implicitRoots) {
      const broad = await policy.broadRoot(options.roots);
      if (broad) {
        policy.noRootReason = broad;
        return policy;
      }
      await policy.setRoots(options.roots);
      policy.userRoots = undefined;
      return policy;
    }
    await policy.setRoots(options.roots);
    return policy;
  }

  /**
   * A message when a root is the whole file system or the home folder itself, which are never taken
   * as a root the user did not name (a client started from `/` would otherwise open everything).
   */
  private async broadRoot(roots: readonly string[]): Promise<string | undefined> {
    for (const input of roots) {
      const real = await realpath(this.absoluteFromInput(input, process.cwd())).catch(() => undefined);
      if (real !== undefined && this.isTooBroad(real)) {
        const what =
          real === pathApi(this.flavor).parse(real).root ? 'the filesystem root' : 'your home folder';
        return `The server was started in ${real} (${what}) without --root, so it has no root directory.`;
      }
    }
    return undefined;
  }

  private isTooBroad(real: string): boolean {
    const api = pathApi(this.flavor);
    if (api.parse(real).root === real) return true;
    const home = os.homedir();
    return home !== '' && this.within(real, home) && this.within(home, real);
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
    this.useRoots(next);
    this.userRoots = next;
    this.denyBases = next;
    this.noRootReason = undefined;
  }

  /**
   * Applies roots offered by the MCP client. Under the user's roots they only narrow: each client root
   * inside a user root is kept, a user root inside a client root is kept instead (a client offering
   * `file:///` gets the user's roots, not the disk). Without user roots they replace the implicit
   * root, except a filesystem root or the home folder itself. Unusable roots are skipped; when none is
   * left the roots stay as they are. Client roots that all lie outside the user's roots narrow them to
   * nothing: every call then fails saying so, until the client offers roots that meet them. Returns what
   * was applied (empty for that case), or undefined when nothing changed.
   */
  async applyClientRoots(roots: readonly string[]): Promise<string[] | undefined> {
    const offered: Root[] = [];
    for (const input of roots) {
      const root = await this.loadRoot(input).catch(() => undefined);
      if (root) offered.push(root);
    }
    const next: Root[] = [];
    const add = (root: Root) => {
      if (!next.some((known) => known.real === root.real)) next.push(root);
    };
    for (const client of offered) {
      if (!this.userRoots) {
        if (!this.isTooBroad(client.real)) add(client);
        continue;
      }
      for (const user of this.userRoots) {
        if (this.within(user.real, client.real)) add(client);
        else if (this.within(client.real, user.real)) add(user);
      }
    }
    if (next.length === 0 && this.userRoots && offered.length > 0) {
      this.useRoots([]);
      this.noRootReason = disjointRootsMessage(offered, this.userRoots);
      return [];
    }
    if (next.length === 0) return undefined;
    this.useRoots(next);
    this.noRootReason = undefined;
    return this.roots;
  }

  private useRoots(next: Root[]): void {
    this.rootList = next;
    this.names = next.length > 1 ? rootNames(next, this.flavor) : new Map<Root, string>();
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
        if (!roots || roots.length === 0) return;
        if (!(await this.applyClientRoots(roots))) {
          throw new ToolError('NOT_FOUND', `No usable directory among the client roots: ${roots.join(', ')}`);
        }
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
    return this.resolveForm(input, options, true);
  }

  /** `otherForm`: whether a missing file is looked for under the other Unicode form of its name. */
  private async resolveForm(input: string, options: ResolveOptions, otherForm: boolean): Promise<string> {
    await this.ready();
    const { mustExist = false, kind = 'any' } = options;
    const base = this.firstRoot();

    const absolute = this.absoluteFromInput(input, base, true);
    const lexicalRoot = this.rootList.find(
      (r) => this.within(r.given, absolute) || this.within(r.real, absolute),
    );
    if (!lexicalRoot) throw this.outside(input);
    this.checkDenied(input, absolute);

    const { real, exists } = await this.realPathOf(absolute);
    const realRoot = this.rootList.find((r) => this.within(r.real, real));
    if (!realRoot) throw this.outside(input, true);
    this.checkDenied(input, real);

    if (!exists) {
      const alternative = mustExist && otherForm ? await this.unicodeAlternative(input, options) : undefined;
      if (alternative) return alternative;
      if (mustExist) {
        throw new ToolError('NOT_FOUND', `File not found: ${input}`, {
          hint: `Check the name; relative paths resolve against ${base}.`,
          details: { resolved: real },
        });
      }
      return real;
    }
    if (kind !== 'any') {
      const info = await stat(real);
      const isDirectory = info.isDirectory();
      if (kind === 'file' && isDirectory) {
        throw new ToolError('INVALID_ARGUMENT', `Expected a file but found a directory: ${input}`, {
          hint: 'Give the path of a file inside the directory.',
        });
      }
      if (kind === 'file') requireRegularFile(info, input); // no FIFO, device or socket
      if (kind === 'directory' && !isDirectory) {
        throw new ToolError('INVALID_ARGUMENT', `Expected a directory but found a file: ${input}`, {
          hint: 'Give the path of a directory.',
        });
      }
    }
    return real;
  }

  /** The first root (relative paths resolve against it); throws, naming --root, when there is none. */
  firstRoot(): string {
    const base = this.rootList[0];
    if (base) return base.real;
    throw new ToolError('INVALID_ARGUMENT', this.missingRootMessage(), {
      hint: this.userRoots
        ? "Open the client on a folder inside the server's --root directories, or start the server with a --root that holds the client's folder."
        : 'Start the server with --root <dir> (repeatable), or use a client that offers MCP roots.',
    });
  }

  /** Why there is no root (empty when there is one). */
  missingRootMessage(): string {
    if (this.rootList.length > 0) return '';
    return this.noRootReason ?? 'No root directory is configured.';
  }

  // ---- FileAccess: open what was checked ---------------------------------------------------------

  /**
   * Opens a regular file inside the roots for reading. The path is resolved (and checked) first, then
   * opened from its root one name at a time without following links, so a directory swapped for a
   * symlink after the check cannot redirect the open; pipes, devices and sockets are refused on the
   * opened handle. The caller closes `handle`.
   */
  async openFile(input: string): Promise<OpenedFile> {
    return this.retryChanged(input, async () => {
      const real = await this.resolve(input, { mustExist: true, kind: 'file' });
      const { root, parts } = this.locate(real);
      return openRegularBeneath(root, parts, input);
    });
  }

  /** Reads a whole regular file inside the roots (see `openFile`), at most `maxBytes`. */
  async readFile(input: string, options: ReadFileOptions = {}): Promise<Buffer> {
    const opened = await this.openFile(input);
    try {
      return await readOpened(opened, { shownAs: input, ...options });
    } finally {
      await opened.handle.close();
    }
  }

  /** Writes a file inside the roots atomically; returns its real path. */
  async writeFileAtomic(
    input: string,
    data: string | Uint8Array,
    options: AtomicWriteOptions = {},
  ): Promise<string> {
    return this.withAtomicFile(input, (handle) => handle.writeFile(data), options);
  }

  /**
   * Streams a file inside the roots into place atomically: the target folder is opened from its root
   * without following links (created if missing, unless `createParents: false`), the temp file is
   * created in that folder's handle and renamed there, so nothing lands outside even if the tree
   * changes meanwhile. Returns the real path written.
   */
  async withAtomicFile(
    input: string,
    write: (handle: FileHandle) => Promise<void>,
    options: AtomicWriteOptions = {},
  ): Promise<string> {
    return this.retryChanged(input, async () => {
      const real = await this.resolve(input, { kind: 'file' });
      const { root, parts } = this.locate(real);
      const name = parts.pop();
      if (name === undefined) throw new ToolError('INVALID_ARGUMENT', `Cannot write to a root: ${input}`);
      const dir = await openDirBeneath(root, parts, { create: options.createParents ?? true });
      try {
        await atomicWriteIn(dir, name, write, options);
      } finally {
        await dir.close();
      }
      return real;
    });
  }

  /** Creates a directory inside the roots (and its missing parents) without following links. */
  async makeDirectory(input: string): Promise<string> {
    return this.retryChanged(input, async () => {
      const real = await this.resolve(input, { kind: 'directory' });
      const { root, parts } = this.locate(real);
      await (await openDirBeneath(root, parts, { create: true })).close();
      return real;
    });
  }

  /** A checked real path as the root that holds it (the deepest) and the names below that root. */
  private locate(real: string): { root: string; parts: string[] } {
    const holders = this.rootList.filter((r) => this.within(r.real, real));
    const root = holders.sort((a, b) => b.real.length - a.real.length)[0];
    if (!root) throw this.outside(real);
    const rel = relativeTo(root.real, real, this.flavor);
    return { root: root.real, parts: rel === '' ? [] : rel.split('/') };
  }

  /**
   * Runs an open that walks a checked path. If a name on the way became a link between the check and
   * the open, the path is checked and opened once more (a benign change, such as a tool replacing a
   * folder, then succeeds; a link out of the roots now fails the check); a second change is CONFLICT.
   */
  private async retryChanged<T>(input: string, attempt: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof PathChangedError)) throw namedAfter(error, input);
        if (tries >= 1) {
          throw new ToolError(
            'CONFLICT',
            `"${input}" changed while it was being opened; nothing was read or written.`,
            {
              hint: 'A folder on the way was replaced by a link while the server worked; retry once the files stop changing.',
              cause: error,
            },
          );
        }
      }
    }
  }

  /**
   * For paths the server found itself (a directory walk, ripgrep output) rather than ones a client
   * named: true when the real path lies in a root and matches no deny glob. Client paths go through
   * `resolve`.
   */
  allows(realPath: string): boolean {
    return this.rootOf(realPath) !== undefined && this.deniedBy(realPath) === undefined;
  }

  /**
   * A resolved path as answers show it, short and always valid input for `resolve` (it comes back to the
   * same file): relative to its root with one root; with several, prefixed by the root's name
   * (`api/src/x.ts` for src/x.ts in the root folder `api`), because a relative path without the prefix
   * resolves against the first root. A path in no root is shown absolute.
   */
  displayPath(realPath: string): string {
    const root = this.rootList.find((r) => this.within(r.real, realPath));
    if (!root) return realPath;
    const rel = relativeTo(root.real, realPath, this.flavor);
    if (this.names.size === 0) return rel || '.';
    const name = this.names.get(root) ?? '.';
    return rel ? `${name}/${rel}` : name;
  }

  /**
   * With several roots, the root a relative input names by its first segment (`api/src/x.ts` → the root
   * named `api`), and the rest of the path; undefined otherwise (the input is relative to the first root).
   */
  private namedRoot(text: string): { root: Root; rest: string } | undefined {
    if (this.names.size === 0) return undefined;
    const slash = text.indexOf('/');
    const first = slash < 0 ? text : text.slice(0, slash);
    const same = (name: string) =>
      this.flavor === 'win32' ? name.toLowerCase() === first.toLowerCase() : name === first;
    for (const [root, name] of this.names) {
      if (same(name)) return { root, rest: slash < 0 ? '' : text.slice(slash + 1) };
    }
    return undefined;
  }

  /**
   * True when a relative input starts with the name of a root (several roots only): it resolves inside
   * that root, not against the first root or a project folder.
   */
  namesRoot(input: string): boolean {
    return this.namedRoot(normalizeSeparators(input, 'posix')) !== undefined;
  }

  /** The root that holds a resolved path, if any. */
  rootOf(realPath: string): string | undefined {
    return this.rootList.find((r) => this.within(r.real, realPath))?.real;
  }

  private within(root: string, candidate: string): boolean {
    return isWithin(root, candidate, this.flavor);
  }

  private absoluteFromInput(input: string, base: string, rootNamed = false): string {
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
      throw this.outside(input);
    }
    const api = pathApi(this.flavor);
    const normalized = normalizeSeparators(text, this.flavor);
    if (api.isAbsolute(normalized)) return api.normalize(normalized);
    // A path this policy showed with several roots starts with its root's name: it goes back there.
    const named = rootNamed ? this.namedRoot(normalizeSeparators(normalized, 'posix')) : undefined;
    if (named) return api.resolve(named.root.real, named.rest);
    return api.resolve(base, normalized);
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
   * with nested roots [root/a, root], `a/secrets/**` must still deny root/a/secrets/key.txt. The roots
   * are those the globs were given for (so `/secrets/` keeps meaning the same folder after the client
   * changes the roots); a path under none of them is matched against the current roots.
   */
  private deniedBy(candidate: string): string | undefined {
    // Without deny globs, skip the per-root relative paths: a listing checks tens of thousands of paths.
    if (this.deny.isEmpty) return undefined;
    const bases = this.denyBases.filter(
      (r) => this.within(r.real, candidate) || this.within(r.given, candidate),
    );
    for (const root of bases.length > 0 ? bases : this.rootList) {
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

  /**
   * The error names only the path as asked: where a symbolic link leads outside the roots is none of
   * the caller's business (a model probing links would learn the layout of the machine otherwise).
   */
  private outside(input: string, viaSymlink = false): ToolError {
    const roots = this.roots;
    const how = viaSymlink ? ' through a symbolic link' : '';
    return new ToolError(
      'PATH_OUTSIDE_ROOT',
      `Path "${input}" leads${how} outside the allowed roots: ${roots.join(', ')}.`,
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
        // Once: the variant's own other form is the input again.
        return await this.resolveForm(variant, { ...options, mustExist: true }, false);
      } catch {
        // The other form does not exist either; report the original input.
      }
    }
    return undefined;
  }
}

/**
 * An error of the operating system keeps its code (callers test `EEXIST` and the like), but names the
 * path as the caller gave it instead of the descriptor path the walk used (`/proc/self/fd/23/x`).
 */
function namedAfter(error: unknown, input: string): unknown {
  if (!(error instanceof Error)) return error;
  const errno = error as Error & { path?: unknown; dest?: unknown };
  for (const key of ['path', 'dest'] as const) {
    const value = errno[key];
    if (typeof value === 'string' && value.startsWith('/proc/self/fd/')) {
      errno.message = errno.message.split(value).join(input);
      errno[key] = input;
    }
  }
  return error;
}
