import { JobThread } from '../jobs/job-runner.js';
import type { OnConflict } from '../output/on-conflict.js';

/** Everything a tool of this server may need besides the core context (one set per server). */
export interface ExstructToolDeps {
  /** The server's --on-conflict; undefined: the safe default (see output/output-path.ts). */
  onConflict: OnConflict | undefined;
  /** Threads for the long reading work (extraction, parsing outputs), off the event loop. */
  jobs: { extract: JobThread; read: JobThread };
}

export function createToolDeps(onConflict: OnConflict | undefined): ExstructToolDeps {
  return { onConflict, jobs: { extract: new JobThread(), read: new JobThread() } };
}

/**
 * Starts the extraction thread in the background (see JobThread.prestart). Called once the client has
 * finished the handshake: started earlier, the thread competes with the server's own start for the
 * cores (measured: initialize answered ~300 ms later on an idle 2-core machine, ~1 s later on a busy one).
 */
export function warmToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.prestart();
}

/** Ends the threads of a server's tools (when the server closes: none outlives it). */
export function closeToolDeps(deps: ExstructToolDeps): void {
  deps.jobs.extract.close();
  deps.jobs.read.close();
}
