/**
 * One error type for every tool of every server. The `code` is stable (clients and agents may branch
 * on it); the message says what went wrong; the hint says what to do next.
 */
export const ERROR_CODES = {
  INVALID_ARGUMENT: 'An argument is missing, malformed or out of range.',
  PATH_OUTSIDE_ROOT: 'The path leaves every allowed root (directly, via "..", or through a symlink).',
  PATH_DENIED: 'The path is inside a root but matches a deny glob.',
  NOT_FOUND: 'The file, sheet, cell, record or cursor target does not exist.',
  ALREADY_EXISTS: 'The target exists and the chosen conflict policy forbids replacing it.',
  LIMIT_EXCEEDED: 'The request would exceed a size, count or time budget.',
  UNSUPPORTED_FORMAT: 'The input is of a kind this server cannot read or write.',
  CONFLICT: 'The target changed underneath the request (stale cursor, concurrent edit, mismatch).',
  BACKEND_UNAVAILABLE: 'A backend (binary, database, service) is missing or not answering.',
  PERMISSION_DENIED: 'The operating system refused access to the file.',
  TIMEOUT: 'The operation took longer than its time limit.',
  CANCELLED: 'The client cancelled the request.',
  INTERNAL: 'An unexpected failure inside the server; details are in the server log.',
} as const;

export type CoreErrorCode = keyof typeof ERROR_CODES;
/** Core codes, plus server-specific ones (e.g. `ZIP_BOMB`) that servers document in their README. */
export type ErrorCode = CoreErrorCode | (string & {});

export interface ToolErrorOptions {
  hint?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

export interface ToolErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  toJSON(): ToolErrorBody {
    const body: ToolErrorBody = { code: this.code, message: this.message };
    if (this.hint !== undefined) body.hint = this.hint;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

interface NodeErrnoLike {
  code?: unknown;
  path?: unknown;
  message?: unknown;
}

/** On Windows a file another program holds open (a workbook open in Excel) cannot be replaced either. */
const PERMISSION_HINT =
  process.platform === 'win32'
    ? 'Close the file if another program (Excel, an editor) has it open, grant read/write permission, or choose another path.'
    : 'Grant read/write permission or choose another path.';

const ERRNO_TO_CODE: Record<string, { code: CoreErrorCode; hint: string }> = {
  ENOENT: { code: 'NOT_FOUND', hint: 'Check the path (relative paths resolve against the first root).' },
  ENOTDIR: { code: 'NOT_FOUND', hint: 'A parent of the path is a file, not a directory.' },
  EISDIR: { code: 'INVALID_ARGUMENT', hint: 'Give a file path, not a directory.' },
  EACCES: { code: 'PERMISSION_DENIED', hint: PERMISSION_HINT },
  EPERM: { code: 'PERMISSION_DENIED', hint: PERMISSION_HINT },
  EBUSY: { code: 'PERMISSION_DENIED', hint: PERMISSION_HINT },
  EEXIST: { code: 'ALREADY_EXISTS', hint: 'Choose another name or allow overwriting.' },
  ENAMETOOLONG: { code: 'INVALID_ARGUMENT', hint: 'Shorten the path or a component of it.' },
  ELOOP: { code: 'INVALID_ARGUMENT', hint: 'The path contains a symlink loop.' },
  ENOSPC: { code: 'LIMIT_EXCEEDED', hint: 'Free disk space and retry.' },
  EMFILE: { code: 'LIMIT_EXCEEDED', hint: 'Too many open files; retry with a smaller batch.' },
};

/**
 * Maps anything thrown inside a tool to a ToolError. Known Node errno errors get their proper code;
 * everything else becomes INTERNAL, whose message never carries a stack trace.
 */
/** Maps any thrown value to a ToolError; `path` names the file in errno messages instead of the OS's path. */
export function toToolError(error: unknown, options: { path?: string } = {}): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof Error && error.name === 'AbortError') {
    return new ToolError('CANCELLED', 'The request was cancelled.', { cause: error });
  }
  const errno = error as NodeErrnoLike | null;
  if (errno && typeof errno === 'object' && typeof errno.code === 'string') {
    const known = ERRNO_TO_CODE[errno.code];
    if (known) {
      const shown = options.path ?? errno.path;
      const where = typeof shown === 'string' ? `: ${shown}` : '';
      const what =
        known.code === 'NOT_FOUND' ? 'No such file or directory' : `File system error ${errno.code}`;
      return new ToolError(known.code, `${what}${where}`, { hint: known.hint, cause: error });
    }
  }
  return new ToolError('INTERNAL', 'Unexpected internal error; the server log has the details.', {
    hint: 'Retry once; if it fails again, report the server log.',
    cause: error,
  });
}
