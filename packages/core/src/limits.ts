import type { z } from 'zod';
import { ToolError } from './errors.js';

/**
 * One vocabulary for budgets across servers: an answer that was cut says `truncated: true`, names the
 * `limits` it ran into, and gives a `next_cursor` to continue from.
 */
export interface PageInfo {
  truncated: boolean;
  next_cursor?: string;
  limits?: Record<string, number>;
}

export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Cursors are opaque to clients: base64url of a small JSON payload. */
export function encodeCursor(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Decodes a cursor and checks its shape; a malformed or foreign cursor is an INVALID_ARGUMENT. */
export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    raw = undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ToolError('INVALID_ARGUMENT', 'The cursor is malformed or was not issued by this tool.', {
      hint: 'Pass next_cursor exactly as a previous answer returned it, or omit cursor to start over.',
    });
  }
  return parsed.data;
}

/** Clamps an integer option into [min, max]; non-integers are an INVALID_ARGUMENT naming the range. */
export function clampInteger(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `${name} must be an integer from ${min} to ${max}; got ${value}.`,
      {
        hint: `Pass ${name} between ${min} and ${max} (larger values are clamped to ${max}).`,
      },
    );
  }
  return Math.min(value, max);
}
