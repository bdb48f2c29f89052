import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, isWithin as within, ToolError, type PathPolicy } from '@mcp-workbench/core/engine';
import { LIMITS } from './limits.js';

export const MARKDOWN_EXTENSIONS = ['.md', '.markdown', '.mdown', '.mkd', '.mkdn', '.mdx'] as const;

export interface RequestPaths {
  /** The root as given (absolute, normalised): what meta.root shows. */
  root: string;
  /** Its real path, which every file must be inside. */
  realRoot: string;
  /** The base for the paths the agent sees (its real path when it exists). */
  workingPath: string;
  /** Canonical paths of the files, duplicates dropped, in the order given. */
  files: string[];
  /**
   * With `allowUnreadable`: why files could not be opened or checked (gone, outside the roots now, too
   * large, not text); their would-be canonical paths are in `files`.
   */
  unreadable: ToolError[];
}

const flavor = process.platform === 'win32' ? 'win32' : 'posix';
const isWithin = (root: string, candidate: string) => within(root, candidate, flavor);

function isAbsolute(input: string): boolean {
  // A Windows drive path is not absolute on POSIX (and PathPolicy refuses it there).
  return path.isAbsolute(input) && (process.platform === 'win32' || !/^[A-Za-z]:[\\/]/.test(input));
}

function invalid(message: string, hint: string, details?: Record<string, unknown>): ToolError {
  return new ToolError('INVALID_ARGUMENT', `Invalid path: ${message}`, {
    hint,
    ...(details ? { details } : {}),
  });
}

/** Gives a path policy error spec 004's wording ("File not found: …", "Invalid path: …"), keeping its code. */
function specError(error: unknown, shown: string): unknown {
  if (!isToolError(error)) return error;
  if (error.code === 'NOT_FOUND') {
    return new ToolError('NOT_FOUND', `File not found: ${shown}`, {
      hint: 'Check the path: files are relative to root (not to working_path), or absolute inside root.',
    });
  }
  return new ToolError(error.code, `Invalid path: ${error.message}`, {
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.details ? { details: error.details } : {}),
  });
}

/**
 * Checks review_request's paths as spec 004 says: `root` and `working_path` absolute, `files` relative
 * to root or absolute inside it, each an existing Markdown file; every path through the path policy.
 */
export async function resolveRequestPaths(
  policy: PathPolicy,
  input: { root: string; files: readonly string[]; working_path: string },
  options: { allowUnreadable?: boolean } = {},
): Promise<RequestPaths> {
  if (!isAbsolute(input.root)) {
    throw invalid(
      `root must be an absolute path; got ${JSON.stringify(input.root)}.`,
      'Pass the project directory as an absolute path, e.g. "/home/user/project".',
    );
  }
  if (!isAbsolute(input.working_path)) {
    throw invalid(
      `working_path must be an absolute path; got ${JSON.stringify(input.working_path)}.`,
      'Pass the directory you work in (your current directory) as an absolute path.',
    );
  }
  const root = path.resolve(input.root);
  let realRoot: string;
  try {
    realRoot = await policy.resolve(root, { mustExist: true, kind: 'directory' });
  } catch (error) {
    throw specError(error, root);
  }
  const workingPath = await realpath(path.resolve(input.working_path)).catch(() =>
    path.resolve(input.working_path),
  );

  if (input.files.length > LIMITS.maxFiles) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `A review holds at most ${LIMITS.maxFiles} files; got ${input.files.length}.`,
      {
        hint: 'Split the files into several reviews.',
      },
    );
  }
  const files: string[] = [];
  const unreadable: ToolError[] = [];
  let totalBytes = 0;
  for (const given of input.files) {
    if (given.trim() === '')
      throw invalid('an entry of files is empty.', 'Give each file relative to root, e.g. "docs/API.md".');
    const absolute = isAbsolute(given) ? path.resolve(given) : path.resolve(root, given);
    if (!isWithin(root, absolute) && !isWithin(realRoot, absolute)) {
      throw invalid(
        `${given} is not inside root ${root}.`,
        'Files are relative to root (not to working_path), or absolute paths inside root.',
        { root },
      );
    }
    // The file's canonical path as far as it can be known without reading it (to match a stored session).
    const guess = isWithin(root, absolute) ? path.join(realRoot, path.relative(root, absolute)) : absolute;
    try {
      const { real, size } = await checkFile(policy, given, absolute, root, realRoot);
      if (!files.includes(real)) {
        files.push(real);
        totalBytes += size;
      }
    } catch (error) {
      // A finished review is still delivered when a file is gone or unreadable since (the caller decides).
      if (!options.allowUnreadable || !isToolError(error)) throw error;
      checkMarkdown(given, guess);
      if (!files.includes(guess)) files.push(guess);
      unreadable.push(error);
    }
  }
  // The round's texts are kept as one JSON file when the person finishes: all of them must fit in it.
  if (totalBytes > LIMITS.maxReviewBytes) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `The files of this review hold ${totalBytes} bytes; a review holds at most ${LIMITS.maxReviewBytes}.`,
      { hint: 'Split the files into several reviews.' },
    );
  }
  return { root, realRoot, workingPath, files, unreadable };
}

/** Opens one file and checks it is a readable Markdown text inside root; answers its real path and size. */
async function checkFile(
  policy: PathPolicy,
  given: string,
  absolute: string,
  root: string,
  realRoot: string,
): Promise<{ real: string; size: number }> {
  let real: string;
  let size: number;
  let bytes: Buffer | undefined;
  try {
    // Opened, not just resolved: a FIFO or device is refused here, and its size is the file's own.
    const opened = await policy.openFile(absolute);
    try {
      real = opened.path;
      size = opened.stats.size;
      if (size <= LIMITS.maxFileBytes) bytes = await opened.handle.readFile();
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    throw specError(error, absolute);
  }
  if (!isWithin(realRoot, real)) {
    throw invalid(
      `${given} leads outside root ${root} (through a symlink).`,
      'Review files that are inside root.',
      { root },
    );
  }
  checkMarkdown(given, real);
  if (size > LIMITS.maxFileBytes) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `${given} has ${size} bytes; a reviewed file has at most ${LIMITS.maxFileBytes}.`,
      {
        hint: 'Split the document into smaller files.',
      },
    );
  }
  if (bytes && !isText(bytes)) {
    throw invalid(
      `${given} is not a text file (it holds NUL bytes or is not valid UTF-8).`,
      'review_request shows Markdown documents as UTF-8 text; pass the Markdown source, not a binary file.',
    );
  }
  return { real, size };
}

function checkMarkdown(given: string, file: string): void {
  if (!(MARKDOWN_EXTENSIONS as readonly string[]).includes(path.extname(file).toLowerCase())) {
    throw invalid(
      `${given} is not a Markdown file (${MARKDOWN_EXTENSIONS.join(', ')}).`,
      'review_request shows Markdown documents; convert the file or name it .md.',
    );
  }
}

/** Text the page can show: valid UTF-8 without NUL bytes (a binary file named .md is refused). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
