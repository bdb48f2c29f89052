// The list_files filters and their translation into an engine query.
import { ToolError } from '@mcp-workbench/core';
import { z } from 'zod';
import type { ListFilesQuery } from '../files/list-files.js';
import type { ProjectPaths } from '../project/state.js';
import { compact, listOf, stringList } from './shared.js';

export const fileFilterInput = {
  roots: z.array(z.string()).optional(),
  pattern: z.string().optional().describe('RE2 regex on the file name'),
  glob: stringList.describe('"src/**/*.ts"'),
  types: stringList.describe('rg types: ts, py…'),
  extensions: stringList.describe('no dot'),
  exclude: stringList.describe('globs'),
  depth: z.number().int().min(0).max(1000).optional().describe("1: the root's own files"),
  hidden: z.boolean().optional(),
  no_ignore: z.boolean().optional(),
  size: stringList.describe('"+10k" (≥), "-1mi" (≤)'),
  changed_within: z.string().optional().describe('"30min", "3d", or a date'),
  changed_before: z.string().optional(),
};

export type FileFilterArgs = {
  roots?: string[] | undefined;
  pattern?: string | undefined;
  glob?: string | string[] | undefined;
  types?: string | string[] | undefined;
  extensions?: string | string[] | undefined;
  exclude?: string | string[] | undefined;
  depth?: number | undefined;
  hidden?: boolean | undefined;
  no_ignore?: boolean | undefined;
  size?: string | string[] | undefined;
  changed_within?: string | undefined;
  changed_before?: string | undefined;
};

/** A NUL byte cannot reach ripgrep (nor a regex): INVALID_ARGUMENT naming the field. */
export function rejectNul(field: string, values: string | readonly string[] | undefined): void {
  const list = typeof values === 'string' ? [values] : (values ?? []);
  if (list.some((value) => value.includes('\0'))) {
    throw new ToolError('INVALID_ARGUMENT', `${field} contains a NUL byte.`, {
      hint: `Remove the NUL character (\\0) from ${field}.`,
    });
  }
}

/** Turns the shared filter arguments into an engine query (resolving every root through the policy). */
export async function fileQueryOf(
  args: FileFilterArgs,
  paths: ProjectPaths,
  limit: number,
  countOnly: boolean,
): Promise<ListFilesQuery> {
  for (const field of ['pattern', 'glob', 'types', 'extensions', 'exclude'] as const)
    rejectNul(field, args[field]);
  const inputs = args.roots && args.roots.length > 0 ? args.roots : [await paths.baseDir()];
  const roots: ListFilesQuery['roots'] = [];
  for (const input of inputs) {
    const dir = await paths.resolve(input, { mustExist: true, kind: 'directory' });
    // The same directory twice ("." and "./") would list its files twice.
    if (!roots.some((root) => root.dir === dir)) roots.push({ dir, display: paths.display(dir) });
  }
  return compact({
    roots,
    pattern: args.pattern,
    globs: listOf(args.glob),
    types: listOf(args.types),
    extensions: listOf(args.extensions),
    exclude: listOf(args.exclude),
    depth: args.depth,
    hidden: args.hidden,
    noIgnore: args.no_ignore,
    size: listOf(args.size),
    changedWithin: args.changed_within,
    changedBefore: args.changed_before,
    limit,
    countOnly,
    denyGlobs: paths.denyGlobs,
    isDenied: paths.deniedPredicate(),
    allowedFiles: (files: string[]) => paths.allowedFiles(files),
    allowedFileCheck: () => paths.allowedFileCheck(),
  });
}
