import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolCallSpec } from './schemas.js';

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function timedPing(client: Client, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await client.ping({ timeout: timeoutMs });
  return performance.now() - started;
}

export interface RandomCancelReport {
  /** Calls cancelled before their answer arrived. */
  cancelled: number;
  /** Calls that answered before the cancel (the moment fell after the end). */
  answered: number;
  /** The slowest `ping` answer right after a cancel, in ms. */
  slowestPingMs: number;
}

export interface RandomCancelOptions {
  times?: number;
  /** Cancel at a moment drawn uniformly from [0, maxDelayMs). */
  maxDelayMs: number;
  seed: number;
  /** How long the server may take to answer the ping after each cancel (default 5000). */
  pingTimeoutMs?: number;
  /** Called after each round (e.g. to check that no stray output file was left). */
  afterEach?: (round: { index: number; cancelled: boolean }) => Promise<void>;
}

/**
 * Starts the call `times` times and cancels each at a random moment (the client sends
 * notifications/cancelled), then requires a `ping` answer: a cancel, a kill of a child process or a
 * partial read must never crash or wedge the server. Throws on the first round that fails.
 */
export async function cancelAtRandomMoments(
  client: Client,
  /** The call, or a function that makes round `index`'s call (e.g. to step past a result cache). */
  callOf: ToolCallSpec | ((index: number) => ToolCallSpec | Promise<ToolCallSpec>),
  options: RandomCancelOptions,
): Promise<RandomCancelReport> {
  const random = seededRandom(options.seed);
  const report: RandomCancelReport = { cancelled: 0, answered: 0, slowestPingMs: 0 };
  for (let index = 0; index < (options.times ?? 50); index++) {
    const call = typeof callOf === 'function' ? await callOf(index) : callOf;
    const controller = new AbortController();
    const delay = random() * options.maxDelayMs;
    const timer = setTimeout(() => controller.abort('cancelled by the test'), delay);
    let cancelled = false;
    try {
      await client.callTool({ name: call.name, arguments: call.arguments ?? {} }, undefined, {
        signal: controller.signal,
        timeout: 120_000,
      });
      report.answered++;
    } catch (error) {
      if (!controller.signal.aborted) {
        throw new Error(`${call.name} round ${index} (seed ${options.seed}) failed: ${String(error)}`);
      }
      cancelled = true;
      report.cancelled++;
    } finally {
      clearTimeout(timer);
    }
    let pingMs: number;
    try {
      pingMs = await timedPing(client, options.pingTimeoutMs ?? 5000);
    } catch (error) {
      throw new Error(
        `${call.name}: no ping answer after round ${index} (cancel at ${delay.toFixed(0)} ms, seed ${options.seed}): ${String(error)}`,
      );
    }
    report.slowestPingMs = Math.max(report.slowestPingMs, pingMs);
    await options.afterEach?.({ index, cancelled });
  }
  return report;
}

export interface PingLatency<T> {
  result: T;
  /** The slowest ping answer while the work ran, in ms. */
  slowestPingMs: number;
  pings: number;
}

/**
 * Pings the server back to back while `work` runs and reports the slowest answer: a server whose event
 * loop is blocked (a long synchronous loop, a catastrophic regex) answers late or not at all.
 */
export async function pingLatencyDuring<T>(
  client: Client,
  work: Promise<T>,
  options: { gapMs?: number; pingTimeoutMs?: number } = {},
): Promise<PingLatency<T>> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  finished.catch(() => undefined); // awaited below; this only keeps a rejection from looking unhandled
  let slowest = 0;
  let pings = 0;
  while (!done) {
    slowest = Math.max(slowest, await timedPing(client, options.pingTimeoutMs ?? 60_000));
    pings++;
    await new Promise((resolve) => setTimeout(resolve, options.gapMs ?? 5));
  }
  return { result: await finished, slowestPingMs: slowest, pings };
}
