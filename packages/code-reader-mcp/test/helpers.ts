import { cp, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory, decodeToonText, type TestClient } from '@mcp-workbench/core/testing';
import { expect } from 'vitest';
import { createServer } from '../src/server.js';
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
    const decoded = decodeToonText(asToon.text) as Record<string, unknown>;
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
