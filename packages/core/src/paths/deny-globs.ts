import picomatch from 'picomatch';

type Matcher = (path: string) => boolean;

/**
 * Deny globs, matched on the root-relative path with `/` separators. As in .gitignore, a glob without
 * a `/` matches a name at any depth (`.env`, `*.pem`), a glob with a `/` matches from the root
 * (`src/gen/**`, a leading `/` is optional), and denying a directory denies everything below it (every
 * ancestor of the path is tested too).
 */
export class DenyGlobs {
  readonly patterns: readonly string[];
  private readonly byName: Matcher | undefined;
  private readonly byPath: Matcher | undefined;

  constructor(patterns: readonly string[], options: { caseInsensitive?: boolean } = {}) {
    this.patterns = patterns.filter((p) => p.trim() !== '');
    const compile = (globs: string[]) =>
      globs.length === 0
        ? undefined
        : picomatch(globs, { dot: true, nocase: options.caseInsensitive ?? false });
    this.byName = compile(this.patterns.filter((p) => !p.includes('/')));
    this.byPath = compile(this.patterns.filter((p) => p.includes('/')).map((p) => p.replace(/^\/+/, '')));
  }

  /** The first denied prefix of `relativePath` (e.g. `secrets` for `secrets/a.txt`), or undefined. */
  match(relativePath: string): string | undefined {
    if (relativePath === '') return undefined;
    const parts = relativePath.split('/').filter((part) => part !== '');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (this.byName?.(parts[i - 1]!) || this.byPath?.(prefix)) return prefix;
    }
    return undefined;
  }
}
