// Worker thread: runs the jobs of jobs.ts posted by job-runner.ts, one message per job. The main thread
// stays free to answer (ping, other calls) however big the workbook or slow the format, and a cancelled
// call terminates this thread at once. The read cache (output-file.ts) lives here between jobs.
import { parentPort, workerData } from 'node:worker_threads';
import { toJobFailure } from './job-errors.js';
import { loadExtractThread, loadJob, transferables, type JobName } from './jobs.js';

export interface JobRequest {
  id: number;
  name: JobName;
  input: unknown;
  /** The descriptor of the file the server opened for the job (the server closes it). */
  fd: number;
}

/** What the server that starts the thread asks of it (see JobThread). */
export interface JobThreadData {
  /** The jobs whose code is loaded before the thread says it is ready (others load on first use). */
  preload: JobName[];
  /** Warm the extraction code up before any job (see JobThread.prestart). */
  warmUp: boolean;
}

/** Sent instead of a job when the server starts work of its own (see JobThread.stopWarmUp). */
export interface StopWarmUp {
  stopWarmUp: true;
}

/** A job (or the server's own work) has come: the warm-up stops (the job runs whatever it needs). */
let busy = false;

const data = workerData as Partial<JobThreadData> | null;
/**
 * A thread started for a job, without the warm-up, extracts a tiny workbook before that job (see
 * quickWarmUp): jobs wait for it.
 */
const beforeJobs =
  data?.warmUp !== true && (data?.preload ?? []).includes('extract')
    ? loadExtractThread().then((thread) => thread.quickWarmUp())
    : Promise.resolve();

parentPort!.on('message', (message: JobRequest | StopWarmUp) => {
  busy = true;
  if ('stopWarmUp' in message) return;
  const { id, name, input, fd } = message;
  const job = beforeJobs.then(() => loadJob(name));
  // Its code is loaded (or failed to load): the server may now terminate this thread for a cancel
  // without leaving a module file open (see JobThread.endThread).
  void job.finally(() => parentPort!.postMessage({ loaded: id })).catch(() => undefined);
  job
    .then((run) => run(input as never, fd))
    .then(
      (output) => parentPort!.postMessage({ id, ok: true, output }, transferables(name, output)),
      (error: unknown) => parentPort!.postMessage({ id, ok: false, error: toJobFailure(error) }),
    );
});

await Promise.all((data?.preload ?? []).map((name) => loadJob(name)));
const warmUp = data?.warmUp === true ? (await loadExtractThread()).warmUp : undefined;
// Every module is loaded: the thread may now be terminated without leaving a module file open.
parentPort!.postMessage({ ready: true });
if (warmUp) void warmUp(() => busy);
