// Worker thread: runs the jobs of jobs.ts posted by job-runner.ts, one message per job. The main thread
// stays free to answer (ping, other calls) however big the workbook or slow the format, and a cancelled
// call terminates this thread at once. The read cache (output-file.ts) lives here between jobs.
import { parentPort, workerData } from 'node:worker_threads';
import { toJobFailure } from './job-errors.js';
import { JOBS, transferables, type JobName } from './jobs.js';
import { warmUp } from './warm-up.js';

export interface JobRequest {
  id: number;
  name: JobName;
  input: unknown;
  /** The descriptor of the file the server opened for the job (the server closes it). */
  fd: number;
}

/** Sent instead of a job when the server starts work of its own (see JobThread.stopWarmUp). */
export interface StopWarmUp {
  stopWarmUp: true;
}

/** A job (or the server's own work) has come: the warm-up stops (the job runs whatever it needs). */
let busy = false;

parentPort!.on('message', (message: JobRequest | StopWarmUp) => {
  busy = true;
  if ('stopWarmUp' in message) return;
  const { id, name, input, fd } = message;
  const run = JOBS[name] as (input: unknown, fd: number) => Promise<unknown>;
  run(input, fd).then(
    (output) => parentPort!.postMessage({ id, ok: true, output }, transferables(name, output)),
    (error: unknown) => parentPort!.postMessage({ id, ok: false, error: toJobFailure(error) }),
  );
});
// Every module is loaded: the thread may now be terminated without leaving a module file open.
parentPort!.postMessage({ ready: true });
// Asked for by the server that started this thread before any job (see JobThread.prestart).
if ((workerData as { warmUp?: boolean } | null)?.warmUp === true) void warmUp(() => busy);
