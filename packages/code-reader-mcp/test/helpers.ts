import { cp, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory, decodeToonText, type TestClient } from '@mcp-workbench/core/testing';
import { expect } from 'vitest';
import { createServer } from '../src/server.js';
import { decodeExtractText, decodeListText, decodeSearchText } from './answer-text.js';
import { DEFAULT_MAX_COUNT } from '../src/search/options.js';
import type { SearchQuery } from '../src/search/types.js';

export const FIXTURE = fileURLToPath(new URL('./fixtures/sample-project', import.meta.url));

/** A private copy of the sample project (tests may edit it). */
export async function copyFixture(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'code-reader-'));
  await cp(FIXTURE, dir, { recursive: true });
  return realDir(dir);
}

export async function emptyDir(): Promise<string> {
  return realDir(await mkdtemp(path.join(os.tmpdir(), 'code-reader-')));
}

async function realDir(dir: string): Promise<string> {
  const { realpath } = await import('node:fs/promises');
  return realpath(dir);
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Moves every mtime under `dir` a minute into the past and lets the clock move on: the search cache
 * refuses results over files changed just before or during the search.
 */
export async function ageTree(dir: string): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      await utimes(full, past, past);
    }
  };
  await walk(dir);
  await utimes(dir, past, past);
  // The cache ignores results over files changed (ctime) within a few ms before a search began.
  await new Promise((resolve) => setTimeout(resolve, 30));
}

export interface Connected extends TestClient {
  call(name: string, args?: Record<string, unknown>): ReturnType<typeof callTool>;
  /** Calls with output_format json; asserts success and a JSON text block; returns the decoded answer. */
  json(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls twice (TOON and JSON), asserts the TOON text decodes to the JSON answer, returns it. */
  both(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls and expects an error; returns its body. */
  fail(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ code: string; message: string; hint?: string; details?: Record<string, unknown> }>;
}

export async function connect(
  roots: string[],
  options: { denyGlobs?: string[]; clientRoots?: string[]; structuredOutput?: boolean } = {},
): Promise<Connected> {
  const paths = await PathPolicy.create({
    roots,
    ...(options.denyGlobs ? { denyGlobs: options.denyGlobs } : {}),
  });
  const connection = await connectInMemory(
    createServer({ paths, structuredOutput: options.structuredOutput === true }),
    options.clientRoots ? { roots: options.clientRoots } : {},
  );
  const call = (name: string, args: Record<string, unknown> = {}) => callTool(connection.client, name, args);
  const json = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, { ...args, output_format: 'json' });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.format).toBe('json');
    return result.structured;
  };
  const both = async (name: string, args: Record<string, unknown> = {}) => {
    const asJson = await json(name, args);
    const asToon = await call(name, args);
    expect(asToon.error, JSON.stringify(asToon.error)).toBeUndefined();
    const textView = textViewOf(name, args, asToon.text, asJson);
    if (textView) {
      expect(textView.decoded).toEqual(textView.expected);
      return asJson;
    }
    // get_code_outline sends the cheaper of TOON and JSON; callTool decoded whichever it is.
    const decoded = (name === 'get_code_outline' ? asToon.structured : decodeToonText(asToon.text)) as Record<
      string,
      unknown
    >;
    // cache_hit differs between two identical calls by design (the second may hit the cache).
    if ('cache_hit' in decoded) decoded.cache_hit = asJson.cache_hit;
    expect(decoded).toEqual(asJson);
    return asJson;
  };
  const fail = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    return result.error as {
      code: string;
      message: string;
      hint?: string;
      details?: Record<string, unknown>;
    };
  };
  return { ...connection, call, json, both, fail };
}

export async function mtimeOf(file: string): Promise<number> {
  return (await stat(file)).mtimeMs;
}

/** A search query with every option at its default (override what a test is about). */
export function baseQuery(overrides: Partial<SearchQuery> = {}): SearchQuery {
  return {
    targets: ['/x'],
    targetKind: 'roots',
    query: 'TODO',
    caseMode: 'smart',
    fixedStrings: false,
    word: false,
    multiline: false,
    includeGlobs: [],
    excludeGlobs: [],
    hidden: false,
    noIgnore: false,
    contextBefore: 0,
    contextAfter: 0,
    maxCount: DEFAULT_MAX_COUNT,
    mode: 'matches',
    denyGlobs: [],
    ...overrides,
  };
}

type Json = Record<string, unknown>;
const TOON_SEARCH_MODES = ['total_only', 'summary_only'];

/**
 * For the tools whose default answer is line-oriented text: the text decoded with the documented
 * format (test/answer-text.ts) and what it must equal, the JSON answer without the fields only JSON
 * carries (column, cache_hit, limits; a whole group_by_file answer's counts). Undefined for TOON answers.
 */
export function textViewOf(
  name: string,
  args: Json,
  text: string,
  asJson: Json,
): { decoded: unknown; expected: unknown } | undefined {
  const strip = ({ column: _column, ...row }: Json) => row;
  if (name === 'search_content' && !TOON_SEARCH_MODES.some((mode) => args[mode] === true)) {
    const grouped = args.group_by_file === true;
    const counts = args.count_only_matches === true;
    const contextAfter = Math.min(50, Math.max(0, Number(args.context_after ?? 0)));
    const decoded = decodeSearchText(text, { grouped, counts, contextAfter });
    const { cache_hit: _hit, limits: _limits, ...rest } = asJson;
    const expected: Json = { ...rest };
    if (Array.isArray(rest.matches)) expected.matches = (rest.matches as Json[]).map(strip);
    if (Array.isArray(rest.files)) {
      expected.files = (rest.files as Json[]).map((group) => ({
        ...group,
        ...(rest.truncated ? {} : { count: undefined }),
        matches: (group.matches as Json[]).map(strip),
      }));
      if (!rest.truncated) {
        delete expected.total_matches;
        delete expected.files_with_matches;
      }
    }
    return { decoded: JSON.parse(JSON.stringify(decoded)), expected: JSON.parse(JSON.stringify(expected)) };
  }
  if (name === 'list_files' && args.count_only !== true && args.fields === undefined) {
    const files = (asJson.files as { path: string }[] | undefined) ?? [];
    const expected = {
      count: asJson.count,
      files: files.map((f) => f.path),
      truncated: asJson.truncated,
      ...(asJson.next_cursor === undefined ? {} : { next_cursor: asJson.next_cursor }),
    };
    return { decoded: decodeListText(text), expected };
  }
  if (name === 'extract_code_section') {
    const numbered = args.format === 'json';
    const raw = args.format === 'raw';
    const decoded = decodeExtractText(text, { numbered });
    const results = (asJson.results as Json[] | undefined) ?? [];
    const sections = results.flatMap((r) =>
      (r.sections as Json[]).map((s) => ({ path: (r.resolved_path ?? r.file_path) as string, ...s })),
    );
    const errors = results.flatMap((r) =>
      ((r.errors as Json[] | undefined) ?? []).map((e) => ({
        path: (r.resolved_path ?? r.file_path) as string,
        ...e,
      })),
    );
    const view = (s: Json) => {
      if (raw)
        return { path: s.path, content: s.content, ...(s.label === undefined ? {} : { label: s.label }) };
      if (numbered) {
        const { content: _content, ...rest } = s;
        return rest;
      }
      return s;
    };
    return {
      decoded: {
        sections: decoded.sections.map((s) => view(s as unknown as Json)),
        errors: decoded.errors,
        error_count: decoded.error_count,
        error_codes: decoded.error_codes,
        truncated_by: decoded.truncated_by,
        next_cursor: decoded.next_cursor,
      },
      expected: {
        sections: sections.map(view),
        errors,
        error_count: asJson.error_count,
        error_codes: asJson.error_codes,
        truncated_by: asJson.truncated_by,
        next_cursor: asJson.next_cursor,
      },
    };
  }
  return undefined;
}
