import type { Logger } from '@mcp-workbench/core/engine';
import type pg from 'pg';
import type { Embedder } from '../../search/embedder.js';
import type { Extensions, Tables } from './schema.js';

/** What the PostgreSQL stores share inside one transaction (one pooled connection). */
export interface PgContext {
  client: pg.PoolClient;
  t: Tables;
  ext: Extensions;
  writable: boolean;
  /** Projects this write transaction holds the advisory lock of (lower-cased ids). */
  locked: Set<string>;
  /** Work to run after COMMIT (embedding: no network call holds locks). */
  after: (() => Promise<void>)[];
  embedder: Embedder | undefined;
  logger: Logger;
  /** The store's URL without password, with its schema (`postgres://u@host/db#prismind`). */
  display: string;
  /**
   * Writes a store buffered to send as one statement (bulk loads add thousands of knowledge rows in one
   * transaction); run before the transaction's next statement and before COMMIT, so every read in the
   * transaction sees them and nothing is lost.
   */
  pending?: (() => Promise<void>) | undefined;
}

/** Sends what a store buffered (see PgContext.pending) now. */
export async function flushPending(ctx: PgContext): Promise<void> {
  const flush = ctx.pending;
  if (!flush) return;
  ctx.pending = undefined;
  await flush();
}

/** Runs one parameterised statement on the transaction's connection. */
export async function query<R extends pg.QueryResultRow>(
  ctx: PgContext,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  await flushPending(ctx);
  return (await ctx.client.query<R>(text, values)).rows;
}

export async function queryOne<R extends pg.QueryResultRow>(
  ctx: PgContext,
  text: string,
  values: unknown[] = [],
): Promise<R | undefined> {
  return (await query<R>(ctx, text, values))[0];
}

export function assertWritable(ctx: PgContext): void {
  if (!ctx.writable) throw new Error('A store write ran inside Backend.read; use Backend.write.');
}

export const keyOf = (project: string) => project.toLowerCase();

/**
 * The project's advisory lock, held until this transaction ends. Every write that reads a project's
 * rows to change them takes it first, so writers of one project (in any server process on any machine)
 * run one after the other and each sees what the previous one committed; locks are always taken in the
 * same order (project, then its rows), so they never deadlock among themselves. Reads take no lock.
 */
export async function lockProject(ctx: PgContext, project: string): Promise<void> {
  if (!ctx.writable) return;
  const key = keyOf(project);
  if (ctx.locked.has(key)) return;
  await ctx.client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [ctx.t.schema, key]);
  ctx.locked.add(key);
}

/** `FOR UPDATE` inside a write (the row stays ours until COMMIT), nothing inside a read. */
export function forUpdate(ctx: PgContext): string {
  return ctx.writable ? 'FOR UPDATE' : '';
}

/** SQL LIKE pattern that matches `text` anywhere (its own %, _ and \ taken literally). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
