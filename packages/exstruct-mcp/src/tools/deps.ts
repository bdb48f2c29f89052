import { EXTRACT_ISOLATE_FLAGS, EXTRACT_JOB_ISOLATE_FLAGS } from '../jobs/isolate-flags.js';
import { JobThread } from '../jobs/job-runner.js';
import { withHeapGrowth } from '../heap-growth.js';
import type { OnConflict } from '../output/on-conflict.js';

/** Everything a tool of this server may need besides the core context (one set per server). */
export interface ExstructToolDeps {
  /** The server's --on-conflict; undefined: the safe default (see output/output-path.ts). */
  onConflict: OnConflict | undefined;
  /** Threads for the long reading work (extraction, parsing outputs), off the event loop. */
  jobs: { extract: JobThread; read: JobThread };
}

/**
 * The extraction thread's young generation, in MB (V8's default lets a Worker's grow to 48). Extraction
 * keeps little of what it allocates, so a small nursery costs no time and caps the memory it holds:
 * measured through the bin (issue 26 §1, load ~4), 8 MB gave a peak of 162-172 MB against 193-205 MB for
 * 1,000 small sheets, calls no slower. 4 MB (its new space 4 MB resident instead of 8; 6 gives the same), now that the old
 * generation is collected at 30 % growth (heap-growth.ts): in a Worker running the extraction job, 12
 * runs x 3 alternations (load 4.4-4.8), peak 102.3-102.8 -> 98.3-98.7 MB, warm CPU medians 198-223 ->
 * 164-237 ms; 1M cells peak 132-140 -> 124 MB, CPU medians 596-752 -> 540-630 ms. (3 MB, tried before
 * the growth cap, raised the garbage collector's share of a warm 1,000-sheet extraction from 10-16 % to
 * 20-21 %.) 2 MB, tried with the thread compiling on its own (jobs/isolate-flags.ts): a
 * 1,000-sheet server idled 1 s peaked 1.3 MB lower (94.6 vs 95.9 MB median, 8 rounds), 1M cells 9 MB
 * lower (111 vs 120 MB), at the same CPU per call (+-15 ms), but its second 1M-cell call took 50-170 ms
 * more wall time at load 4.5-6 (more scavenges, each waiting for V8's parallel helpers).
 */
const EXTRACT_YOUNG_GENERATION_MB = 4;

/**
 * The young generation of an extraction thread started for a job that is waiting (its optimising
 * compiles on V8's threads, jobs/isolate-flags.ts): 2 MB pays for the memory those compiles keep. A
 * server called right after the handshake, 1,000 small sheets, three calls, 6 rounds alternated
 * (2026-11-29): peak 94.6-98.9 MB with 2 MB against 99.6-102.1 MB with 4, at the same times.
 */
const EXTRACT_JOB_YOUNG_GENERATION_MB = 2;

export function createToolDeps(onConflict: OnConflict | undefined): ExstructToolDeps {
  return {
    onConflict,
    jobs: {
      extract: new JobThread(['extract'], {
        warmUp: {
          resourceLimits: { maxYoungGenerationSizeMb: EXTRACT_YOUNG_GENERATION_MB },
          isolateFlags: EXTRACT_ISOLATE_FLAGS,
        },
        forJob: {
          resourceLimits: { maxYoungGenerationSizeMb: EXTRACT_JOB_YOUNG_GENERATION_MB },
          isolateFlags: EXTRACT_JOB_ISOLATE_FLAGS,
        },
      }),
      read: new JobThread(['read']),
    },
  };
}

/**
 * Starts the extraction thread in the background (see JobThread.prestart). Called once the server is
 * idle after the handshake (jobs/idle-start.ts): started earlier, the thread competes with the server's
 * own start for the cores (measured: initialize answered ~300 ms later on an idle 2-core machine, ~1 s
 * later on a busy one), or with a first call made right after the handshake.
 */
export function warmToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.prestart();
}

/**
 * Runs `work` on the server's own thread (an edit): the extraction thread's warm-up stops, and the heaps
 * grow as V8 lets them while it runs (see withHeapGrowth).
 */
export function onServerThread<T>(deps: ExstructToolDeps, work: () => Promise<T>): Promise<T> {
  deps.jobs.extract.stopWarmUp();
  return withHeapGrowth(work);
}

/** Ends the threads of a server's tools (when the server closes: none outlives it). */
export function closeToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.close();
  deps.jobs.read.close();
}
