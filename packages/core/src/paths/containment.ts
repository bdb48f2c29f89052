import path from 'node:path';

/** Which path rules apply: POSIX (case-sensitive, `/`) or Windows (case-insensitive, drive letters). */
export type PathFlavor = 'posix' | 'win32';

export function hostFlavor(): PathFlavor {
  return process.platform === 'win32' ? 'win32' : 'posix';
}

export function pathApi(flavor: PathFlavor): path.PlatformPath {
  return flavor === 'win32' ? path.win32 : path.posix;
}

const DRIVE_PATH = /^[A-Za-z]:(?:[\\/]|$)/;

/** True when the text looks like a Windows drive path (`C:\x`, `c:/x`). */
export function isDrivePath(input: string): boolean {
  return DRIVE_PATH.test(input);
}

/**
 * Puts a path in canonical textual form: separators unified, `.`/`..` folded, drive letter upper-cased
 * (Windows), no trailing separator except on a filesystem root. Backslashes count as separators on
 * every platform because agents write Windows-style paths on any OS.
 */
export function normalizeSeparators(input: string, flavor: PathFlavor): string {
  if (flavor === 'win32') {
    const normalized = path.win32.normalize(input.replace(/\//g, '\\'));
    return isDrivePath(normalized) ? normalized[0]!.toUpperCase() + normalized.slice(1) : normalized;
  }
  return input.replace(/\\/g, '/');
}

function comparable(p: string, flavor: PathFlavor): string {
  const api = pathApi(flavor);
  const normalized = api.normalize(p);
  const trimmed =
    normalized.length > api.parse(normalized).root.length && normalized.endsWith(api.sep)
      ? normalized.slice(0, -1)
      : normalized;
  return flavor === 'win32' ? trimmed.toLowerCase() : trimmed;
}

/** True when `candidate` is `root` itself or lies below it. Both must be absolute. */
export function isWithin(root: string, candidate: string, flavor: PathFlavor): boolean {
  const api = pathApi(flavor);
  const r = comparable(root, flavor);
  const c = comparable(candidate, flavor);
  if (c === r) return true;
  const prefix = r.endsWith(api.sep) ? r : r + api.sep;
  return c.startsWith(prefix);
}

/** The path of `candidate` relative to `root`, with `/` separators (for globs and display). */
export function relativeTo(root: string, candidate: string, flavor: PathFlavor): string {
  const api = pathApi(flavor);
  const rel = api.relative(root, candidate);
  return flavor === 'win32' ? rel.replace(/\\/g, '/') : rel;
}
