import type { Logger } from '@mcp-workbench/core/engine';
import type { Writable } from 'node:stream';
import type pg from 'pg';
import type { Embedder } from '../../search/embedder.js';
import { isNoAnswer } from './failures.js';
import { timed } from './limits.js';
import { preparedQuery } from './prepared.js';
import type { Extensions, Tables } from './schema.js';

/** What the PostgreSQL stores share inside one transaction (one pooled connection). */
export interface PgContext {
  client: pg.PoolClient;
  t: Tables;
  ext: Extensions;
  writable: boolean;
  /** Projects this write transaction holds the advisory lock of (lower-cased ids). */
  locked: Set<string>;
  /** Statements sent without waiting for their answer (see send). */
  inflight: Promise<unknown>[];
  /** Work to run after COMMIT (embedding: no network call holds locks). */
  after: (() => Promise<void>)[];
  embedder: Embedder | undefined;
  logger: Logger;
  /** The store's URL without password, with its schema (`postgres://u@host/db#prismind`). */
  display: string;
  /** How long each statement waits for its answer before the connection is closed (limits.ts). */
  queryTimeout: number;
  /**
   * A statement's "no answer within queryTimeout": it closed the connection, and the statements sent
   * before it then fail with "Connection terminated", which hides the reason.
   */
  noAnswer?: unknown;
  /**
   * Writes a store buffered to send as one statement (bulk loads add thousands of knowledge rows in one
   * transaction); run before the transaction's next statement and before COMMIT, so every read in the
   * transaction sees them and nothing is lost.
   */
  pending?: (() => Promise<void>) | undefined;
  /** The transaction's BEGIN until its first statement carries it (see submit); undefined once sent. */
  opening?: string | undefined;
  /** Whether the connection's writes are being gathered into one (see gatherWrites). */
  gathering?: boolean;
}

/** Whether the transaction's BEGIN went out (a transaction that sent no statement has nothing to end). */
export function begun(ctx: PgContext): boolean {
  return ctx.opening === undefined;
}

/**
 * Statements sent in one turn of the event loop leave in one write to the socket instead of one each:
 * every write wakes the PostgreSQL backend (and, on a virtual machine, maybe its idle CPU) once more.
 * The corked socket flushes once the statements chained in this turn are sent (process.nextTick runs
 * after the promise jobs of the turn). Without a reachable socket (another driver), nothing changes.
 */
function gatherWrites(ctx: PgContext): void {
  if (ctx.gathering) return;
  const stream = (ctx.client as unknown as { connection?: { stream?: Partial<Writable> } }).connection
    ?.stream;
  if (typeof stream?.cork !== 'function' || typeof stream.uncork !== 'function') return;
  ctx.gathering = true;
  stream.cork();
  process.nextTick(() => {
    ctx.gathering = false;
    stream.uncork!();
  });
}

/**
 * Sends one statement on the transaction's connection, as a named statement (prepared.ts) unless told
 * otherwise, with the transaction's BEGIN in front of it when it is the first: a read that sends BEGIN,
 * a setting and its query makes PostgreSQL wake once for all three. Every statement of a transaction
 * goes through here, or it would run before (outside) the transaction.
 */
export function submit<R extends pg.QueryResultRow>(
  ctx: PgContext,
  text: string,
  values: unknown[],
  named = true,
): Promise<pg.QueryResult<R>> {
  gatherWrites(ctx);
  if (ctx.opening !== undefined) {
    // No bound of its own: the statement sent right behind it has one, and its timeout closes the
    // connection under both.
    const begin = ctx.client.query(ctx.opening);
    ctx.opening = undefined;
    begin.catch(() => undefined);
    ctx.inflight.push(begin);
  }
  const config = named ? preparedQuery(ctx.client, text, values) : { text, values };
  const sent = ctx.client.query<R>(timed(config, ctx.queryTimeout));
  sent.catch((error: unknown) => {
    if (isNoAnswer(error)) ctx.noAnswer ??= error;
  });
  return sent;
}

/** Sends what a store buffered (see PgContext.pending) now. */
export async function flushPending(ctx: PgContext): Promise<void> {
  const flush = ctx.pending;
  if (!flush) return;
  ctx.pending = undefined;
  await flush();
}

/**
 * Statements sent and not yet answered (the connections pipeline, see createPool): BEGIN, an advisory
 * lock, a write whose answer nothing needs. PostgreSQL runs a connection's statements one after the
 * other in the order sent, so a read sent behind a lock starts, and takes its snapshot, only once the
 * lock is granted; sending it without waiting saves the round trip, not the order.
 */
export async function send(ctx: PgContext, text: string, values: unknown[] = []): Promise<void> {
  await flushPending(ctx);
  const sent = submit(ctx, text, values);
  // Its error is taken up by the next settle (the statement after it, or COMMIT).
  sent.catch(() => undefined);
  ctx.inflight.push(sent);
}

/**
 * send for a statement whose answer is only checked: `check` runs on its rows when it arrives, and a
 * throw there fails the transaction at the next settle (the statement after it, or COMMIT), like an
 * error of the statement itself.
 */
export async function sendChecked<R extends pg.QueryResultRow>(
  ctx: PgContext,
  text: string,
  values: unknown[],
  check: (rows: R[]) => void,
): Promise<void> {
  await flushPending(ctx);
  const sent = submit<R>(ctx, text, values).then((r) => check(r.rows));
  sent.catch(() => undefined);
  ctx.inflight.push(sent);
}

/** Waits for what was sent without waiting; the first failure among them is the transaction's error. */
export async function settle(ctx: PgContext): Promise<void> {
  while (ctx.inflight.length > 0) {
    const sent = ctx.inflight.splice(0);
    for (const statement of sent) await statement;
  }
}

/** Runs one parameterised statement (see submit), sent behind whatever was sent before it without waiting. */
export async function query<R extends pg.QueryResultRow>(
  ctx: PgContext,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  await flushPending(ctx);
  const result = submit<R>(ctx, text, values);
  result.catch(() => undefined);
  // An earlier statement's failure first: after it, this one only says "transaction aborted".
  await settle(ctx);
  return (await result).rows;
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
  ctx.locked.add(key);
  // Not waited for: the statement that reads behind it is sent at once and runs once the lock is held.
  await send(ctx, 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [ctx.t.schema, key]);
}

/** `FOR UPDATE` inside a write (the row stays ours until COMMIT), nothing inside a read. */
export function forUpdate(ctx: PgContext): string {
  return ctx.writable ? 'FOR UPDATE' : '';
}

/** SQL LIKE pattern that matches `text` anywhere (its own %, _ and \ taken literally). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
