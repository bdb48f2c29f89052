// The extraction thread started by the bin before the server's own modules have loaded (index.ts), so
// that the thread loads its modules and warms its code (warm-up.ts) on the other core while the server
// gets ready; the server's extraction JobThread takes it over (job-runner.ts). Imports nothing but Node.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const JOB_WORKER_URL = new URL('./job-worker.js', import.meta.url);

interface Spare {
  worker: Worker;
  /** The thread has said it loaded its modules (`{ ready: true }`). */
  loaded: boolean;
  exited: boolean;
}

let spare: Spare | undefined;

/** Starts the spare thread (once; nothing without a compiled worker). Waits for nothing. */
export function startSpareJobThread(): void {
  if (spare || !existsSync(fileURLToPath(JOB_WORKER_URL))) return;
  const worker = new Worker(JOB_WORKER_URL, { workerData: { warmUp: true } });
  // Like every idle job thread, it never keeps the process alive.
  worker.unref();
  const started: Spare = { worker, loaded: false, exited: false };
  worker.on('message', (message: { ready?: boolean }) => {
    if (message?.ready === true) started.loaded = true;
  });
  worker.on('error', () => (started.exited = true));
  worker.on('exit', () => (started.exited = true));
  spare = started;
}

/**
 * The spare thread, handed over once with whether it has loaded yet (its listeners removed: the new
 * owner adds its own); undefined when none was started or it stopped.
 */
export function takeSpareJobThread(): { worker: Worker; loaded: boolean } | undefined {
  const taken = spare;
  spare = undefined;
  if (!taken) return undefined;
  taken.worker.removeAllListeners('message');
  taken.worker.removeAllListeners('error');
  taken.worker.removeAllListeners('exit');
  if (taken.exited) return undefined;
  return { worker: taken.worker, loaded: taken.loaded };
}
