import picomatch from 'picomatch';

/**
 * Deny globs, matched on the root-relative path with `/` separators. As in .gitignore, a glob without
 * a `/` matches a name at any depth, and denying a directory denies everything below it (every
 * ancestor of the path is tested too).
 */
export class DenyGlobs {
  readonly patterns: readonly string[];
  private readonly matcher: ((p: string) => boolean) | undefined;

  constructor(patterns: readonly string[], options: { caseInsensitive?: boolean } = {}) {
    this.patterns = patterns.filter((p) => p.trim() !== '');
    this.matcher =
      this.patterns.length === 0
        ? undefined
        : picomatch([...this.patterns], {
            dot: true,
            basename: true,
            nocase: options.caseInsensitive ?? false,
          });
  }

  /** The first denied prefix of `relativePath` (e.g. `secrets` for `secrets/a.txt`), or undefined. */
  match(relativePath: string): string | undefined {
    if (!this.matcher || relativePath === '') return undefined;
    const parts = relativePath.split('/').filter((part) => part !== '');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (this.matcher(prefix)) return prefix;
    }
    return undefined;
  }
}
