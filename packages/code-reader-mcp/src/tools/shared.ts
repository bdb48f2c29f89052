import { formatOutput, type FormatOptions, type OutputFormat } from '@mcp-workbench/core';
import { z } from 'zod';
import { answerBudget, answerBudgetSchema, cursorSchema, hashKey } from '../paging/budget.js';

// No description: the enum says it, and the server's instructions say once for every tool that "toon"
// (the default) is the compact answer and "json" the full one (issue 22: the tool list's tokens).
export const outputFormatSchema = z.enum(['toon', 'json']).optional();

/** A string or a list of strings (agents pass either). */
export const stringList = z.union([z.string(), z.array(z.string())]).optional();

export function listOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function formatOf(args: { output_format?: 'toon' | 'json' | undefined }): 'toon' | 'json' {
  return args.output_format ?? 'toon';
}

export function render(value: unknown, format: OutputFormat, options?: FormatOptions): string {
  return formatOutput(value, format, options);
}

export const pagingInput = {
  max_answer_tokens: answerBudgetSchema,
  cursor: cursorSchema,
};

export const limitsSchema = z.record(z.string(), z.number());

/** Drops keys whose value is undefined, so TOON and JSON carry exactly the same fields. */
export function compact<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}

/** Output fields of a paged answer that continues: `truncated: true` and `next_cursor`. */
export const continuationOutput = {
  truncated: z.boolean().optional(),
  next_cursor: z.string().optional(),
};

/** The continuation fields of a page: present only when there is a next page. */
export function continuation(nextCursor: string | undefined): { truncated?: true; next_cursor?: string } {
  return nextCursor === undefined ? {} : { truncated: true, next_cursor: nextCursor };
}

/** The paging settings of one request for pageSections: its key, cursor, token budget and text format. */
export function pagingOf(
  args: {
    cursor?: string | undefined;
    max_answer_tokens?: number | undefined;
    output_format?: 'toon' | 'json' | undefined;
  },
  keyParts: unknown[],
) {
  const format = formatOf(args);
  return {
    key: hashKey(keyParts),
    cursor: args.cursor,
    budget: answerBudget(args.max_answer_tokens),
    render: (value: unknown) => render(value, format),
  };
}
