// Errors crossing a thread boundary: a ToolError keeps its code, message, hint and details; an errno
// error its code and path (so it maps to NOT_FOUND, PERMISSION_DENIED, … as if thrown on this thread).
// The worker entry: the extraction thread loads no more of core than its bundle does (see
// scripts/bundle-extract-thread.mjs).
import { isToolError, ToolError } from '@mcp-workbench/core/worker';

export interface JobFailure {
  tool: boolean;
  name: string;
  message: string;
  code?: string;
  path?: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export function toJobFailure(error: unknown): JobFailure {
  const e = error as {
    name?: string;
    message?: string;
    code?: unknown;
    path?: unknown;
    hint?: string;
    details?: Record<string, unknown>;
  };
  return {
    tool: isToolError(error),
    name: e.name ?? 'Error',
    message: e.message ?? String(error),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.path === 'string' ? { path: e.path } : {}),
    ...(e.hint ? { hint: e.hint } : {}),
    ...(e.details ? { details: e.details } : {}),
  };
}

export function fromJobFailure(failure: JobFailure): Error {
  if (failure.tool && failure.code) {
    return new ToolError(failure.code, failure.message, {
      ...(failure.hint ? { hint: failure.hint } : {}),
      ...(failure.details ? { details: failure.details } : {}),
    });
  }
  return Object.assign(new Error(failure.message), {
    name: failure.name,
    ...(failure.code ? { code: failure.code } : {}),
    ...(failure.path ? { path: failure.path } : {}),
  });
}

export function cancelled(): ToolError {
  return new ToolError('CANCELLED', 'The request was cancelled; nothing was written.');
}
