import { existsSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { ToolError } from '@mcp-workbench/core/engine';
import { withIsolateFlags, type IsolateFlags } from './isolate-flags.js';
import { cancelled, fromJobFailure, type JobFailure } from './job-errors.js';
import { loadJob, type JobName, type Jobs } from './jobs.js';
import type { JobRequest, JobThreadData, StopWarmUp } from './job-worker.js';

const WORKER_URL = new URL('./job-worker.js', import.meta.url);

/** How a job is started: what to run, on the file opened through the PathPolicy. */
export interface JobStart<K extends JobName> {
  name: K;
  input: Jobs[K]['input'];
  /** Opens the job's file (on this thread, which owns the handle until the job is over). */
  open: () => Promise<FileHandle>;
  signal?: AbortSignal | undefined;
  /**
   * The job writes to a file of the caller's (by descriptor): its answer, a cancel's too, then waits
   * until no thread can write there any more, so the caller never closes a descriptor still in use.
   */
  writes?: boolean;
}

type JobReply =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: JobFailure }
  | { ready: true }
  | { loaded: number };

/** How a thread's isolate is made (see tools/deps.ts). */
export interface ThreadSettings {
  resourceLimits?: ResourceLimits;
  isolateFlags?: IsolateFlags;
}

interface Pending {
  start: JobStart<JobName>;
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
  onAbort: () => void;
  /** The job's file, once opened; closed when the job is over and no thread can read it any more. */
  handle?: FileHandle | undefined;
  /** The thread the job was posted to (none while its file is being opened). */
  postedTo?: Worker | undefined;
}

/**
 * One worker thread that runs jobs (jobs.ts) off the event loop and keeps what they cache. A cancelled
 * job ends the thread at once (its CPU work stops; it writes nothing, since jobs only return data); the
 * other jobs that were running on it start again on a fresh thread. Files stay owned by this thread
 * (the worker reads them by descriptor), so a terminated job never leaves one open. Without a compiled
 * worker (tests importing src), jobs run on this thread.
 */
export class JobThread {
  private worker: Worker | undefined;
  /** Resolves when a thread has loaded its modules (see endThread). */
  private readonly started = new WeakMap<Worker, Promise<void>>();
  /** Per thread, the jobs whose code may still be loading (a job's code loads on its first use). */
  private readonly loading = new WeakMap<Worker, Map<number, { done: Promise<void>; end: () => void }>>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  private readonly inThread = !existsSync(fileURLToPath(WORKER_URL));

  /**
   * `preload`: the jobs whose code a thread loads as it starts (the ones it is there for; others load on
   * first use). `settings`: for a thread started ahead of jobs, which warms up (`warmUp`), and for one
   * started for a job that is waiting (`forJob`); see tools/deps.ts.
   */
  constructor(
    private readonly preload: JobName[],
    private readonly settings: { warmUp?: ThreadSettings; forJob?: ThreadSettings } = {},
  ) {}

  run<K extends JobName>(start: JobStart<K>): Promise<Jobs[K]['output']> {
    if (start.signal?.aborted || this.closed) return Promise.reject(cancelled());
    if (this.inThread) return this.runHere(start);
    return new Promise<unknown>((resolve, reject) => {
      const id = this.nextId++;
      const entry: Pending = {
        start: start,
        resolve,
        reject,
        onAbort: () => this.abort(id),
      };
      this.pending.set(id, entry);
      start.signal?.addEventListener('abort', entry.onAbort, { once: true });
      void this.post(id, entry);
    }) as Promise<Jobs[K]['output']>;
  }

  /**
   * Starts the thread now, in the background, so that it has loaded its modules (and warmed its code,
   * see job-worker.ts) by the time the first job comes: a fresh server's first call does not pay for
   * them. Nothing waits for it; without a compiled worker it does nothing.
   */
  prestart(): void {
    if (this.inThread || this.closed || this.worker) return;
    this.thread(true);
  }

  /**
   * Starts the thread now, without a warm-up, if it is not up: a job is coming, and the thread loads its
   * modules (~0.1-0.3 s) while the caller prepares it (resolving paths, the output's temp file, opening
   * the input), instead of after.
   */
  startForJob(): void {
    if (this.inThread || this.closed || this.worker) return;
    this.thread();
  }

  /**
   * Stops the warm-up of a prestarted thread (it only competes for the cores with work on the server's
   * own thread, as a first patch made right after the handshake). The thread stays up for jobs.
   */
  stopWarmUp(): void {
    const stop: StopWarmUp = { stopWarmUp: true };
    this.worker?.postMessage(stop);
  }

  /** Ends the thread and cancels every job on it (the server closed). */
  close(): void {
    this.closed = true;
    const ended = this.endThread();
    for (const [id, entry] of [...this.pending]) this.settle(id, () => entry.reject(cancelled()), ended);
  }

  /**
   * Without a compiled worker: the job on this thread; a cancel answers at once (once the work has run
   * out when it writes to a file of the caller's), the work runs out.
   */
  private runHere<K extends JobName>(start: JobStart<K>): Promise<Jobs[K]['output']> {
    const work = start.open().then(async (handle) => {
      try {
        const job = await loadJob(start.name);
        return await job(start.input, handle.fd);
      } finally {
        await handle.close();
      }
    });
    const signal = start.signal;
    if (!signal) return work;
    return new Promise((resolve, reject) => {
      const onAbort = () =>
        start.writes
          ? void work.then(
              () => reject(cancelled()),
              () => reject(cancelled()),
            )
          : reject(cancelled());
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async post(id: number, entry: Pending): Promise<void> {
    if (!entry.handle) {
      try {
        entry.handle = await entry.start.open();
      } catch (error) {
        this.settle(id, () => entry.reject(error as Error));
        return;
      }
      // Cancelled (or the server closed) while the file was opening.
      if (!this.pending.has(id)) return void (await entry.handle.close());
    }
    const request: JobRequest = {
      id,
      name: entry.start.name,
      input: entry.start.input,
      fd: entry.handle.fd,
    };
    entry.postedTo = this.thread();
    // Until the thread says the job's code is loaded, ending the thread waits for it (see endThread).
    const loading = this.loading.get(entry.postedTo);
    let end: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (end = resolve));
    loading?.set(id, { done, end });
    entry.postedTo.postMessage(request);
  }

  private thread(warmUp = false): Worker {
    if (this.worker) return this.worker;
    const workerData: JobThreadData = { preload: this.preload, warmUp };
    const { resourceLimits, isolateFlags } = (warmUp ? this.settings.warmUp : this.settings.forJob) ?? {};
    const worker = withIsolateFlags(
      isolateFlags,
      () => new Worker(WORKER_URL, { workerData, ...(resourceLimits ? { resourceLimits } : {}) }),
    );
    // An idle job thread never keeps the server alive.
    worker.unref();
    let loaded: () => void = () => undefined;
    this.started.set(worker, new Promise<void>((resolve) => (loaded = resolve)));
    const loading = new Map<number, { done: Promise<void>; end: () => void }>();
    this.loading.set(worker, loading);
    worker.once('exit', () => {
      loaded();
      for (const { end } of loading.values()) end();
    });
    worker.on('message', (reply: JobReply) => {
      if ('ready' in reply) return loaded();
      if ('loaded' in reply) {
        loading.get(reply.loaded)?.end();
        loading.delete(reply.loaded);
        return;
      }
      const entry = this.pending.get(reply.id);
      if (!entry) return;
      this.settle(reply.id, () =>
        reply.ok ? entry.resolve(reply.output) : entry.reject(fromJobFailure(reply.error)),
      );
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const [id, entry] of [...this.pending])
        if (entry.postedTo === worker) this.settle(id, () => entry.reject(error));
    };
    worker.on('error', fail);
    worker.on('exit', (code) =>
      fail(new ToolError('INTERNAL', `The job thread stopped unexpectedly (exit code ${code}).`)),
    );
    this.worker = worker;
    return worker;
  }

  /**
   * Terminates the current thread; resolves once it has stopped (and reads no file any more). A thread
   * still loading its modules, or a job's code on its first use, is let finish that first: terminated in
   * the middle, Node leaves the module files it was reading open (a cancelled first sheet-image call
   * left ~1 descriptor each, until the server hit EMFILE).
   */
  private endThread(): Promise<unknown> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return Promise.resolve();
    const loads = [...(this.loading.get(worker)?.values() ?? [])].map((load) => load.done);
    return Promise.all([this.started.get(worker), ...loads]).then(() => worker.terminate());
  }

  /** Ends the thread under a cancelled job; the others start again on a new thread. */
  private abort(id: number): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    // Not on the thread yet (its file is being opened): post() drops it.
    if (!this.worker || entry.postedTo !== this.worker) {
      this.settle(id, () => entry.reject(cancelled()));
      return;
    }
    const dead = this.worker;
    const ended = this.endThread();
    this.settle(id, () => entry.reject(cancelled()), ended);
    // The others keep their open files; jobs still opening theirs go to the new thread by themselves.
    // A job that writes starts again once the old thread can no longer write to its file.
    for (const [other, rest] of this.pending) {
      if (rest.postedTo !== dead) continue;
      const again = () => void (this.pending.has(other) && this.post(other, rest));
      if (rest.start.writes) void ended.then(again, again);
      else again();
    }
  }

  /** Answers the job and closes its file — after `threadEnded` when a thread may still be reading it. */
  private settle(id: number, finish: () => void, threadEnded?: Promise<unknown>): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.start.signal?.removeEventListener('abort', entry.onAbort);
    const handle = entry.handle;
    if (handle) {
      const close = () => handle.close().catch(() => undefined);
      if (threadEnded) void threadEnded.finally(close);
      else void close();
    }
    if (threadEnded && entry.start.writes) void threadEnded.then(finish, finish);
    else finish();
  }
}
