// V8 flags that only a new thread's isolate reads, as it is created (issue 26 §1, memory). Set in the
// process around a Worker's creation and set back once the thread runs its first JavaScript ('online'):
// the server's own isolate, created before, keeps its settings.
import v8 from 'node:v8';
import type { Worker } from 'node:worker_threads';

/** Flags for a thread's isolate, and the process's own values to set back. */
export interface IsolateFlags {
  flags: string;
  defaults: string;
}

/**
 * The isolate of the extraction thread started ahead of jobs, which warms up at idle:
 * - --no-concurrent-recompilation: its optimising compiles run on the thread itself, not on the
 *   platform's four background threads. Each of those keeps the compiler's zone memory in its own malloc
 *   arena once freed (glibc keeps it; TurboFan's big zone segments, freed, also raise glibc's mmap
 *   threshold to ~0.9 MB and its trim threshold to ~1.8 MB): after a warm-up and two 1,000-sheet calls,
 *   four arenas of 1.3-4.2 MB resident held ~0.8 MB in use (gdb, malloc_stats), while the thread's own
 *   arena reuses what it frees. The thread's CPU per call was the same or lower (see below).
 * - --no-short-builtin-calls: V8 copies its ~2 MB of embedded builtins into each isolate's code range (for
 *   shorter calls from compiled code) unless told not to; the thread's copy was ~1.1 MB resident.
 * Through the bin, the build before the lazy tool modules and these flags vs with both, alternated, 8
 * rounds, load 3.4-6.4, CPU of all the server's threads from /proc (schedstat), medians: 1,000 sheets,
 * a server idled 1 s then two calls: peak 109.2 -> 95.9 MB, CPU 413 / 280 -> 374 / 260 ms; called at
 * once: 106.7 -> 92.9 MB, 644 / 296 -> 617 / 283 ms; 1M cells idled: 133.0 -> 119.9 MB, 412 / 403 ->
 * 412 / 399 ms; at once: 136.9 -> 132.3 MB, 614 / 396 -> 600 / 416 ms. The flags' own share (idled,
 * 1,000 sheets): no short builtin calls 102.0 -> 99.8 MB, then no concurrent recompilation 99.2 -> 96.3.
 */
export const EXTRACT_ISOLATE_FLAGS: IsolateFlags = {
  flags: '--no-short-builtin-calls --no-concurrent-recompilation',
  defaults: '--short-builtin-calls --concurrent-recompilation',
};

/**
 * The extraction thread's isolate when it is started for a job that is waiting (a call came before the
 * thread was up, or a cancel ended it): no warm-up has made its code hot, so V8 compiles much of it
 * during the job. Here those compiles run on V8's background threads, one at a time (the queue of one
 * keeps a single compiler zone alive at once). Through the bin, a server called right after the
 * handshake, 1,000 small sheets, two calls, 8 rounds alternated (2026-11-29, Node 20.20): 545-615 /
 * 205-257 ms against 749-836 / 266-290 ms, peak 93.5-97.3 MB (with the 2 MB young generation of
 * tools/deps.ts) against 91.4-92.7, below the peak of a server that idled first (95-96 MB), which keeps
 * EXTRACT_ISOLATE_FLAGS: there the warm-up's compiles on top made the server peak at 96.3-101.2 MB. The
 * 1M cells called at once: the same times and peak (138-141 MB, 6 rounds).
 */
export const EXTRACT_JOB_ISOLATE_FLAGS: IsolateFlags = {
  flags: '--no-short-builtin-calls --concurrent-recompilation-queue-length=1',
  defaults: '--short-builtin-calls --concurrent-recompilation-queue-length=8',
};

/** Creates a Worker (`create`) whose isolate is made with `isolate`'s flags. */
export function withIsolateFlags(isolate: IsolateFlags | undefined, create: () => Worker): Worker {
  if (!isolate) return create();
  v8.setFlagsFromString(isolate.flags);
  let worker: Worker;
  try {
    worker = create();
  } catch (error) {
    v8.setFlagsFromString(isolate.defaults);
    throw error;
  }
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    v8.setFlagsFromString(isolate.defaults);
  };
  worker.once('online', restore);
  worker.once('error', restore);
  worker.once('exit', restore);
  return worker;
}
