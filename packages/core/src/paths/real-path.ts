import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';

const MAX_LINK_HOPS = 40;

export interface RealPath {
  /** The canonical path: symlinks resolved as far as anything exists. */
  real: string;
  /** Whether the path itself exists (after following symlinks). */
  exists: boolean;
}

function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

async function lstatOrUndefined(p: string) {
  try {
    return await lstat(p);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Resolves every symlink of an absolute path. For a path that does not exist yet (a file to be
 * created), the nearest existing ancestor is resolved and the missing tail appended, and a dangling
 * symlink is followed to where it points, so that "create through a link" cannot land outside a root.
 */
export async function resolveRealPath(absolute: string, hops = 0): Promise<RealPath> {
  if (hops > MAX_LINK_HOPS) {
    throw new ToolError('INVALID_ARGUMENT', `Too many symbolic links while resolving ${absolute}.`, {
      hint: 'The path contains a symlink loop; use a path without it.',
    });
  }
  try {
    return { real: await realpath(absolute), exists: true };
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ELOOP') return resolveRealPath(absolute, MAX_LINK_HOPS + 1);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }

  const tail: string[] = [];
  let current = absolute;
  for (;;) {
    const stats = await lstatOrUndefined(current);
    try {
      if (stats?.isSymbolicLink()) {
        // A dangling link: continue from its target, keeping what follows it.
        const target = path.resolve(path.dirname(current), await readlink(current));
        const resolved = await resolveRealPath(target, hops + 1);
        return { real: path.join(resolved.real, ...tail), exists: false };
      }
      if (stats) {
        const real = await realpath(current);
        return { real: path.join(real, ...tail), exists: false };
      }
    } catch (error) {
      // The entry changed between lstat and readlink/realpath (a link became a folder, or went away):
      // start over, counting it as a hop so that a tree that never settles ends in an error.
      const code = errnoCode(error);
      if (code === 'EINVAL' || code === 'ENOENT' || code === 'ENOTDIR')
        return resolveRealPath(absolute, hops + 1);
      throw error;
    }
    const parent = path.dirname(current);
    if (parent === current) return { real: path.join(current, ...tail), exists: false };
    tail.unshift(path.basename(current));
    current = parent;
  }
}
