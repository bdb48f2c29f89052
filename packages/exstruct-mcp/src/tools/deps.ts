import { JobThread } from '../jobs/job-runner.js';
import type { OnConflict } from '../output/on-conflict.js';

/** Everything a tool of this server may need besides the core context (one set per server). */
export interface ExstructToolDeps {
  /** The server's --on-conflict; undefined: the safe default (see output/output-path.ts). */
  onConflict: OnConflict | undefined;
  /** Threads for the long reading work (extraction, parsing outputs), off the event loop. */
  jobs: { extract: JobThread; read: JobThread };
}

/**
 * The extraction thread's young generation, in MB (V8's default lets it grow to 48). Extraction keeps
 * little of what it allocates, so a smaller nursery costs no time and caps the memory it holds: measured
 * through the bin (issue 26 §1, load ~4), peak 162-172 MB against 193-205 MB for 1,000 small sheets,
 * 196-209 against 193-214 MB for 1M cells, calls no slower (4 MB: no better).
 */
const EXTRACT_YOUNG_GENERATION_MB = 8;

export function createToolDeps(onConflict: OnConflict | undefined): ExstructToolDeps {
  return {
    onConflict,
    jobs: {
      extract: new JobThread({ maxYoungGenerationSizeMb: EXTRACT_YOUNG_GENERATION_MB }),
      read: new JobThread(),
    },
  };
}

/**
 * Starts the extraction thread in the background (see JobThread.prestart). Called once the client has
 * finished the handshake: started earlier, the thread competes with the server's own start for the
 * cores (measured: initialize answered ~300 ms later on an idle 2-core machine, ~1 s later on a busy one).
 */
export function warmToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.prestart();
}

/** Work is starting on the server's own thread (an edit): the extraction thread's warm-up stops. */
export function quietToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.stopWarmUp();
}

/** Ends the threads of a server's tools (when the server closes: none outlives it). */
export function closeToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.close();
  deps.jobs.read.close();
}
