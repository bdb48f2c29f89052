import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, localFiles, type FileAccess, type PathPolicy } from '@mcp-workbench/core/engine';
import type { OnConflict } from './on-conflict.js';

/** `{stem}_patched{suffix}` next to the input, or `out_name` in `out_dir` (spec 8, 11.2). */
export function defaultOutputName(input: string, outName: string | undefined): string {
  const suffix = path.extname(input);
  if (!outName) return `${path.basename(input, suffix)}_patched${suffix}`;
  if (outName.includes('/') || outName.includes('\\')) {
    throw new ToolError('INVALID_ARGUMENT', `out_name "${outName}" must be a file name, not a path.`, {
      hint: 'Put the folder in out_dir and only the file name in out_name.',
    });
  }
  const given = path.extname(outName);
  if (!given) return `${outName}${suffix}`;
  if (given.toLowerCase() !== suffix.toLowerCase()) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `out_name "${outName}" changes the file type from ${suffix} to ${given}.`,
      {
        hint: `Keep the ${suffix} extension: a ${suffix} package saved under another extension does not open in Excel.`,
      },
    );
  }
  return outName;
}

/** Whether a directory entry of that name exists (a dangling link counts: a write would meet it). */
async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** Whether the server's policy lets a tool write `file` (a rename candidate must pass it too). */
export type OutputAllowed = (file: string) => Promise<boolean>;

/** The path policy as an OutputAllowed: denied and outside-root names are refused, other errors thrown. */
export function policyAllows(paths: PathPolicy): OutputAllowed {
  return async (file) => {
    try {
      await paths.resolve(file, { kind: 'file' });
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'PATH_DENIED' || code === 'PATH_OUTSIDE_ROOT') return false;
      throw error;
    }
  };
}

export interface ResolvedOutput {
  path: string;
  /** on_conflict=skip and the file exists. */
  skip: boolean;
  /** An existing file at `path` is to be replaced (overwrite, or no policy and the server's own file). */
  replaces: boolean;
  warning: string | undefined;
}

/** Denied rename candidates tried before giving up (a glob like `*_*` refuses them all). */
const MAX_DENIED_CANDIDATES = 100;

/** How get_runtime_info names the default of extraction when no --on-conflict was given. */
export const DEFAULT_POLICY_NAME = 'rename (files this server wrote are replaced)';

/**
 * Whether `file` is an extraction output this server wrote for the workbook `bookName` (its first
 * bytes are the output's `book_name` in JSON, YAML or TOON): replacing it with a new extraction of the
 * same workbook is what re-running extract means. Anything else is somebody's file.
 */
export async function isOwnOutput(
  file: string,
  bookName: string,
  files: FileAccess = localFiles,
): Promise<boolean> {
  let head: string;
  try {
    const { handle } = await files.openFile(file);
    try {
      const buffer = Buffer.alloc(1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      head = buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
  const json = JSON.stringify(bookName);
  return [`{"book_name":${json}`, `book_name: ${bookName}`, `book_name: ${json}`].some((start) =>
    head
      .replace(/^\{\s+"/, '{"')
      .replace(/^\{"book_name":\s+/, '{"book_name":')
      .startsWith(start),
  );
}

export interface ConflictOptions {
  /** Whether this server wrote the existing file (then it is replaced when no policy was given). */
  ownedBy?: (file: string) => Promise<boolean>;
  /**
   * Why a file `ownedBy` refuses is kept, as the warning says it after "X exists and" (the default
   * suits a caller with no `ownedBy`). It names the rule, not a guess about who wrote the file: an
   * earlier call may have, under a name that is not the one a re-run replaces.
   */
  notOwned?: string;
  /** Whether a rename candidate may be written (the path policy's verdict). */
  allowed?: OutputAllowed;
  /**
   * Paths other outputs of the same call will take: they count as existing, and one output of a call
   * never replaces another (two sheets whose file names clash get `_1`, `_2`, …).
   */
  taken?: ReadonlySet<string>;
  /** Renaming: a candidate `ownedBy` owns is taken (replaced) rather than passed over. */
  reuseOwned?: boolean;
}

/**
 * Applies the conflict policy: overwrite, skip, or rename to `{stem}_1{suffix}`, `_2`, … Without a
 * policy (no tool argument, no --on-conflict), a file is replaced only when `ownedBy` says this server
 * wrote it; anything else is kept and the output renamed.
 */
export async function resolveConflict(
  target: string,
  policy: OnConflict | undefined,
  options: ConflictOptions = {},
): Promise<ResolvedOutput> {
  const { ownedBy, allowed, taken } = options;
  if (taken?.has(target)) {
    const renamed = await resolveConflict(target, 'rename', options);
    return {
      ...renamed,
      warning: `Two outputs of this call are both named ${path.basename(target)}; wrote ${path.basename(renamed.path)} for the second.`,
    };
  }
  if (!(await exists(target))) return { path: target, skip: false, replaces: false, warning: undefined };
  if (policy === undefined) {
    if (ownedBy && (await ownedBy(target)))
      return { path: target, skip: false, replaces: true, warning: undefined };
    // The next name is this server's own earlier output when there is one (`report_1.json` from the
    // last run beside somebody's `report.json`): re-running replaces it instead of adding `_2`, `_3`, ….
    const renamed = await resolveConflict(target, 'rename', { ...options, reuseOwned: true });
    return {
      ...renamed,
      warning: `${path.basename(target)} exists and ${options.notOwned ?? 'is replaced only when on_conflict says so'}, so it was kept; wrote ${path.basename(renamed.path)} instead (pass on_conflict="overwrite" to replace it).`,
    };
  }
  if (policy === 'skip') {
    // A kept file this server did not write is no output of the call: the read tools refuse it, so the
    // warning says so rather than letting the path pass for the call's output.
    const foreign = ownedBy !== undefined && !(await ownedBy(target));
    return {
      path: target,
      skip: true,
      replaces: false,
      warning: foreign
        ? `${path.basename(target)} exists and ${options.notOwned ?? 'was not written by this server'}; it was kept and nothing was written (on_conflict=skip). It is not this call's output: pass on_conflict="rename" to write one beside it.`
        : `Output exists; skipped writing (on_conflict=skip): ${path.basename(target)}`,
    };
  }
  if (policy === 'rename') {
    const suffix = path.extname(target);
    const stem = target.slice(0, target.length - suffix.length);
    let denied = 0;
    for (let i = 1; i < 10_000; i++) {
      const candidate = `${stem}_${i}${suffix}`;
      if (taken?.has(candidate)) continue;
      if (await exists(candidate)) {
        if (options.reuseOwned && ownedBy && (await ownedBy(candidate)))
          return { path: candidate, skip: false, replaces: true, warning: undefined };
        continue;
      }
      // A name the deny globs refuse (or a link out of the roots) is passed over, never proposed.
      if (allowed && !(await allowed(candidate))) {
        if (++denied >= MAX_DENIED_CANDIDATES)
          throw new ToolError(
            'PATH_DENIED',
            `The server's deny globs refuse every free name tried next to ${path.basename(target)} (${path.basename(stem)}_1${suffix} … _${i}${suffix}).`,
            { hint: 'Choose another out_name or out_dir, or on_conflict="overwrite".' },
          );
        continue;
      }
      return {
        path: candidate,
        skip: false,
        replaces: false,
        warning: `Output exists; writing to ${path.basename(candidate)} instead (on_conflict=rename).`,
      };
    }
    throw new ToolError('CONFLICT', `No free name found next to ${path.basename(target)}.`, {
      hint: 'Choose another out_name or clean up the folder.',
    });
  }
  return { path: target, skip: false, replaces: true, warning: undefined };
}
