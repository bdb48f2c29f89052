import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { ToolError } from '@mcp-workbench/core/engine';
import { startsPiece } from './piece-start.js';
import { Yielder } from '../util/yield.js';
import { loadTokenizer } from './count.js';
import { warmUpCounting } from './warm-up.js';
import type { CountReply, CountRequest } from './worker.js';

/**
 * The thread's code: the build's one CommonJS file beside the server bundle (dist/worker.cjs), else
 * tsc's module beside this one (dist/tokens/worker.js, for the CLI and library export).
 */
const WORKER_URL = [new URL('./worker.cjs', import.meta.url), new URL('./worker.js', import.meta.url)].find(
  (url) => existsSync(fileURLToPath(url)),
);

/** node:worker_threads, loaded with the first thread: a start that counts nothing skips it (start time). */
function workerThreads(): typeof import('node:worker_threads') {
  return createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
}

interface Pending {
  resolve: (counts: number[]) => void;
  reject: (error: Error) => void;
}

/**
 * o200k token counts off the event loop: one worker thread, started on the first count (so server start
 * does not pay for it), loads the tokenizer and counts; the server keeps answering (ping, other calls)
 * meanwhile. Idle, the thread keeps nothing alive. Without a compiled worker (tests importing src), the
 * counts run on this thread.
 */
class TokenCounter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly inThread = WORKER_URL === undefined;

  /** Starts the thread (which loads the tokenizer) now, so that the counts a call is about to ask for wait less. */
  warmUp(): void {
    if (!this.inThread) this.thread(); // in-thread, the load would block: it waits for the first count
  }

  /**
   * Loads the tokenizer on the event loop too (the rank table read off it, the rest a few ms) and warms
   * it up a piece per turn: texts of up to LOOP_CHARS in all are then counted here, without the thread.
   */
  prepareLoop(): void {
    // A thread already started (idle preparation, a tool that reads files) counts the pages instead.
    if (this.loop || this.inThread || this.worker) return;
    const loop = loadTokenizer();
    this.loop = loop;
    loop.then(warmUpCounting, () => undefined);
  }

  private loop: Promise<(text: string) => number> | undefined;

  async countEach(texts: string[]): Promise<number[]> {
    if (texts.length === 0) return [];
    // Short texts on the event loop once it has the tokenizer; longer ones too while no thread runs
    // (a search with a large budget), in pieces between turns of the loop.
    if (this.loop && (!this.worker || texts.reduce((sum, text) => sum + text.length, 0) <= LOOP_CHARS)) {
      return countAll(texts, await this.loop);
    }
    if (this.inThread) {
      return countAll(texts, await loadTokenizer());
    }
    const worker = this.thread();
    return new Promise<number[]>((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      // A count in flight keeps the process alive (the CLI awaits it); an idle thread does not.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, texts } satisfies CountRequest);
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new (workerThreads().Worker)(WORKER_URL as URL);
    worker.on('message', (reply: CountReply) => {
      const entry = this.pending.get(reply.id);
      if (!entry) return;
      this.settled(reply.id);
      if ('counts' in reply) entry.resolve(reply.counts);
      else entry.reject(new ToolError('INTERNAL', `Counting tokens failed: ${reply.error}`));
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined; // the next count starts a fresh thread
      for (const [id, entry] of [...this.pending]) {
        this.settled(id);
        entry.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) =>
      fail(new ToolError('INTERNAL', `The token counting thread stopped (exit code ${code}).`)),
    );
    // After the listeners: adding a 'message' listener refs the worker's port again, and a thread
    // started ahead of counts that never came (a batch whose every file failed) kept the CLI alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }
}

/**
 * Texts of up to this many characters in all are counted on the event loop once it has the tokenizer
 * (prepareLoop): a page of search rows or of paths, ~5-15 ms. A search or listing prepares it instead
 * of starting the thread, whose start (a Node thread, ~70-100 ms of CPU) took cores from ripgrep's walk
 * in a fresh server's first call. Longer texts (sections, whole files) are counted on the thread.
 */
export const LOOP_CHARS = 64 * 1024;

/** Pieces of about this many characters are counted between turns of the event loop. */
const COUNT_PIECE = 64 * 1024;

/** Counts each text on this thread, giving the event loop a turn every SLICE_MS (many short texts too). */
async function countAll(texts: string[], count: (text: string) => number): Promise<number[]> {
  const yielder = new Yielder();
  const counts: number[] = [];
  for (const text of texts) {
    counts.push(await countYielding(text, count, yielder));
    if (yielder.due()) await yielder.pause();
  }
  return counts;
}

/**
 * Counts the tokens of a long text piece by piece, giving the event loop a turn between pieces. Pieces
 * end after a line break where the text may be cut (piece-start.ts), so the sum is the count of the
 * whole text.
 */
async function countYielding(
  text: string,
  count: (text: string) => number,
  yielder: Yielder,
): Promise<number> {
  if (text.length <= COUNT_PIECE) return count(text);
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + COUNT_PIECE);
    while (end < text.length && !(text[end - 1] === '\n' && startsPiece(text, end))) end++;
    total += count(text.slice(start, end));
    start = end;
    await yielder.pause();
  }
  return total;
}

const counter = new TokenCounter();

/** Starts the tokenizer's thread (and its ~0.1 s load) ahead of the counts a call will ask for. */
export function warmUpTokenizer(): void {
  counter.warmUp();
}

/**
 * Loads the tokenizer on the event loop ahead of a call's counts of pages (LOOP_CHARS), without starting
 * the thread: for a search or listing, whose ripgrep walk the thread's start would slow.
 */
export function prepareLoopCounting(): void {
  counter.prepareLoop();
}

/** o200k tokens of each text, counted on the tokenizer's thread (short ones on the event loop once prepared). */
export function countEach(texts: string[]): Promise<number[]> {
  return counter.countEach(texts);
}

/** o200k tokens of one text, counted on the tokenizer's thread. */
export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  const [count] = await counter.countEach([text]);
  return count as number;
}
